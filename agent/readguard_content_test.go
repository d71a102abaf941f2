package agent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
)

// A credential in a file with an innocent name (a deploy key pasted into
// notes.txt) asks before its content reaches the model, as .env does;
// the same read of a harmless file runs unasked.
func TestReadOfSecretContentAsks(t *testing.T) {
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"read_file","arguments":{"path":"readme.txt"}},{"name":"read_file","arguments":{"path":"notes.txt"}}]}
{"content":"Done."}
`, map[string]string{"notes.txt": "deploy key:\n" + key, "readme.txt": "hello\n"})
	ap := &approver{answer: func(approval.Request) approval.Response {
		return approval.Response{Choice: approval.Deny, Reason: "no secrets"}
	}}
	cfg := e.config()
	cfg.Approver = ap
	_, err := e.run(cfg, "Look at the notes")
	require.NoError(t, err)
	acts := e.rec.actions()
	require.Len(t, acts, 2)
	assert.Equal(t, event.StatusSuccess, acts[0].Status, "a harmless file was held up")
	assert.Equal(t, event.StatusDenied, acts[1].Status)
	assert.NotContains(t, acts[1].Output, "PRIVATE KEY")
	require.Len(t, ap.asked, 1)
	assert.Contains(t, strings.Join(ap.asked[0].Reasons, " "), "holds a private key (by its content)")
}
