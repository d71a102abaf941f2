package agent

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/tools"
)

// TestToolImagesReachModel: a picture a tool returns goes to the model
// with the tool's result, on the tool message natively and on the one
// user message of results in text mode.
func TestToolImagesReachModel(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nscreenshot")
	screenshot := tools.New("screenshot", "Take a screenshot.", func(context.Context, struct{}) (tools.Result, error) {
		return tools.Result{Text: "[image: image/png, 18 bytes]", Images: []llm.Image{{MIMEType: "image/png", Data: png}}}, nil
	}, tools.ReadOnly())
	inBothModes(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"screenshot","arguments":{}}]}
{"content":"I see it. [TASK_COMPLETE]"}
`, nil, func(t *testing.T, e *env) {
		require.NoError(t, e.reg.Register(screenshot))
		_, err := e.run(e.config(), "What is on the screen?")
		require.NoError(t, err)
		reqs := e.model.Requests()
		require.GreaterOrEqual(t, len(reqs), 2)
		last := reqs[1].Messages[len(reqs[1].Messages)-1]
		if len(reqs[1].Tools) > 0 {
			assert.Equal(t, llm.RoleTool, last.Role)
		}
		assert.Contains(t, last.Content, "[image: image/png, 18 bytes]")
		require.Len(t, last.Images, 1, "the tool's image must reach the model")
		assert.Equal(t, "image/png", last.Images[0].MIMEType)
		assert.True(t, bytes.Equal(png, last.Images[0].Data))
	})
}
