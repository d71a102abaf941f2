// Command demo is Tether's first command: an offline agent session you can
// watch, with nothing installed but Go.
//
//	go run ./examples/demo                      # the recorded session, offline
//	go run ./examples/demo -model ollama:qwen3:8b   # the same task, a live model
//
// It copies a small Go project (a stats package whose Mean is wrong) into a
// temporary directory and asks the agent to fix Mean, add Median and run
// the tests. The default model is a recording of a small local model
// answering in text tool calls, with the habits such models have: prose
// around the calls, alias argument names (file_path, filePath, old_string,
// cmd, search/replace), a call cut off before its closing brackets, and a
// wish to "clean the cache" with rm -rf ~/.cache. Everything after the
// model is the real thing: the streaming parser, the safety analysis, the
// approval gate (answered by a scripted approver that prints each question
// and its answer, and refuses the dangerous command), checkpoints, and the
// built-in file and terminal tools.
//
// After the run it prints the checkpoint's diff with +N −N, undoes the
// checkpoint and shows that the tree is byte-for-byte the original. It
// exits 1 if any of its own checks fails: the demo is also a test.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/modelstr"
	"github.com/tetherdev/tether/llm/scripted"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
)

// The sample project. Its go.mod is stored as go.mod.txt: a go.mod would
// make the directory another module, which embed refuses. The leading
// underscore keeps `go test ./...` out of it (its test fails on purpose).
//
//go:embed all:_sample
var sample embed.FS

// The recorded session played by the default model.
//
//go:embed session.jsonl
var session []byte

const task = "Mean in stats.go returns the wrong value. Fix it, add a Median function in median.go, " +
	"run the tests, and list Median in the README."

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("demo", flag.ContinueOnError)
	fl.SetOutput(stderr)
	setUsage(fl, stderr)
	model := fl.String("model", "", "model to run the task with: ollama:NAME, openai:NAME or script:FILE (default: the recorded session)")
	keep := fl.Bool("keep", false, "keep the temporary project directory and print its path")
	verbose := fl.Bool("v", false, "log safety and approval decisions to standard error")
	calling := fl.String("tool-calling", "", "with -model: native, text or envelope (one fenced JSON action block per reply, 6 rounds); empty picks from the model")
	numCtx := fl.Int("num-ctx", 0, "with -model: "+"context window in tokens for ollama: and openai: models (Ollama: num_ctx on every request; default OLLAMA_CONTEXT_LENGTH, else 32768, capped by the model)")
	wireLog := fl.String("wire-log", "", "with -model: append every HTTP request and response to the model server to `FILE` (keys redacted)")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "demo: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	switch agent.ToolCalling(*calling) {
	case agent.ToolCallingAuto, agent.ToolCallingNative, agent.ToolCallingText, agent.ToolCallingEnvelope:
	default:
		fmt.Fprintf(stderr, "demo: -tool-calling %q: want native, text or envelope\n", *calling)
		return 2
	}
	d := &demo{out: stdout, p: paletteFor(stdout), recorded: *model == "", calling: agent.ToolCalling(*calling), numCtx: *numCtx}
	if *wireLog != "" {
		f, err := os.OpenFile(*wireLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintln(stderr, "demo: wire log:", err)
			return 1
		}
		defer f.Close()
		d.wireLog = f
	}
	level := slog.LevelError + 1 // quiet: the transcript already tells the story
	if *verbose {
		level = slog.LevelInfo
	}
	d.logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if err := d.run(ctx, *model, *keep); err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return 1
	}
	if len(d.failed) > 0 {
		fmt.Fprintf(stdout, "\n%s\n", d.p.red(fmt.Sprintf("%d check(s) failed:", len(d.failed))))
		for _, f := range d.failed {
			fmt.Fprintln(stdout, "  ✗", f)
		}
		return 1
	}
	fmt.Fprintf(stdout, "\n%s\n", d.p.green("All demo checks passed."))
	return 0
}

// demo holds one demo run.
type demo struct {
	out      io.Writer
	p        palette
	logger   *slog.Logger
	recorded bool // playing the recorded session: its outcome is known
	calling  agent.ToolCalling
	wireLog  io.Writer // nil: no wire log
	numCtx   int       // -num-ctx
	failed   []string  // checks that failed
}

func (d *demo) check(ok bool, what string) {
	mark := d.p.green("✓")
	if !ok {
		mark = d.p.red("✗")
		d.failed = append(d.failed, what)
	}
	fmt.Fprintf(d.out, "  %s %s\n", mark, what)
}

