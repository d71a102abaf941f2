package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// blindBatch is one case of testdata/blind_batches.jsonl: a line sent to
// serve over stdio in a session of the given protocol version, and what
// must come back: a JSON-RPC error code, or "batch of N" responses.
type blindBatch struct {
	Version string `json:"version"`
	Source  string `json:"source"`
	Send    string `json:"send"`
	Want    string `json:"want"`
}

// TestBlindBatches sends each case to a real serve subprocess, followed by
// a ping: the case must get its answer and the ping its result, so a
// session that ended (as the SDK ends it on a batch a version forbids)
// fails the case.
func TestBlindBatches(t *testing.T) {
	data, err := os.ReadFile("testdata/blind_batches.jsonl")
	require.NoError(t, err)
	var cases []blindBatch
	for line := range strings.Lines(string(data)) {
		var c blindBatch
		require.NoError(t, json.Unmarshal([]byte(line), &c), line)
		cases = append(cases, c)
	}
	bin := binary(t)
	right := 0
	for i, c := range cases {
		got, err := serveOne(t, bin, c.Version, c.Send, i)
		if err == nil && got == c.Want {
			right++
			continue
		}
		t.Errorf("case %d (%s): got %q, %v; want %q", i+1, c.Source, got, err, c.Want)
	}
	t.Logf("blind batch cases: %d/%d right", right, len(cases))
}

// serveOne starts serve, initializes at version, sends line and a ping,
// and describes the answer to line: an error's code, or "batch of N".
func serveOne(t *testing.T, bin, version, line string, n int) (string, error) {
	cmd := exec.Command(bin, "serve", "-workspace", t.TempDir(), "-no-terminal")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	send := func(s string) { _, _ = io.WriteString(stdin, s+"\n") }
	next := func() (string, error) {
		select {
		case l, ok := <-lines:
			if !ok {
				return "", fmt.Errorf("the server closed its output (session ended)")
			}
			return l, nil
		case <-time.After(60 * time.Second):
			return "", fmt.Errorf("no answer within a minute")
		}
	}
	send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"blind","version":"1"}}}`)
	if _, err := next(); err != nil {
		return "", err
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(line)
	probe := fmt.Sprintf(`"probe-%d"`, n)
	send(`{"jsonrpc":"2.0","id":` + probe + `,"method":"ping"}`)
	var answer string
	for {
		l, err := next()
		if err != nil {
			return answer, err
		}
		if strings.Contains(l, probe) {
			if answer == "" {
				return "", fmt.Errorf("the ping was answered, the line was not")
			}
			return answer, nil
		}
		var batch []json.RawMessage
		if json.Unmarshal([]byte(l), &batch) == nil {
			answer = fmt.Sprintf("batch of %d", len(batch))
			continue
		}
		var one struct {
			Error *struct{ Code int } `json:"error"`
		}
		if json.Unmarshal([]byte(l), &one) == nil && one.Error != nil {
			answer = fmt.Sprint(one.Error.Code)
		}
	}
}
