package agent

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm"
)

// iterationRecorder is an IterationSink that keeps what it was given, and
// fails the save of iteration failAt when it is set.
type iterationRecorder struct {
	*recorder
	saved  []IterationState
	failAt int
}

func (r *iterationRecorder) SaveIteration(_ context.Context, st IterationState) error {
	if st.Iteration == r.failAt {
		return errors.New("disk full")
	}
	r.saved = append(r.saved, st)
	return nil
}

// The conversation is handed to an IterationSink before each model call
// after the first: each state is what the next request continues from.
func TestIterationSinkSeesEachIteration(t *testing.T) {
	inBothModes(t, `{"capabilities":{"tools":true}}
{"content":"Reading.","tool_calls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}
{"tool_calls":[{"name":"write_file","arguments":{"path":"a.txt","content":"edited\n"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`, map[string]string{"a.txt": "original\n"}, func(t *testing.T, e *env) {
		sink := &iterationRecorder{recorder: e.rec}
		cfg := e.config()
		cfg.Sink = sink
		earlier := []llm.Message{{Role: llm.RoleUser, Content: "earlier turn"}, {Role: llm.RoleAssistant, Content: "earlier answer"}}
		x, err := New(cfg)
		require.NoError(t, err)
		res, err := x.Run(context.Background(), Input{Prompt: "edit a.txt", History: earlier})
		require.NoError(t, err)
		require.Equal(t, 3, res.Iterations)

		require.Len(t, sink.saved, 2)
		reqs := e.model.Requests()
		for i, st := range sink.saved {
			assert.Equal(t, i+1, st.Iteration)
			assert.Equal(t, earlier, st.History[:2], "earlier turns are kept")
			assert.Equal(t, "edit a.txt", st.History[2].Content)
			// What was saved is exactly the conversation the next model
			// call was sent, after its system message.
			assert.Equal(t, reqs[i+1].Messages[1:], st.History)
			assert.NotNil(t, st.Memory)
		}
		assert.Equal(t, sink.saved[1].History, res.History[:len(sink.saved[1].History)])
	})
}

// A failed save stops the run like a failed event: the model is not
// called again with a conversation that could not be kept.
func TestIterationSinkFailureStopsRun(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`, map[string]string{"a.txt": "x\n"})
	cfg := e.config()
	cfg.Sink = &iterationRecorder{recorder: e.rec, failAt: 1}
	x, err := New(cfg)
	require.NoError(t, err)
	res, err := x.Run(context.Background(), Input{Prompt: "look at a.txt"})
	require.ErrorIs(t, err, ErrSink)
	require.ErrorContains(t, err, "disk full")
	assert.Equal(t, event.StopError, res.StopReason)
	assert.Len(t, e.model.Requests(), 1)
}
