package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/fstools"
)

// A file-writing call, named with one of the argument names its tool
// accepts, aimed at a sensitive file.
type judgedCase struct {
	tool   string
	args   map[string]any
	target string // the sensitive file the call changes
	want   string // its content afterwards; "" when it is removed
}

const judgedOld = "TOKEN=old\n"

// judgedFiles is every case's workspace.
var judgedFiles = map[string]string{".env": judgedOld, "notes.md": "notes\n", "a.txt": "alpha\n"}

// hostSaveTool is a host's own tool: it declares its write and writes
// through the workspace like the built-ins.
func hostSaveTool(ws *safety.Workspace) tools.Tool {
	type saveArgs struct {
		Path string `json:"path"`
		Text string `json:"text"`
	}
	return tools.New("save_note", "Save a note to a file.",
		func(ctx context.Context, a saveArgs) (tools.Result, error) {
			before, _ := ws.ReadFile(a.Path)
			if err := tools.CheckApproved(ctx, a.Path, before, []byte(a.Text), before != nil); err != nil {
				return tools.Result{}, err
			}
			return tools.Text("saved"), ws.WriteFile(a.Path, []byte(a.Text), 0o644)
		},
		tools.WithEffects(func(_ context.Context, a saveArgs) (tools.Effects, error) {
			before, err := ws.ReadFile(a.Path)
			return tools.Effects{Writes: []string{a.Path},
				Changes: []tools.FileChange{{Path: a.Path, Before: before, Existed: err == nil, After: []byte(a.Text)}}}, nil
		}))
}

// judgedRegistry holds every built-in file tool and a host tool.
func judgedRegistry(t *testing.T, e *env) *tools.Registry {
	reg := &tools.Registry{}
	require.NoError(t, reg.Register(fstools.NewWrite(e.ws), fstools.NewCreate(e.ws), fstools.NewEdit(e.ws),
		fstools.NewModifyLines(e.ws), fstools.NewPatch(e.ws), fstools.NewRename(e.ws), hostSaveTool(e.ws)))
	return reg
}