func (d *demo) section(title string) {
	fmt.Fprintf(d.out, "\n%s\n", d.p.bold(d.p.cyan("== "+title)))
}

func (d *demo) openModel(name string) (llm.Model, error) {
	if name == "" {
		s, err := scripted.ParseScript(strings.NewReader(string(session)))
		if err != nil {
			return nil, err
		}
		return scripted.New(s), nil
	}
	opts := []modelstr.Option{modelstr.WithLogger(d.logger), modelstr.WithNumCtx(d.numCtx)}
	if d.wireLog != nil {
		opts = append(opts, modelstr.WithWireLog(d.wireLog))
	}
	return modelstr.Open(name, opts...)
}

func (d *demo) run(ctx context.Context, modelName string, keep bool) error {
	model, err := d.openModel(modelName)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "tether-demo-")
	if err != nil {
		return err
	}
	if keep {
		defer fmt.Fprintf(d.out, "\nProject kept in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	original, err := copySample(dir)
	if err != nil {
		return err
	}
	d.section("A small Go project, copied to " + dir)
	d.printTree(dir)

	ws, err := safety.OpenWorkspace(dir)
	if err != nil {
		return err
	}
	defer ws.Close()
	reg := &tools.Registry{}
	if _, err := builtin.Register(reg, ws, builtin.Options{}); err != nil {
		return err
	}
	cps, err := checkpoint.New(ws, checkpoint.NewMemoryStore(), checkpoint.WithLogger(d.logger))
	if err != nil {
		return err
	}
	tr := &transcript{w: d.out, p: d.p}
	model = parserWatch{inner: model, note: tr.note}
	ap := &scriptedApprover{w: d.out, p: d.p}
	maxIter := 0 // the agent's default
	if d.calling == agent.ToolCallingEnvelope {
		maxIter = 6 // small envelope models loop; 6 rounds bounds a prompt
	}
	x, err := agent.New(agent.Config{
		Model:         model,
		Tools:         reg,
		Workspace:     ws,
		CommandRules:  safety.CommandRules{AllowReadOnly: true, Logger: d.logger},
		Policy:        approval.Interactive(),
		Approver:      ap,
		Checkpoints:   cps,
		Sink:          tr,
		Logger:        d.logger,
		ToolCalling:   d.calling,
		MaxIterations: maxIter,
	})
	if err != nil {
		return err
	}

	d.section("The agent at work")
	fmt.Fprintf(d.out, "%s %s\n", d.p.bold("task:"), task)
	if d.recorded {
		fmt.Fprintln(d.out, d.p.dim("model: a recorded small-model session, played back offline (-model ollama:NAME for a live one)"))
	} else {
		fmt.Fprintln(d.out, d.p.dim("model: "+modelName))
	}
	res, err := x.Run(ctx, agent.Input{Prompt: task})
	if err != nil {
		return fmt.Errorf("the run failed: %w", err)
	}

	d.section("What changed")
	if res.CheckpointID == "" {
		fmt.Fprintln(d.out, "Nothing: the run changed no file.")
	} else {
		cp, err := cps.Open(ctx, res.CheckpointID)
		if err != nil {
			return err
		}
		diff, err := cp.Diff(ctx)
		if err != nil {
			return err
		}
		d.printDiff(diff)
	}

	d.section("Checks")
	d.check(res.StopReason == event.StopCompleted, fmt.Sprintf("the run completed (stop reason %s)", res.StopReason))
	if d.recorded {
		d.checkRecorded(dir, tr, ap)
	}

	if res.CheckpointID != "" {
		d.section("Undo")
		cp, err := cps.Open(ctx, res.CheckpointID)
		if err != nil {
			return err
		}
		rep, err := cp.Undo(ctx, checkpoint.UndoOptions{})
		if err != nil {
			return fmt.Errorf("undo: %w", err)
		}
		fmt.Fprintf(d.out, "checkpoint %s: restored %s; removed %s\n", res.CheckpointID, listOr(rep.Restored), listOr(rep.Removed))
		d.printTree(dir)
	}
	same, why := sameTree(dir, original)
	d.check(same, "the tree is byte-for-byte the original again"+why)
	return nil
}

// checkRecorded checks what the recorded session must have done.
func (d *demo) checkRecorded(dir string, tr *transcript, ap *scriptedApprover) {
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		return string(b)
	}
	stats := read("stats.go")
	d.check(strings.Contains(stats, "float64(len(xs))") && strings.Contains(stats, "if len(xs) == 0"),
		"Mean fixed through edit_file with alias arguments (filePath, old_string/new_string)")
	repaired := slices.ContainsFunc(tr.notes, func(n string) bool { return strings.Contains(n, "write_file call was cut off") })
	d.check(repaired && strings.Contains(read("median.go"), "func Median("),
		"median.go written from a call cut off before its closing brackets (repaired by the parser)")
	d.check(strings.Contains(read("README.md"), "`Median(xs)`"), "README edited with search/replace aliases")

	refused := false
	for _, q := range ap.log {
		if q.req.Kind == approval.KindCommand && q.req.Severity >= safety.SeverityCritical && !q.resp.Allowed() {
			refused = true
		}
	}
	d.check(refused, "the approver was asked about `rm -rf ~/.cache` (critical) and refused it")
	for _, a := range tr.seen.actions {
		if strings.Contains(a.Title, "rm -rf") && a.Status != event.StatusDenied {
			d.check(false, "rm -rf was not run")
		}
	}
	ran := false
	for _, a := range tr.seen.actions {
		if strings.Contains(a.Title, "go test") {
			ran = a.Status == event.StatusSuccess
		}
	}
	if goOnPath() {
		d.check(ran, "`go test ./...` (sent as \"cmd\") was approved and passed against the fixed code")
	} else {
		fmt.Fprintln(d.out, d.p.dim("  – go is not on PATH: the test command's result is not checked"))
	}
}

