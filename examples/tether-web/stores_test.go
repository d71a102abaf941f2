package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tetherdev/tether/examples/internal/mcpmount/mcpmounttest"
	"github.com/tetherdev/tether/internal/pgtest"
)

// TestMain lets this binary serve as the tests' MCP server when asked,
// and otherwise runs the tests with a private PostgreSQL when one can
// start.
func TestMain(m *testing.M) {
	mcpmounttest.ServeIfAsked()
	// The user's own settings stay out of the tests.
	cfg, err := os.MkdirTemp("", "tether-config")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", cfg)
	code := pgtest.Main(m)
	os.RemoveAll(cfg)
	os.Exit(code)
}

// postgresURL gives a test database's connection string in the URL form
// -db recognises (the private server's is in keyword/value form).
func postgresURL(t *testing.T, dsn string) string {
	if isPostgres(dsn) {
		return dsn
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"host": {cfg.Host}, "port": {fmt.Sprint(cfg.Port)}}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(cfg.User, cfg.Password), Path: "/" + cfg.Database, RawQuery: q.Encode()}
	if cfg.Password == "" {
		u.User = url.User(cfg.User)
	}
	return u.String()
}

// listSessions is GET /api/sessions' body.
func (ts *testServer) listSessions(t *testing.T) string {
	t.Helper()
	resp, err := ts.client.Get(ts.url + "/api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/sessions: %s %s", resp.Status, b.String())
	}
	return b.String()
}

// TestServersShareSessionsInPostgres runs two web processes' servers on
// one PostgreSQL database: a session created and run in one is listed,
// replayed and continued in the other.
func TestServersShareSessionsInPostgres(t *testing.T) {
	db := postgresURL(t, pgtest.Database(t))
	withDB := func(o *options) { o.db = db }
	a := startServer(t, `{"capabilities":{"tools":true}}
{"content":"First answer. [TASK_COMPLETE]"}
`, nil, withDB)
	b := startServer(t, `{"capabilities":{"tools":true}}
{"content":"Second answer, from the other process. [TASK_COMPLETE]"}
`, nil, withDB, func(o *options) { o.workspace = a.dir })

	session := a.newSession(t)
	a.post(t, "/api/prompt", map[string]string{"session": session, "text": "hello"})
	a.events(t, session, func(ev map[string]any) bool { return ev["type"] == "run_finished" })
	// run_finished is stored just before the turn releases its session
	// lease: the other process's prompt, sent at once, waits for it.

	if list := b.listSessions(t); !strings.Contains(list, session) || !strings.Contains(list, `"title":"hello"`) {
		t.Fatalf("the other server lists %s, want %s titled by its first prompt", list, session)
	}
	if code, body := b.post(t, "/api/prompt", map[string]string{"session": session, "text": "and now?"}); code != http.StatusAccepted {
		t.Fatalf("prompt in the other server: %d %v", code, body)
	}
	var text strings.Builder
	runs := 0
	b.events(t, session, func(ev map[string]any) bool {
		switch ev["type"] {
		case "host_error":
			t.Fatalf("the other server's turn failed: %v", ev["error"])
		case "text_delta":
			text.WriteString(ev["text"].(string))
		case "run_finished":
			runs++
		}
		return runs == 2
	})
	for _, want := range []string{"First answer.", "Second answer, from the other process."} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the other server's event log %q lacks %q", text.String(), want)
		}
	}
}

func TestDBFlagNamesPostgres(t *testing.T) {
	for db, want := range map[string]bool{
		"postgres://u@db/tether": true, "postgresql://db/tether": true,
		"tether.db": false, "/var/lib/postgres/tether.db": false, "": false,
	} {
		if got := isPostgres(db); got != want {
			t.Errorf("isPostgres(%q) = %v, want %v", db, got, want)
		}
	}
}
