package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/tools"
)

func lastUser(req llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			return req.Messages[i].Content
		}
	}
	return ""
}

// Write validation: a task that asks for a change cannot be
// completed before a write succeeded; it is refused once with a reminder.
func TestWriteValidation(t *testing.T) {
	inBothModes(t, `{"capabilities":{"tools":true}}
{"content":"I have created hello.txt for you. [TASK_COMPLETE]"}
{"tool_calls":[{"name":"write_file","arguments":{"path":"hello.txt","content":"hello\n"}}]}
{"content":"Created hello.txt. [TASK_COMPLETE]"}
`, nil, func(t *testing.T, e *env) {
		res, err := e.run(e.config(), "Create a file hello.txt that says hello")
		require.NoError(t, err)
		assert.Equal(t, event.StopCompleted, res.StopReason)
		assert.Equal(t, 3, res.Iterations)
		assert.Equal(t, "hello\n", e.read("hello.txt"))
		assert.Contains(t, lastUser(e.model.Requests()[1]), "no file was changed")
		notices := eventsOf[event.Notice](e.rec)
		require.Len(t, notices, 1)
		assert.Equal(t, event.NoticeWriteReminder, notices[0].Kind)
	})
}

// The reminder is given once: a model that insists is believed.
func TestWriteValidationOnlyOnce(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"content":"Nothing to fix. [TASK_COMPLETE]"}
{"content":"The file is already correct, nothing to change. [TASK_COMPLETE]"}
`, nil)
	res, err := e.run(e.config(), "Fix the bug in main.go")
	require.NoError(t, err)
	assert.Equal(t, event.StopCompleted, res.StopReason)
	assert.Equal(t, 2, res.Iterations)
	assert.Equal(t, "The file is already correct, nothing to change.", res.FinalMessage)
}

// Questions need no write: a natural stop completes at once.
func TestNaturalStopCompletes(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"content":"The project has one file."}
`, nil)
	res, err := e.run(e.config(), "What is in this project?")
	require.NoError(t, err)
	assert.Equal(t, event.StopCompleted, res.StopReason)
	assert.Equal(t, "The project has one file.", res.FinalMessage)
}

// The iteration limit stops a model that never finishes; the summary is
// still produced.
func TestMaxIterations(t *testing.T) {
	line := `{"tool_calls":[{"name":"list_files","arguments":{"path":"."}}]}` + "\n"
	inBothModes(t, `{"capabilities":{"tools":true}}`+"\n"+strings.Repeat(line, 3)+`{"content":"Listed the files three times."}`+"\n", map[string]string{"a.txt": "a"}, func(t *testing.T, e *env) {
		cfg := e.config()
		cfg.MaxIterations = 3
		res, err := e.run(cfg, "What files are there?")
		require.NoError(t, err)
		assert.Equal(t, event.StopMaxIterations, res.StopReason)
		assert.Equal(t, 3, res.Iterations)
		assert.Equal(t, "Listed the files three times.", res.FinalMessage, "fallback summary call")
		last := e.rec.all()[len(e.rec.all())-1].(event.RunFinished)
		assert.Equal(t, event.StopMaxIterations, last.StopReason)
	})
}

// The same failing call, repeated, stops the run.
func TestRepeatedFailureStops(t *testing.T) {
	line := `{"tool_calls":[{"name":"read_file","arguments":{"path":"missing.go"}}]}` + "\n"
	inBothModes(t, `{"capabilities":{"tools":true}}`+"\n"+strings.Repeat(line, 3)+`{"content":"The file does not exist."}`+"\n", nil, func(t *testing.T, e *env) {
		res, err := e.run(e.config(), "Explain missing.go")
		require.NoError(t, err)
		assert.Equal(t, event.StopRepeatedFailure, res.StopReason)
		assert.Equal(t, 3, res.Iterations)
		third := e.model.Requests()[2].Messages
		assert.Contains(t, third[len(third)-2].Content, "failed 2 times")
		assert.Contains(t, third[len(third)-1].Content, "Every action in the last 2 rounds failed", "pivot guidance follows")
	})
}

// After two rounds in which everything failed, pivot guidance is added.
func TestPivotGuidance(t *testing.T) {
	inBothModes(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"read_file","arguments":{"path":"a.go"}}]}
{"tool_calls":[{"name":"read_file","arguments":{"path":"b.go"}}]}
{"content":"Neither file exists."}
`, nil, func(t *testing.T, e *env) {
		res, err := e.run(e.config(), "Explain a.go and b.go")
		require.NoError(t, err)
		assert.Equal(t, event.StopCompleted, res.StopReason)
		assert.Contains(t, lastUser(e.model.Requests()[2]), "Every action in the last 2 rounds failed")
		kinds := e.rec.noticeKinds()
		assert.Equal(t, []event.NoticeKind{event.NoticePivotGuidance}, kinds)
	})
}

// A malformed call is fed back with the parser's reason; the model
// corrects it and the corrected call runs.
func TestMalformedCallFedBackThenCorrected(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":false}}
{"content":"<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"x\" \"oops\"}}</tool_call>"}
{"content":"<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"fixed\"}}</tool_call>"}
{"content":"Wrote a.txt. [TASK_COMPLETE]"}
`, nil)
	res, err := e.run(e.config(), "Create a.txt")
	require.NoError(t, err)
	assert.Equal(t, event.StopCompleted, res.StopReason)
	assert.Equal(t, "fixed", e.read("a.txt"))
	fb := lastUser(e.model.Requests()[1])
	assert.Contains(t, fb, "could not be parsed")
	assert.Contains(t, fb, `<tool_call>{"name": "TOOL_NAME"`)
	notices := eventsOf[event.Notice](e.rec)
	require.NotEmpty(t, notices)
	assert.Equal(t, event.NoticeParseError, notices[0].Kind)
}

