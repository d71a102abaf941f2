package safety

import "strings"

// Option models of git's read-only sub-commands. git is programmable:
// `git diff --output=FILE` writes a file, `git grep -O` opens the matches
// with a program, `git log --ext-diff` and `--textconv` run configured
// programs, `--show-signature` runs gpg. The tables list only what shows
// history, the index or the working tree without writing or running
// anything; every other option of these sub-commands is unvetted, so a
// rule "git log" or the read-only approval covers `git log --oneline -5`
// but not `git log --output=…`. The hatches themselves are rated by the
// git classifier (tiers_git*.go); these tables decide only what a rule
// covers.
//
// Sub-commands that change the repository (commit, push, rebase …) have
// no table: their rules cover them as written, and the classifier rates
// their hatches (rebase --exec, fetch --upload-pack, archive --remote).

var (
	// gitDiffOptions are the diff options shared by diff, log, show and
	// the plumbing diff commands.
	gitDiffOptions = []optGroup{
		flags("-p", "-u", "--patch", "-s", "--no-patch", "--raw", "--patch-with-raw", "--patch-with-stat", "-t",
			"--indent-heuristic", "--no-indent-heuristic", "--minimal", "--patience", "--histogram", "--stat",
			"--compact-summary", "--numstat", "--shortstat", "--dirstat", "--cumulative", "--dirstat-by-file",
			"--summary", "-z", "--name-only", "--name-status", "--submodule", "--color", "--no-color",
			"--color-moved", "--no-color-moved", "--word-diff", "--color-words", "--no-renames", "--rename-empty",
			"--no-rename-empty", "--check", "--full-index", "--binary", "--abbrev", "--break-rewrites",
			"--find-renames", "--find-copies", "--find-copies-harder", "-D", "--irreversible-delete", "--pickaxe-all",
			"--pickaxe-regex", "-R", "--relative", "--no-relative", "-a", "--text", "--ignore-cr-at-eol",
			"--ignore-space-at-eol", "-b", "--ignore-space-change", "-w", "--ignore-all-space", "--ignore-blank-lines",
			"-W", "--function-context", "--exit-code", "--quiet", "--no-ext-diff", "--no-textconv",
			"--ignore-submodules", "--no-prefix", "--default-prefix", "--ita-invisible-in-index",
			"--ita-visible-in-index", "--cached", "--staged", "--merge-base", "--no-index", "--stat-width",
			"--stat-name-width", "--stat-graph-width", "--stat-count", "--ws-error-highlight", "--diff-merges",
			"--no-diff-merges", "--remerge-diff", "--combined-all-paths", "-c", "--cc", "--dd", "-m", "-r", "--root",
			"--no-stat", "--follow"),
		optionalValue("-U", "-M", "-C", "-B", "-X", "-l"),
		texts("--unified", "--anchored", "--diff-algorithm", "--color-moved-ws", "--word-diff-regex", "--diff-filter",
			"-S", "-G", "--find-object", "--skip-to", "--rotate-to", "-I", "--ignore-matching-lines",
			"--inter-hunk-context", "--src-prefix", "--dst-prefix", "--line-prefix", "--output-indicator-new",
			"--output-indicator-old", "--output-indicator-context"),
		// -O names a file listing the order in which paths are shown.
		reads("-O"),
	}
	// gitLogOptions are the revision-walking and formatting options of
	// log, show, rev-list, shortlog and whatchanged.
	gitLogOptions = []optGroup{
		flags("--all-match", "--invert-grep", "-i", "--regexp-ignore-case", "--basic-regexp", "-E",
			"--extended-regexp", "-F", "--fixed-strings", "-P", "--perl-regexp", "--remove-empty", "--merges",
			"--no-merges", "--no-min-parents", "--no-max-parents", "--first-parent", "--exclude-first-parent-only",
			"--not", "--all", "--branches", "--tags", "--remotes", "--reflog", "--alternate-refs", "--single-worktree",
			"--ignore-missing", "--bisect", "--cherry-mark", "--cherry-pick", "--left-only", "--right-only", "--cherry",
			"-g", "--walk-reflogs", "--merge", "--boundary", "--simplify-by-decoration", "--show-pulls",
			"--full-history", "--dense", "--sparse", "--simplify-merges", "--ancestry-path", "--date-order",
			"--author-date-order", "--topo-order", "--reverse", "--no-walk", "--do-walk", "--pretty", "--format",
			"--abbrev-commit", "--no-abbrev-commit", "--oneline", "--expand-tabs", "--no-expand-tabs", "--notes",
			"--no-notes", "--show-notes", "--relative-date", "--parents", "--children", "--left-right", "--graph",
			"--show-linear-break", "--decorate", "--no-decorate", "--clear-decorations", "--source", "--mailmap",
			"--use-mailmap", "--no-mailmap", "--full-diff", "--log-size", "--no-follow", "--count", "--objects",
			"--in-commit-order", "--no-graph", "--no-color"),
		texts("-n", "--max-count", "--skip", "--since", "--after", "--until", "--before", "--since-as-filter",
			"--author", "--committer", "--grep", "--grep-reflog", "--min-parents", "--max-parents", "--glob",
			"--exclude", "--encoding", "--date", "--decorate-refs", "--decorate-refs-exclude", "-L"),
	}
	gitModels = endOfOptions(map[string]*optionModel{
		"status": model(flags("-s", "--short", "-b", "--branch", "--show-stash", "--porcelain", "--long", "-v",
			"--verbose", "--untracked-files", "--ignore-submodules", "--ignored", "-z", "--column", "--no-column",
			"--ahead-behind", "--no-ahead-behind", "--renames", "--no-renames", "--find-renames"),
			optionalValue("-u")),
		"diff":        gitModel(true, gitDiffOptions),
		"diff-tree":   gitModel(true, gitDiffOptions, gitLogOptions, []optGroup{flags("--stdin", "--no-commit-id", "-v")}),
		"diff-files":  gitModel(true, gitDiffOptions, []optGroup{flags("-q", "-0", "-1", "-2", "-3", "--base", "--ours", "--theirs")}),
		"diff-index":  gitModel(true, gitDiffOptions),
		"log":         gitModel(true, gitDiffOptions, gitLogOptions),
		"show":        gitModel(true, gitDiffOptions, gitLogOptions),
		"whatchanged": gitModel(true, gitDiffOptions, gitLogOptions),
		"rev-list":    gitModel(true, gitLogOptions, []optGroup{flags("--timestamp", "--header", "--quiet", "--objects-edge", "--no-object-names", "--left-right", "--disk-usage")}),
		"shortlog": gitModel(true, gitLogOptions, []optGroup{flags("-s", "--summary", "-e", "--email", "-c", "--committer"),
			texts("--group"), optionalValue("-w")}),
		"blame": model(flags("-b", "--root", "--show-stats", "-l", "-t", "--reverse", "--first-parent", "-p",
			"--porcelain", "--line-porcelain", "--incremental", "--progress", "--no-progress", "--color-lines",
			"--color-by-age", "--score-debug", "-f", "--show-name", "-n", "--show-number", "-s", "-e", "--show-email",
			"-w", "-c", "--abbrev", "--minimal"),
			optionalValue("-M", "-C"),
			texts("-L", "--encoding", "--date", "--ignore-rev"),
			reads("-S", "--contents", "--ignore-revs-file")),
		"branch": model(flags("-a", "--all", "-r", "--remotes", "-l", "--list", "-v", "-vv", "--verbose", "--color",
			"--no-color", "--column", "--no-column", "-i", "--ignore-case", "--show-current", "--abbrev", "--no-abbrev",
			"-q", "--quiet", "--omit-empty"),
			texts("--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format")),
		"tag": model(flags("-l", "--list", "-i", "--ignore-case", "--column", "--no-column", "--color", "--omit-empty",
			"-a", "--annotate"),
			optionalValue("-n"),
			texts("--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format",
				"-m", "--message"),
			reads("-F", "--file")),
		"rev-parse": model(flags("--show-toplevel", "--abbrev-ref", "--short", "--verify", "-q", "--quiet", "--git-dir",
			"--git-common-dir", "--absolute-git-dir", "--is-inside-work-tree", "--is-inside-git-dir",
			"--is-bare-repository", "--is-shallow-repository", "--show-prefix", "--show-cdup", "--symbolic",
			"--symbolic-full-name", "--all", "--branches", "--tags", "--remotes", "--show-superproject-working-tree",
			"--shared-index-path", "--local-env-vars", "--sq", "--sq-quote", "--not", "--revs-only", "--no-revs",
			"--flags", "--no-flags", "--show-object-format", "--show-ref-format", "--since", "--after", "--until",
			"--before", "--glob", "--exclude", "--disambiguate", "--path-format", "--end-of-options"),
			texts("--default", "--prefix", "--git-path")),
		"ls-files": model(flags("-c", "--cached", "-d", "--deleted", "-m", "--modified", "-o", "--others", "-i",
			"--ignored", "-s", "--stage", "-u", "--unmerged", "-k", "--killed", "--directory", "--no-empty-directory",
			"--eol", "--deduplicate", "-z", "-t", "-v", "-f", "--full-name", "--recurse-submodules", "--abbrev", "--debug",
			"--sparse", "--error-unmatch", "--exclude-standard", "--resolve-undo"),
			texts("-x", "--exclude", "--with-tree", "--format"),
			reads("-X", "--exclude-from", "--exclude-per-directory")),
		"ls-tree": model(flags("-d", "-r", "-t", "-l", "--long", "-z", "--name-only", "--name-status", "--object-only",
			"--full-name", "--full-tree", "--abbrev"), texts("--format")),
		"grep": func() *optionModel {
			m := model(flags("-a", "--text", "--no-textconv", "-i", "--ignore-case", "-I", "-r", "--recursive",
				"--no-recursive", "-w", "--word-regexp", "-v", "--invert-match", "-h", "-H", "--full-name", "-E",
				"--extended-regexp", "-G", "--basic-regexp", "-F", "--fixed-strings", "-P", "--perl-regexp", "-n",
				"--line-number", "--column", "-l", "--files-with-matches", "--name-only", "-L", "--files-without-match",
				"-z", "--null", "-o", "--only-matching", "-c", "--count", "--color", "--no-color", "--break", "--heading",
				"-p", "--show-function", "-W", "--function-context", "--and", "--or", "--not", "--all-match", "-q",
				"--quiet", "--cached", "--untracked", "--no-index", "--exclude-standard", "--no-exclude-standard",
				"--recurse-submodules"),
				texts("-e", "--max-depth", "-A", "-B", "-C", "--context", "--after-context", "--before-context", "-m",
					"--max-count", "--threads"),
				reads("-f"))
			m.numeric = true
			return m
		}(),
		"describe": model(flags("--all", "--tags", "--contains", "--long", "--always", "--first-parent", "--exact-match",
			"--debug", "--abbrev"), optionalValue("--dirty", "--broken"), texts("--candidates", "--match", "--exclude")),
		"show-ref":      model(flags("--head", "--heads", "--branches", "--tags", "-d", "--dereference", "-s", "--hash", "--verify", "-q", "--quiet", "--abbrev", "--exists")),
		"show-branch":   model(flags("-a", "--all", "-r", "--remotes", "--current", "--topo-order", "--date-order", "--sparse", "--more", "--list", "--merge-base", "--independent", "--no-name", "--sha1-name", "--topics", "-g", "--reflog", "--color", "--no-color")),
		"cat-file":      model(flags("-t", "-s", "-e", "-p", "--batch-check", "--batch", "--batch-command", "--batch-all-objects", "--buffer", "--unordered", "--follow-symlinks", "--allow-unknown-type", "-Z")),
		"merge-base":    model(flags("-a", "--all", "--octopus", "--independent", "--is-ancestor", "--fork-point")),
		"name-rev":      model(flags("--tags", "--all", "--annotate-stdin", "--name-only", "--no-undefined", "--always"), texts("--refs", "--exclude")),
		"for-each-ref":  model(flags("--shell", "--perl", "--python", "--tcl", "--ignore-case", "--omit-empty", "--stdin"), texts("--count", "--sort", "--format", "--points-at", "--merged", "--no-merged", "--contains", "--no-contains", "--exclude")),
		"count-objects": model(flags("-v", "--verbose", "-H", "--human-readable")),
		"check-ignore":  model(flags("-q", "--quiet", "-v", "--verbose", "--stdin", "-z", "-n", "--non-matching", "--no-index")),
		"check-attr":    model(flags("-a", "--all", "--cached", "--stdin", "-z"), texts("--source")),
		"remote":        model(flags("-v", "--verbose")),
		"version":       model(flags("--build-options")),
	})
)

