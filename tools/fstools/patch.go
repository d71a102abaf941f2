package fstools

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/internal/edit"
	"github.com/tetherdev/tether/internal/lazyregexp"
	"github.com/tetherdev/tether/tools"
)

// PatchArgs are patch_file's arguments.
type PatchArgs struct {
	Path string `json:"path,omitempty" jsonschema:"description=File to patch\\, relative to the workspace root. Default: the file named in the diff's +++ line."`
	Diff string `json:"diff" jsonschema:"description=A unified diff for one file: @@ hunks whose lines start with ' ' (context)\\, '-' (remove) or '+' (add). Line numbers may be approximate."`
}

// PatchName is patch_file's name.
const PatchName = "patch_file"

// ErrPatchRejected: one or more hunks did not apply; nothing was written.
var ErrPatchRejected = errors.New("patch rejected")

// NewPatch returns patch_file: apply a unified diff, tolerant of shifted
// line numbers and trailing whitespace, all hunks or none.
func NewPatch(ws Workspace) tools.Tool {
	return planned(PatchName,
		"Apply a unified diff to one file. Hunks are located by their context lines, so line numbers may be off. Either every hunk applies or the file is left unchanged and the failing hunks are reported.",
		patch, ws,
		tools.WithArgAliases("diff", "patch", "unified_diff", "changes", "content"),
	)
}

type hunk struct {
	header   string
	oldStart int // 1-based, 0 when the header gave none
	old, new []string
	ops      []byte // per diff line: ' ', '-' or '+'
	noEOLOld bool   // "\ No newline at end of file" after the old side
	noEOLNew bool
}

var hunkHeader = lazyregexp.New(`^@@+ *(?:-(\d+)(?:,(\d+))? *\+(\d+)(?:,(\d+))?)? *@@+`)