// printDiff shows each file's unified diff, coloured, with its +N −N.
func (d *demo) printDiff(diff checkpoint.Diff) {
	p := d.p
	for _, f := range diff.Files {
		fmt.Fprintf(d.out, "%s %s %s\n", p.bold(f.Path), p.dim("("+string(f.Kind)+")"), stat(p, f.Added, f.Removed))
		for _, l := range strings.SplitAfter(strings.TrimSuffix(f.Unified, "\n"), "\n") {
			switch {
			case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
				l = p.dim(strings.TrimSuffix(l, "\n")) + "\n"
			case strings.HasPrefix(l, "+"):
				l = p.green(strings.TrimSuffix(l, "\n")) + "\n"
			case strings.HasPrefix(l, "-"):
				l = p.red(strings.TrimSuffix(l, "\n")) + "\n"
			case strings.HasPrefix(l, "@@"):
				l = p.cyan(strings.TrimSuffix(l, "\n")) + "\n"
			}
			fmt.Fprint(d.out, "    "+l)
		}
		fmt.Fprintln(d.out)
	}
	fmt.Fprintf(d.out, "%d file(s) changed, %s\n", len(diff.Files), stat(p, diff.Added, diff.Removed))
}

func stat(p palette, added, removed int) string {
	return p.green(fmt.Sprintf("+%d", added)) + " " + p.red(fmt.Sprintf("−%d", removed))
}

func listOr(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}

// printTree lists the project's files with their sizes.
func (d *demo) printTree(dir string) {
	files, _ := treeFiles(dir)
	for _, f := range files {
		info, err := os.Stat(filepath.Join(dir, f))
		if err == nil {
			fmt.Fprintf(d.out, "  %-16s %5d bytes\n", f, info.Size())
		}
	}
}

// copySample writes the embedded project into dir and returns its files.
func copySample(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(sample, "_sample", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := sample.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "_sample/")
		if rel == "go.mod.txt" {
			rel = "go.mod"
		}
		files[rel] = b
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	return files, err
}

// treeFiles lists the regular files under dir, slash-separated and sorted.
func treeFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	slices.Sort(out)
	return out, err
}

// sameTree reports whether dir holds exactly the files of want.
func sameTree(dir string, want map[string][]byte) (bool, string) {
	got, err := treeFiles(dir)
	if err != nil {
		return false, ": " + err.Error()
	}
	if len(got) != len(want) {
		return false, fmt.Sprintf(": %d files, want %d (%s)", len(got), len(want), strings.Join(got, ", "))
	}
	for _, f := range got {
		b, err := os.ReadFile(filepath.Join(dir, f))
		w, ok := want[f]
		if err != nil || !ok || string(b) != string(w) {
			return false, ": " + f + " differs"
		}
	}
	return true, ""
}
