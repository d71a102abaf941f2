package terminal

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/tetherdev/tether/internal/lazyregexp"
	"github.com/tetherdev/tether/safety"
)

// maxSecretFile bounds how much of each secret file is read for values.
const maxSecretFile = 64 << 10

// fileRedactor keeps a Redactor that knows, beside the host's secret
// variables, the values held in secret files: the workspace root's own
// (.env and its kind, by safety's built-in floor) and the user's logins
// (safety.HomeLogins). A command may print such a file by a way the
// Policy does not see (a compiler's diagnostics, a test's failure
// message); its values then still do not reach the model. The files are
// read again whenever one of them changes (name, size or time), so a .env
// written during the session is covered from the next command on.
type fileRedactor struct {
	root, home string
	env        []string

	mu    sync.Mutex
	stamp string
	r     *Redactor
}

func newFileRedactor(root string, env []string) *fileRedactor {
	home := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	return &fileRedactor{root: root, home: home, env: env}
}

// redactor returns the Redactor for the files as they are now.
func (f *fileRedactor) redactor() *Redactor {
	files := f.files()
	var stamp strings.Builder
	for _, p := range files {
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&stamp, "%s\x00%d\x00%d\n", p, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.r != nil && stamp.String() == f.stamp {
		return f.r
	}
	c := secretValues{}
	c.judgeEnv(f.env)
	for _, p := range files {
		fileSecretValues(c, filepath.Base(p), readHead(p))
	}
	f.stamp, f.r = stamp.String(), c.redactor()
	return f.r
}

// files lists the secret files to read: regular files at the top of the
// root whose names are secrets, and the home logins (a directory's files
// one level down).
func (f *fileRedactor) files() []string {
	var out []string
	if entries, err := os.ReadDir(f.root); err == nil {
		for _, e := range entries {
			if e.Type().IsRegular() && (*safety.Sensitivity)(nil).Match(e.Name()).Secret {
				out = append(out, filepath.Join(f.root, e.Name()))
			}
		}
	}
	for _, p := range safety.HomeLogins(f.home) {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case fi.Mode().IsRegular():
			out = append(out, p)
		case fi.IsDir():
			entries, _ := os.ReadDir(p)
			for _, e := range entries {
				if e.Type().IsRegular() {
					out = append(out, filepath.Join(p, e.Name()))
				}
			}
		}
	}
	return out
}

func readHead(p string) []byte {
	fh, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer fh.Close()
	data, _ := io.ReadAll(io.LimitReader(fh, maxSecretFile))
	return data
}

var (
	// assignment is NAME=value, NAME: value or name = value (env files,
	// INI, YAML, TOML), after an optional "export ".
	assignment = lazyregexp.New(`^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]\s*(.*)$`)
	// jsonPair is "name": "value" anywhere in a line.
	jsonPair = lazyregexp.New(`"([^"\\]+)"\s*:\s*"([^"\\]*)"`)
	// netrcPassword is the word after netrc's "password" (or "passwd").
	netrcPassword = lazyregexp.New(`(?:^|\s)(?:password|passwd)\s+(\S+)`)
)

// fileSecretValues adds to c the secret values of a file named name:
// every line of a PEM block's body, assignments judged as host variables
// are, JSON string members likewise, netrc passwords, and the whole
// content of a file that is one long word (a token file).
func fileSecretValues(c secretValues, name string, data []byte) {
	if w := bytes.TrimSpace(data); len(w) >= minSecret && bytes.IndexFunc(w, isSpace) < 0 {
		c.add(string(w), name) // and, if it is NAME=value, the value below
	}
	// A key kept in a JSON string (a service-account file) has its line
	// breaks escaped: its body lines are found once they are real.
	if bytes.Contains(data, []byte(`\n`)) {
		data = append(append(slices.Clip(data), '\n'), bytes.ReplaceAll(data, []byte(`\n`), []byte("\n"))...)
	}
	inPEM := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxSecretFile)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.Contains(line, "-----BEGIN"):
			inPEM = strings.Contains(line, "PRIVATE") || strings.Contains(line, "KEY")
			continue
		case strings.Contains(line, "-----END"):
			inPEM = false
			continue
		case inPEM:
			if len(line) >= 16 && !strings.Contains(line, ":") {
				c.add(line, name)
			}
			continue
		case line == "" || line[0] == '#' || line[0] == ';' || strings.HasPrefix(line, "//"):
			continue
		}
		for _, m := range netrcPassword.FindAllStringSubmatch(line, -1) {
			c.add(m[1], name)
		}
		for _, m := range jsonPair.FindAllStringSubmatch(line, -1) {
			c.judge(m[1], m[2])
		}
		if m := assignment.FindStringSubmatch(line); m != nil {
			c.judge(m[1], unquote(strings.TrimSpace(m[2])))
		}
	}
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// unquote strips one pair of matching quotes and a trailing comment
// after an unquoted value.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v
}