// Native calls whose arguments are not an object get an error result for
// that call, not a silent drop; the model corrects the call and it runs.
func TestNativeBadArgumentsFedBackThenCorrected(t *testing.T) {
	turn := 0
	model := llm.ModelFunc(func(_ context.Context, req llm.Request) iterChunks {
		turn++
		switch turn {
		case 1:
			return chunks(llm.Chunk{ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: []byte(`"main.go"`)}}}, llm.Chunk{Done: true})
		case 2:
			if !strings.Contains(lastResult(req), "not a JSON object") {
				return chunks(llm.Chunk{Content: "no feedback"}, llm.Chunk{Done: true})
			}
			return chunks(llm.Chunk{ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: []byte(`{"path":"main.go"}`)}}}, llm.Chunk{Done: true})
		}
		return chunks(llm.Chunk{Content: "It prints Helo."}, llm.Chunk{Done: true})
	})
	e := newEnv(t, "", map[string]string{"main.go": mainGo})
	cfg := e.config()
	cfg.Model = model
	cfg.ToolCalling = ToolCallingNative
	res, err := e.run(cfg, "Read main.go")
	require.NoError(t, err)
	assert.Equal(t, 3, turn)
	assert.Equal(t, "It prints Helo.", res.FinalMessage)
	acts := e.rec.actions()
	require.Len(t, acts, 2)
	assert.Equal(t, event.StatusError, acts[0].Status)
	assert.Contains(t, acts[0].Output, "not a JSON object")
	assert.Equal(t, event.StatusSuccess, acts[1].Status)
}

// A response cut off by the length limit is continued, not taken as done.
func TestLengthStopContinues(t *testing.T) {
	turn := 0
	model := llm.ModelFunc(func(_ context.Context, req llm.Request) iterChunks {
		turn++
		if turn == 1 {
			return chunks(llm.Chunk{Content: "The answer is"}, llm.Chunk{Done: true, StopReason: llm.StopLength})
		}
		return chunks(llm.Chunk{Content: " forty-two."}, llm.Chunk{Done: true})
	})
	e := newEnv(t, "", nil)
	cfg := e.config()
	cfg.Model = model
	res, err := e.run(cfg, "What is the answer?")
	require.NoError(t, err)
	assert.Equal(t, 2, turn)
	assert.Equal(t, event.StopCompleted, res.StopReason)
}

// A model that reports native tools but writes its call in text anyway
// (a broken chat template) still gets it run; the history shows it as a
// native call so its role-tool result has something to answer.
func TestNativeModelWritingTextCalls(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"content":"Reading.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"main.go\"}}</tool_call>"}
{"content":"It prints Helo."}
`, map[string]string{"main.go": mainGo})
	res, err := e.run(e.config(), "What does main.go print?")
	require.NoError(t, err)
	require.Len(t, res.History, 4)
	asst := res.History[1]
	assert.Equal(t, "Reading.\n", asst.Content)
	require.Len(t, asst.ToolCalls, 1)
	assert.Equal(t, "read_file", asst.ToolCalls[0].Name)
	assert.Equal(t, llm.RoleTool, res.History[2].Role)
	assert.Contains(t, res.History[2].Content, "Helo")
	assert.NotContains(t, e.rec.text(), "tool_call")
}

// Calls written together with the completion signal run before the run
// completes; if they all fail, the model gets to see why.
func TestCompletionWithCalls(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":false}}
{"content":"Writing it. <tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"a\"}}</tool_call> [TASK_COMPLETE]"}
`, nil)
	res, err := e.run(e.config(), "Create a.txt")
	require.NoError(t, err)
	assert.Equal(t, event.StopCompleted, res.StopReason)
	assert.Equal(t, 1, res.Iterations)
	assert.Equal(t, "a", e.read("a.txt"))

	e = newEnv(t, `{"capabilities":{"tools":false}}
{"content":"<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"nope.txt\"}}</tool_call> [TASK_COMPLETE]"}
{"content":"nope.txt does not exist. [TASK_COMPLETE]"}
`, nil)
	res, err = e.run(e.config(), "Summarize nope.txt")
	require.NoError(t, err)
	assert.Equal(t, 2, res.Iterations)
	assert.Equal(t, "nope.txt does not exist.", res.FinalMessage)
}