// endOfOptions marks git's models as ending their options at
// "--end-of-options", which git reads before revisions known only at run
// time (`git log --end-of-options "$base"..HEAD`).
func endOfOptions(ms map[string]*optionModel) map[string]*optionModel {
	for _, m := range ms {
		m.endOfOptions = true
	}
	return ms
}

// gitHarmlessGlobal lists git's global options that change neither what
// git reads nor what it runs.
var gitHarmlessGlobal = map[string]bool{
	"--no-pager": true, "-P": true, "--no-optional-locks": true, "--literal-pathspecs": true, "--glob-pathspecs": true,
	"--noglob-pathspecs": true, "--icase-pathspecs": true, "--no-replace-objects": true, "--no-lazy-fetch": true,
	"--no-advice": true, "--version": true, "-v": true, "--help": true, "-h": true, "--html-path": true,
	"--man-path": true, "--info-path": true,
}

// gitRatedGlobal lists the global options the git classifier rates itself
// (-C another directory, -c configuration, --git-dir …): none is covered
// by a rule that does not name it.
var gitRatedGlobal = map[string]bool{
	"-C": true, "-c": true, "--config-env": true, "--git-dir": true, "--work-tree": true, "--exec-path": true,
	"--namespace": true, "--super-prefix": true, "--attr-source": true, "-p": true, "--paginate": true,
}

