package agent

import (
	"context"
	"encoding/json"
	"iter"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/tools/fstools"
)

var stagedToken = regexp.MustCompile(`chg_[0-9a-f]{32}`)

// stagingModel stages a write to path, then applies the token it got
// back (twice), then finishes: a model that follows the two-phase protocol.
func stagingModel(path string) llm.Model {
	return llm.ModelFunc(func(_ context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
		return func(yield func(llm.Chunk, error) bool) {
			last := lastResult(req)
			var c llm.Chunk
			switch tok := stagedToken.FindString(last); {
			case len(req.Messages) <= 2:
				args, _ := json.Marshal(map[string]string{"path": path, "content": "KEY=new\n"})
				c.ToolCalls = []llm.ToolCall{{ID: "w", Name: "write_file", Arguments: args}}
			case tok != "" && last != "" && !appliedOnce(req):
				args, _ := json.Marshal(map[string]string{"token": tok})
				c.ToolCalls = []llm.ToolCall{{ID: "a1", Name: fstools.ApplyChangeName, Arguments: args}, {ID: "a2", Name: fstools.ApplyChangeName, Arguments: args}}
			default:
				c.Content = "Done. [TASK_COMPLETE]"
			}
			c.Done = true
			yield(c, nil)
		}
	})
}

func appliedOnce(req llm.Request) bool {
	for _, m := range req.Messages {
		for _, tc := range m.ToolCalls {
			if tc.Name == fstools.ApplyChangeName {
				return true
			}
		}
	}
	return false
}

// In staging mode a write only stages; apply_file_change applies the
// token once. A confirm-level file staged by the model is still denied
// headless: only the host's ApplyChange approves it.
func TestStagingModeInRun(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		headless   bool
		applied    bool
	}{
		{"ordinary file", "config.txt", true, true},
		{"sensitive file headless", ".env", true, false},
		{"sensitive file asked", ".env", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "", map[string]string{tc.path: "KEY=old\n"})
			cfg := e.config()
			cfg.Model, cfg.ToolCalling = stagingModel(tc.path), ToolCallingNative
			cfg.Staging = approval.NewStager(e.ws, approval.StagerConfig{Logger: quietLogger()})
			ap := &approver{answer: allowAll}
			cfg.Approver = ap
			if tc.headless {
				cfg.Policy = approval.Headless(nil)
			}
			res, err := e.run(cfg, "Set the key")
			require.NoError(t, err)
			acts := e.rec.actions()
			require.Len(t, acts, 3, "write, apply, apply again")
			assert.Equal(t, event.StatusSuccess, acts[0].Status, acts[0].Output)
			assert.Contains(t, acts[0].Output, "Nothing has been written yet")
			assert.NotEqual(t, event.StatusSuccess, acts[2].Status, "a token is used once: %s", acts[2].Output)
			if tc.applied {
				assert.Equal(t, event.StatusSuccess, acts[1].Status, acts[1].Output)
				assert.Equal(t, "KEY=new\n", e.read(tc.path))
				assert.Contains(t, acts[2].Output, "already used")
				require.NotEmpty(t, res.CheckpointID, "the applied change is undoable")
			} else {
				assert.Equal(t, event.StatusDenied, acts[1].Status, acts[1].Output)
				assert.Equal(t, "KEY=old\n", e.read(tc.path))
			}
		})
	}
}