// parseDiff reads a one-file unified diff. It accepts what models write:
// headers or none, "@@ @@" without numbers, context lines that lost their
// leading space when blank.
func parseDiff(diff string) (target string, hunks []hunk, err error) {
	diff = strings.ReplaceAll(diff, "\r\n", "\n")
	var files []string
	var cur *hunk
	var last byte // side of the previous line: ' ', '-', '+'
	for _, line := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "+++ "):
			name := strings.TrimSpace(strings.TrimPrefix(line, "+++ "))
			if i := strings.IndexByte(name, '\t'); i >= 0 {
				name = name[:i]
			}
			name = strings.TrimPrefix(strings.TrimPrefix(name, "b/"), "a/")
			files = append(files, name)
			cur = nil
			continue
		case strings.HasPrefix(line, "--- ") && (cur == nil || len(cur.old)+len(cur.new) > 0 && isHeaderNext(line)):
			cur = nil
			continue
		case strings.HasPrefix(line, "diff ") || strings.HasPrefix(line, "index ") || strings.HasPrefix(line, "new file mode") || strings.HasPrefix(line, "deleted file mode"):
			continue
		case strings.HasPrefix(line, "@@"):
			m := hunkHeader.FindStringSubmatch(line)
			if m == nil {
				return "", nil, fmt.Errorf("malformed hunk header %q; write it as @@ -start,count +start,count @@", line)
			}
			hunks = append(hunks, hunk{header: m[0]})
			cur = &hunks[len(hunks)-1]
			if m[1] != "" {
				cur.oldStart, _ = strconv.Atoi(m[1])
			}
			continue
		}
		if cur == nil {
			if strings.TrimSpace(line) == "" {
				continue
			}
			if len(hunks) == 0 && len(files) <= 1 {
				continue // prose or headers before the first hunk
			}
			return "", nil, fmt.Errorf("line %q is outside any hunk; every change must follow an @@ line", line)
		}
		switch {
		case strings.HasPrefix(line, `\`):
			switch last {
			case '-':
				cur.noEOLOld = true
			case '+':
				cur.noEOLNew = true
			default:
				cur.noEOLOld, cur.noEOLNew = true, true
			}
		case line == "":
			cur.old, cur.new = append(cur.old, ""), append(cur.new, "")
			cur.ops = append(cur.ops, ' ')
			last = ' '
		case line[0] == ' ':
			cur.old, cur.new = append(cur.old, line[1:]), append(cur.new, line[1:])
			cur.ops = append(cur.ops, ' ')
			last = ' '
		case line[0] == '-':
			cur.old = append(cur.old, line[1:])
			cur.ops = append(cur.ops, '-')
			last = '-'
		case line[0] == '+':
			cur.new = append(cur.new, line[1:])
			cur.ops = append(cur.ops, '+')
			last = '+'
		default:
			return "", nil, fmt.Errorf("line %q in %s starts with neither ' ', '-' nor '+'", line, cur.header)
		}
	}
	if len(files) > 1 {
		return "", nil, fmt.Errorf("the diff changes %d files (%s); call patch_file once per file", len(files), strings.Join(files, ", "))
	}
	if len(files) == 1 && files[0] != "/dev/null" {
		target = files[0]
	}
	if len(hunks) == 0 {
		return "", nil, errors.New("the diff has no hunks: each change needs an @@ line followed by ' ', '-' and '+' lines")
	}
	return target, hunks, nil
}

// apply returns the new block for the matched old block, keeping the
// file's own spelling of context lines (which may differ in trailing
// whitespace from the diff's).
func (h hunk) apply(matched []string) []string {
	out := make([]string, 0, len(h.new))
	j, k := 0, 0 // indexes into matched (old side) and h.new
	for _, op := range h.ops {
		switch op {
		case ' ':
			out = append(out, matched[j])
			j++
			k++
		case '-':
			j++
		case '+':
			out = append(out, h.new[k])
			k++
		}
	}
	return out
}

// isHeaderNext is a conservative test for "--- " starting a new file
// header rather than removing a line that begins with "-- ".
func isHeaderNext(line string) bool {
	return strings.HasPrefix(line, "--- a/") || strings.HasPrefix(line, "--- /dev/null")
}

func patch(ws Workspace, a PatchArgs) (plan, error) {
	target, hunks, err := parseDiff(a.Diff)
	if err != nil {
		return plan{}, err
	}
	path := a.Path
	if path == "" {
		if target == "" {
			return plan{}, errors.New(`no "path" given and the diff names no file (+++ line); give "path"`)
		}
		path = target
	}
	r, err := rel(ws, path)
	if err != nil {
		return plan{}, err
	}
	content, st, err := loadText(ws, path, r)
	if err != nil {
		return plan{}, err
	}
	eol := edit.LineEnding(content)
	endsNL := strings.HasSuffix(content, "\n")
	lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(content, "\r\n", "\n"), "\n"), "\n")
	if content == "" {
		lines = nil
	}

	var report []string
	var failed []string
	offset := 0
	for i, h := range hunks {
		hint := max(h.oldStart-1+offset, 0)
		at, how := locate(lines, h.old, hint, h.oldStart > 0)
		if at < 0 {
			msg := fmt.Sprintf("hunk %d of %d (%s): %s", i+1, len(hunks), h.header, how)
			if len(h.old) > 0 {
				if c := edit.Closest(strings.Join(lines, "\n"), strings.Join(h.old, "\n"), 1); len(c) > 0 {
					msg += "; the closest passage is:" + strings.TrimRight(edit.ShowCandidates(c), "\n")
				}
			}
			failed = append(failed, msg)
			continue
		}
		if len(failed) > 0 {
			continue // keep looking for further failures, but apply nothing
		}
		lines = append(lines[:at], append(h.apply(lines[at:at+len(h.old)]), lines[at+len(h.old):]...)...)
		if h.oldStart > 0 && at != h.oldStart-1+offset {
			how += fmt.Sprintf(", %+d lines from the header", at-(h.oldStart-1+offset))
		}
		report = append(report, fmt.Sprintf("hunk %d at line %d (%s)", i+1, at+1, how))
		offset += len(h.new) - len(h.old)
		if at+len(h.new) >= len(lines) {
			if h.noEOLNew {
				endsNL = false
			} else if h.noEOLOld {
				endsNL = true
			}
		}
	}
	if len(failed) > 0 {
		return plan{}, fmt.Errorf("%w: %s is unchanged. %s did not apply:\n%s\nRead the file again and send a diff against its current content, or use edit_file.",
			ErrPatchRejected, r, plural(len(failed), "hunk"), strings.Join(failed, "\n"))
	}
	after := strings.Join(lines, eol)
	if endsNL && len(lines) > 0 {
		after += eol
	}
	stats := edit.Count([]byte(content), []byte(after))
	added, removed := stats.Added, stats.Removed
	meta := tools.Meta{Path: r, Added: added, Removed: removed, TotalLines: len(lines)}
	res := tools.Result{Text: fmt.Sprintf("Patched %s: applied %s (+%d -%d): %s.", r, plural(len(hunks), "hunk"), added, removed, strings.Join(report, "; ")), Meta: meta}
	return plan{rel: r, before: []byte(content), existed: true, after: []byte(after), perm: permOf(st), result: res}, nil
}

// locate finds where old occurs in lines, nearest to hint: exactly first,
// then ignoring trailing whitespace. It returns -1 and why when it does not.
func locate(lines, old []string, hint int, hinted bool) (int, string) {
	if len(old) == 0 {
		if !hinted {
			return -1, "it has no context or removed lines and no line number, so there is nowhere to put it"
		}
		return min(hint, len(lines)), "at the header's line"
	}
	for _, loose := range []bool{false, true} {
		best := -1
		for i := 0; i+len(old) <= len(lines); i++ {
			if blockEqual(lines[i:i+len(old)], old, loose) && (best < 0 || abs(i-hint) < abs(best-hint)) {
				best = i
			}
		}
		if best >= 0 {
			if loose {
				return best, "ignoring trailing whitespace"
			}
			return best, "exact"
		}
	}
	return -1, "its context and removed lines were not found in the file"
}

func blockEqual(a, b []string, loose bool) bool {
	for i := range a {
		x, y := a[i], b[i]
		if loose {
			x, y = strings.TrimRight(x, " \t\r"), strings.TrimRight(y, " \t\r")
		}
		if x != y {
			return false
		}
	}
	return true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