// gitModel joins option groups into one model; numeric accepts -NUM
// (git log -5).
func gitModel(numeric bool, groups ...[]optGroup) *optionModel {
	var all []optGroup
	for _, g := range groups {
		all = append(all, g...)
	}
	m := model(all...)
	m.numeric = numeric
	return m
}

// gitOptionModel vets git's global options and finds the model of the
// sub-command with the words after it. A read-only sub-command without a
// table gets an empty one, so that each of its options is unvetted.
func gitOptionModel(c *call) (*optionModel, []word) {
	i := 0
	for ; i < len(c.args); i++ {
		w := c.args[i]
		if w.dynamic || !strings.HasPrefix(w.s, "-") {
			break
		}
		name, _, eq := strings.Cut(w.s, "=")
		switch {
		case gitHarmlessGlobal[name]:
			c.optionAt(1+i, 1)
		case gitRatedGlobal[name]:
			// -c and --config-env are rated high and never approved; -C
			// is unvetted by the classifier unless it names ".".
			if name != "-C" && name != "-c" && name != "--config-env" {
				c.unvetted(w.s, "points git at other configuration, programs or a pager")
			}
		default:
			c.unvetted(w.s, "is not a global option git is known to take harmlessly")
		}
		if !eq && takesValue(name, gitValued) {
			i++
		}
	}
	if i >= len(c.args) || c.args[i].dynamic {
		return nil, nil
	}
	sub := c.args[i].s
	if m, ok := gitModels[sub]; ok {
		return m, c.args[i+1:]
	}
	if gitReadOnly(sub) {
		return emptyModel, c.args[i+1:]
	}
	return nil, nil
}

// emptyModel knows no option: each one is unvetted.
var emptyModel = model()

// gitReadOnly reports the sub-commands that only show the repository:
// the git classifier rates them none, and their options are vetted.
func gitReadOnly(sub string) bool {
	switch sub {
	case "status", "log", "diff", "show", "blame", "annotate", "rev-parse", "rev-list", "ls-files",
		"ls-tree", "ls-remote", "grep", "describe", "shortlog", "cat-file", "show-ref", "show-branch", "whatchanged",
		"name-rev", "merge-base", "for-each-ref", "count-objects", "fsck", "verify-commit", "verify-tag",
		"check-ignore", "check-attr", "var", "version", "help", "diff-tree", "diff-files", "diff-index", "range-diff":
		return true
	}
	return false
}
