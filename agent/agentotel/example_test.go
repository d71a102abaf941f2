package agentotel_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/agentotel"
	"github.com/tetherdev/tether/llm/llmtest"
)

// Wrap the model and the sink, and run with a context from RunContext.
func Example() {
	spans := tracetest.NewInMemoryExporter() // a real host exports with OTLP
	tel, err := agentotel.New(agentotel.Options{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans)), Provider: "ollama"})
	if err != nil {
		log.Fatal(err)
	}
	script, err := llmtest.ParseScript(strings.NewReader(`{"content":"Hello! [TASK_COMPLETE]"}`))
	if err != nil {
		log.Fatal(err)
	}
	x, err := agent.New(agent.Config{Model: tel.Model(llmtest.NewScripted(script)), ModelName: "qwen3:8b", Sink: tel.Sink(nil)})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := x.Run(tel.RunContext(context.Background()), agent.Input{Prompt: "Say hello."}); err != nil {
		log.Fatal(err)
	}
	for _, s := range spans.GetSpans() {
		fmt.Println(s.Name)
	}
	// Output:
	// chat qwen3:8b
	// invoke_agent tether
}