// argNames lists every name a tool accepts for param: the parameter,
// its aliases, the registry's path aliases for "path", and a respelling
// the registry folds back (camel case).
func argNames(spec tools.Spec, param string) []string {
	names := append([]string{param}, spec.ArgAliases[param]...)
	if param == "path" {
		names = append(names, tools.PathAliases()...)
	}
	if r := respellings(param); len(r) > 0 {
		names = append(names, r[0])
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func judgedCases(t *testing.T) []judgedCase {
	e := newEnv(t, "", nil)
	specs := map[string]tools.Spec{}
	for _, tl := range judgedRegistry(t, e).Tools() {
		specs[tl.Describe().Name] = tl.Describe()
	}
	var cases []judgedCase
	for _, k := range argNames(specs["write_file"], "path") {
		cases = append(cases, judgedCase{"write_file", map[string]any{k: ".env", "content": "TOKEN=new\n"}, ".env", "TOKEN=new\n"})
	}
	for _, k := range argNames(specs["create_file"], "path") {
		cases = append(cases, judgedCase{"create_file", map[string]any{k: "sub/.env", "content": "TOKEN=new\n"}, "sub/.env", "TOKEN=new\n"})
	}
	for _, k := range argNames(specs["edit_file"], "path") {
		cases = append(cases, judgedCase{"edit_file", map[string]any{k: ".env", "old_text": "TOKEN=old", "new_text": "TOKEN=new"}, ".env", "TOKEN=new\n"})
	}
	for _, k := range argNames(specs["modify_lines"], "path") {
		cases = append(cases, judgedCase{"modify_lines", map[string]any{k: ".env", "operation": "replace", "start_line": 1, "content": "TOKEN=new"}, ".env", "TOKEN=new\n"})
	}
	for _, k := range argNames(specs["patch_file"], "path") {
		cases = append(cases, judgedCase{"patch_file", map[string]any{k: ".env", "diff": "@@ -1 +1 @@\n-TOKEN=old\n+TOKEN=new\n"}, ".env", "TOKEN=new\n"})
	}
	for _, k := range argNames(specs["rename_file"], "path") {
		cases = append(cases, judgedCase{"rename_file", map[string]any{k: ".env", "new_path": "moved.txt"}, ".env", ""})
	}
	for _, k := range argNames(specs["rename_file"], "new_path") {
		cases = append(cases, judgedCase{"rename_file", map[string]any{"path": "a.txt", k: ".env", "overwrite": true}, ".env", "alpha\n"})
	}
	for _, k := range argNames(specs["save_note"], "path") {
		cases = append(cases, judgedCase{"save_note", map[string]any{k: ".env", "text": "TOKEN=new\n"}, ".env", "TOKEN=new\n"})
	}
	return cases
}

func scriptFor(t *testing.T, tool string, args any) string {
	b, err := json.Marshal(args)
	require.NoError(t, err)
	return fmt.Sprintf("{\"capabilities\":{\"tools\":true}}\n{\"tool_calls\":[{\"name\":%q,\"arguments\":%s}]}\n{\"content\":\"Done. [TASK_COMPLETE]\"}\n", tool, b)
}

// TestJudgedIsWhatRuns: for every file-writing tool (built-in and a
// host's) and every argument name it accepts, the file the person is
// asked about is the file written, with the bytes shown, and the file the
// checkpoint holds: undo restores it.
func TestJudgedIsWhatRuns(t *testing.T) {
	for _, tc := range judgedCases(t) {
		t.Run(fmt.Sprintf("%s/%v", tc.tool, keys(tc.args)), func(t *testing.T) {
			e := newEnv(t, scriptFor(t, tc.tool, tc.args), judgedFiles)
			e.reg = judgedRegistry(t, e)
			cps, err := checkpoint.New(e.ws, checkpoint.NewMemoryStore())
			require.NoError(t, err)
			ap := &approver{answer: allowAll}
			cfg := e.config()
			cfg.Approver, cfg.Checkpoints = ap, cps
			res, err := e.run(cfg, "Change the token")
			require.NoError(t, err)

			// Judged: the sensitive file made the call confirm-level, and
			// the person was shown that file's change.
			require.Len(t, ap.asked, 1, "a change to %s must be asked about", tc.target)
			req := ap.asked[0]
			require.Equal(t, approval.KindFileEdit, req.Kind)
			require.Contains(t, req.Diff+req.Summary, tc.target)
			// Written: exactly what was shown.
			if tc.want == "" {
				require.False(t, e.exists(tc.target), "%s should be gone", tc.target)
			} else {
				require.Equal(t, tc.want, e.read(tc.target))
				require.Contains(t, req.Diff, "+"+strings.TrimSuffix(tc.want, "\n"), "the diff shown is the diff written")
			}
			// Snapshotted: the checkpoint holds the file and undo restores it.
			require.NotEmpty(t, res.CheckpointID)
			cp, err := cps.Open(context.Background(), res.CheckpointID)
			require.NoError(t, err)
			require.True(t, slices.ContainsFunc(cp.Records(), func(r checkpoint.FileRecord) bool { return r.Path == tc.target }),
				"checkpoint records %v, want %s", cp.Records(), tc.target)
			_, err = cp.Undo(context.Background(), checkpoint.UndoOptions{})
			require.NoError(t, err)
			for name, content := range judgedFiles {
				assert.Equal(t, content, e.read(name), "after undo")
			}
			assert.False(t, e.exists("sub/.env") || e.exists("moved.txt"), "undo removes what the call created")
		})
	}
}

// TestConflictingAliasesRefused: a call that names its file twice, under
// two names the tool accepts, with different values, is refused before
// anything is judged or written.
func TestConflictingAliasesRefused(t *testing.T) {
	type conflict struct {
		tool string
		args map[string]any
	}
	var cases []conflict
	for _, tc := range judgedCases(t) {
		if tc.args["path"] == "a.txt" {
			continue // the target is a rename's destination, not its "path"
		}
		for k := range tc.args {
			if v, _ := tc.args[k].(string); v != tc.target {
				continue
			}
			for _, other := range []string{"path", "target_file", "fileName"} {
				if other == k {
					continue
				}
				args := map[string]any{}
				for k2, v := range tc.args {
					args[k2] = v
				}
				args[other] = "notes.md"
				cases = append(cases, conflict{tc.tool, args})
			}
		}
	}
	cases = append(cases, conflict{"write_file", map[string]any{"target_file": "notes.md", "fileName": ".env", "content": "pwned"}})
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%v", tc.tool, keys(tc.args)), func(t *testing.T) {
			e := newEnv(t, scriptFor(t, tc.tool, tc.args), judgedFiles)
			e.reg = judgedRegistry(t, e)
			ap := &approver{answer: allowAll}
			cfg := e.config()
			cfg.Approver = ap
			_, err := e.run(cfg, "Take care of the token") // no change verb: one round is enough
			require.NoError(t, err)
			assert.Empty(t, ap.asked)
			for name, content := range judgedFiles {
				assert.Equal(t, content, e.read(name))
			}
			acts := e.rec.actions()
			require.Len(t, acts, 1)
			assert.Equal(t, event.StatusError, acts[0].Status)
			assert.Contains(t, acts[0].Output, "given twice")
		})
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