// Without file tools, a prompt with a change verb is a question to
// answer, not a write to validate.
func TestNoWriteValidationWithoutFileTools(t *testing.T) {
	turn := 0
	model := llm.ModelFunc(func(_ context.Context, req llm.Request) iterChunks {
		turn++
		return chunks(llm.Chunk{Content: "Roses are red. [TASK_COMPLETE]"}, llm.Chunk{Done: true})
	})
	x, err := New(Config{Model: model, Logger: quietLogger()})
	require.NoError(t, err)
	res, err := x.Run(context.Background(), Input{Prompt: "Write a poem"})
	require.NoError(t, err)
	assert.Equal(t, 1, turn)
	assert.Equal(t, "Roses are red.", res.FinalMessage)
	assert.Equal(t, ToolCallingText, res.ToolCalling, "a model that reports nothing gets text mode")
}

// Config.ToolTimeout bounds each call; a tool that overruns is reported
// as an error the model can read, and the run goes on.
func TestToolTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	hang := tools.Func{Spec: tools.Spec{Name: "hang", ReadOnly: true, Description: "Never returns."},
		Run: func(ctx context.Context, _ tools.Call) (tools.Result, error) {
			select {
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			case <-release:
				return tools.Text("late"), nil
			}
		}}
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"hang","arguments":{}}]}
{"content":"It timed out."}
`, nil)
	require.NoError(t, e.reg.Register(hang))
	cfg := e.config()
	cfg.ToolTimeout = 30 * time.Millisecond
	res, err := e.run(cfg, "Try hang")
	require.NoError(t, err)
	assert.Equal(t, event.StopCompleted, res.StopReason)
	acts := e.rec.actions()
	require.Len(t, acts, 1)
	assert.Equal(t, event.StatusError, acts[0].Status)
}

// A model that reports tool support but refuses tool specs makes the run
// switch to text tool calling, for this run and the next.
func TestFallbackToTextOnNoToolSupport(t *testing.T) {
	var withTools, calls int
	model := capsModel{caps: llm.Capabilities{Tools: true}, f: func(_ context.Context, req llm.Request) iterChunks {
		calls++
		if len(req.Tools) > 0 {
			withTools++
			return func(yield func(llm.Chunk, error) bool) { yield(llm.Chunk{}, llm.ErrNoToolSupport) }
		}
		if !strings.Contains(req.Messages[0].Content, "<tool_call>") {
			return chunks(llm.Chunk{Content: "no call format in the prompt"}, llm.Chunk{Done: true})
		}
		if strings.Contains(lastResult(req), "<tool_result") {
			return chunks(llm.Chunk{Content: "Listed."}, llm.Chunk{Done: true})
		}
		return chunks(llm.Chunk{Content: `<tool_call>{"name": "list_files", "arguments": {}}</tool_call>`}, llm.Chunk{Done: true})
	}}
	e := newEnv(t, "", map[string]string{"a.txt": "a"})
	cfg := e.config()
	cfg.Model = model
	x, err := New(cfg)
	require.NoError(t, err)
	res, err := x.Run(context.Background(), Input{Prompt: "List the files"})
	require.NoError(t, err)
	assert.Equal(t, ToolCallingText, res.ToolCalling)
	assert.Equal(t, 2, res.Iterations)
	assert.Equal(t, "Listed.", res.FinalMessage)
	assert.Equal(t, 1, withTools)
	res, err = x.Run(context.Background(), Input{Prompt: "List them again"})
	require.NoError(t, err)
	assert.Equal(t, ToolCallingText, res.ToolCalling)
	assert.Equal(t, 1, withTools, "the second run starts in text mode")
	kinds := e.rec.noticeKinds()
	assert.Equal(t, []event.NoticeKind{event.NoticeToolCallingFallback}, kinds)
}

// capsModel is a ModelFunc that reports capabilities.
type capsModel struct {
	caps llm.Capabilities
	f    llm.ModelFunc
}

func (m capsModel) Chat(ctx context.Context, req llm.Request) iterChunks   { return m.f(ctx, req) }
func (m capsModel) Capabilities(context.Context) (llm.Capabilities, error) { return m.caps, nil }

// A small model's respelling of a tool name (readFile) is accepted in
// text mode, as the registry would resolve it.
func TestTextModeRespelledToolName(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":false}}
{"content":"<tool_call>{\"name\": \"readFile\", \"arguments\": {\"path\": \"main.go\"}}</tool_call>"}
{"content":"It prints Helo."}
`, map[string]string{"main.go": mainGo})
	_, err := e.run(e.config(), "What does main.go print?")
	require.NoError(t, err)
	acts := e.rec.actions()
	require.Len(t, acts, 1)
	assert.Equal(t, "read_file", acts[0].Tool)
	assert.Equal(t, event.StatusSuccess, acts[0].Status)
}
