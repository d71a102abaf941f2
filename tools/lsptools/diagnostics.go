package lsptools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

type diagnosticsArgs struct {
	Path string `json:"path,omitempty" jsonschema:"description=File to check\\, relative to the workspace root. A directory or no path checks the whole workspace with the project's toolchain when one is configured."`
}

// diagnosticsWait bounds how long get_diagnostics waits for the server to
// analyse a file.
const diagnosticsWait = 30 * time.Second

// maxDiagnostics shown in one answer.
const maxDiagnostics = 50

func (k *kit) diagnostics() tools.Tool {
	return tools.New(DiagnosticsName,
		"Get errors and warnings for a file from its language server (type errors, undefined names, syntax errors) as the file is now. "+
			"Use it after editing code to check your change compiles.",
		func(ctx context.Context, a diagnosticsArgs) (tools.Result, error) {
			if a.Path == "" || k.isDir(a.Path) {
				return k.fallbackDiagnostics(ctx, a, "a language server checks one file at a time")
			}
			d, err := k.open(ctx, a.Path)
			if why, ok := serverProblem(err); ok {
				return k.fallbackDiagnostics(ctx, a, why)
			}
			if err != nil {
				return tools.Result{}, err
			}
			wctx, cancel := context.WithTimeout(ctx, diagnosticsWait)
			defer cancel()
			diags, err := d.client.Diagnostics(wctx, d.abs)
			if err != nil && ctx.Err() != nil {
				return tools.Result{}, err
			}
			timedOut := err != nil
			return k.diagnosticsResult(d, diags, timedOut), nil
		}, tools.ReadOnly(), tools.WithTimeout(DefaultTimeout), tools.WithKind(tools.KindAnalyze))
}

func (k *kit) isDir(p string) bool {
	pc := k.cfg.Files.Check(p, safety.OpRead)
	if pc.Decision == safety.Deny || pc.Rel == "" {
		return false
	}
	if pc.Rel == "." {
		return true
	}
	fi, err := fs.Stat(k.cfg.Files.FS(), pc.Rel)
	return err == nil && fi.IsDir()
}

func (k *kit) fallbackDiagnostics(ctx context.Context, a diagnosticsArgs, why string) (tools.Result, error) {
	if k.cfg.Diagnostics == nil {
		return tools.Text(fmt.Sprintf("No diagnostics: %s, and no project toolchain is configured. Run the build or tests with run_terminal_command instead.", why)), nil
	}
	args, _ := json.Marshal(a)
	return k.cfg.Diagnostics.Execute(ctx, tools.Call{Name: DiagnosticsName, Arguments: args})
}

func (k *kit) diagnosticsResult(d *doc, diags []lsp.Diagnostic, timedOut bool) tools.Result {
	meta := tools.Meta{Path: d.rel, TotalLines: len(d.lines), TimedOut: timedOut}
	if len(diags) == 0 {
		msg := fmt.Sprintf("No problems found in %s (%s).", d.rel, d.client.Name())
		if timedOut {
			msg = fmt.Sprintf("No problems reported for %s: %s did not finish analysing it within %s. Try again, or build with run_terminal_command.", d.rel, d.client.Name(), diagnosticsWait)
		}
		return tools.Result{Text: msg, Meta: meta}
	}
	slices.SortStableFunc(diags, func(a, b lsp.Diagnostic) int {
		if sa, sb := sevRank(a.Severity), sevRank(b.Severity); sa != sb {
			return sa - sb
		}
		return a.Range.Start.Line - b.Range.Start.Line
	})
	counts := map[string]int{}
	for _, dg := range diags {
		counts[dg.Severity.String()]++
	}
	var parts []string
	for _, s := range []string{"error", "warning", "info", "hint"} {
		if counts[s] > 0 {
			parts = append(parts, plural(counts[s], s, s+"s"))
		}
	}
	src := k.sources()
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s (%s):\n", strings.Join(parts, ", "), d.rel, d.client.Name())
	for i, dg := range diags {
		if i == maxDiagnostics {
			fmt.Fprintf(&b, "\n[%d more not shown]\n", len(diags)-i)
			meta.Truncated, meta.OmittedItems = true, len(diags)-i
			break
		}
		msg := strings.Join(strings.Fields(dg.Message), " ")
		if dg.Source != "" {
			msg += " (" + dg.Source + ")"
		}
		fmt.Fprintf(&b, "\n%s %s: %s\n", dg.Severity, src.where(d.abs, dg.Range.Start), msg)
		if m := src.marked(d.abs, dg.Range.Start); m != "" {
			b.WriteString(m + "\n")
		}
	}
	meta.Matches = len(diags)
	meta.Summary = strings.Join(parts, ", ")
	return tools.Result{Text: b.String(), Meta: meta}
}

// sevRank orders errors first; a missing severity counts as an error.
func sevRank(s lsp.DiagnosticSeverity) int {
	if s == 0 {
		return 1
	}
	return int(s)
}
