package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// What a find command will act on. `find . -name '*.log' -delete` names
// no file, yet deletes many; so do `-exec rm {} +` and `find … | xargs
// rm`. Before such a command runs, the files it may reach are worked out
// by evaluating its expression over the workspace, as GNU find would,
// and snapshotted. The evaluation over-approximates: a test it does not
// model (-newer, -size, -perm…) counts as "may match", an expression it
// cannot parse reaches everything under the start points, and a
// directory reached takes every file beneath it (-exec rm -rf {}).

// Bounds on the look-ahead: past them the command is refused, since undo
// could not cover it.
const (
	findMaxWalked  = 200_000 // entries listed under the start points
	findMaxReached = 10_000  // files the command may act on
)

// errFindTooBroad is returned when a find would reach more than undo can
// cover.
var errFindTooBroad = errors.New("this find may act on more files than undo can cover")

// tri is a three-valued truth: a test the look-ahead cannot decide is
// maybe.
type tri uint8

const (
	no tri = iota
	maybe
	yes
)

func and3(a, b tri) tri { return min(a, b) }
func or3(a, b tri) tri  { return max(a, b) }
func not3(a tri) tri    { return yes - a }

// findEntry is one path find visits.
type findEntry struct {
	shown string // as find prints it: start point, then the path beneath
	name  string
	dir   bool
	link  bool
	depth int
}

// findNode is one node of a parsed find expression.
type findNode struct {
	op          string // "and", "or", "not", "seq", "test", "act"
	left, right *findNode
	test        func(findEntry) tri
	acts        bool // an action that runs something on the entry (not -print alone)
	print       bool // -print and its kin: reaches the entry only when piped
}

// findPlan is a parsed find command.
type findPlan struct {
	starts             []string
	expr               *findNode // nil: reaches everything (unparsed or no expression)
	minDepth, maxDepth int
	hasAction          bool
}

// findArity gives the number of arguments of find's primaries the
// look-ahead does not evaluate but must skip over.
var findArity = map[string]int{
	"-size": 1, "-mtime": 1, "-mmin": 1, "-atime": 1, "-amin": 1, "-ctime": 1, "-cmin": 1,
	"-newer": 1, "-anewer": 1, "-cnewer": 1, "-user": 1, "-group": 1, "-uid": 1, "-gid": 1,
	"-perm": 1, "-links": 1, "-inum": 1, "-samefile": 1, "-fstype": 1, "-lname": 1, "-ilname": 1,
	"-context": 1, "-used": 1, "-regextype": 1, "-xtype": 1, "-fprint": 1, "-fprint0": 1, "-fls": 1,
	"-printf": 1, "-fprintf": 2,
	"-empty": 0, "-readable": 0, "-writable": 0, "-executable": 0, "-nouser": 0, "-nogroup": 0,
	"-depth": 0, "-d": 0, "-xdev": 0, "-mount": 0, "-follow": 0, "-noleaf": 0, "-daystart": 0,
	"-ignore_readdir_race": 0, "-noignore_readdir_race": 0, "-warn": 0, "-nowarn": 0, "-quit": 0,
	"-ls": 0,
}

// parseFind reads find's arguments (after the command name). It never
// fails: what it cannot read makes the plan reach everything.
func parseFind(args []string) findPlan {
	p := findPlan{maxDepth: -1}
	i := 0
	for i < len(args) && (args[i] == "-H" || args[i] == "-L" || args[i] == "-P" || strings.HasPrefix(args[i], "-O") || args[i] == "-D") {
		if args[i] == "-D" {
			i++
		}
		i++
	}
	if i > len(args) { // -D without its debug options: find refuses it
		p.starts, p.hasAction = []string{"."}, true // unreadable: everything is reached
		return p
	}
	for i < len(args) && !strings.HasPrefix(args[i], "-") && args[i] != "(" && args[i] != "!" {
		p.starts = append(p.starts, args[i])
		i++
	}
	if len(p.starts) == 0 {
		p.starts = []string{"."}
	}
	r := &findParser{args: args[i:], plan: &p}
	if len(r.args) == 0 {
		return p
	}
	e, ok := r.or()
	if !ok || r.i != len(r.args) {
		p.expr, p.hasAction = nil, true // unreadable: everything is reached
		return p
	}
	p.expr = e
	return p
}

type findParser struct {
	args []string
	i    int
	plan *findPlan
}

func (r *findParser) peek() string {
	if r.i < len(r.args) {
		return r.args[r.i]
	}
	return ""
}

func (r *findParser) or() (*findNode, bool) {
	l, ok := r.seq()
	for ok && (r.peek() == "-o" || r.peek() == "-or") {
		r.i++
		var rt *findNode
		if rt, ok = r.seq(); ok {
			l = &findNode{op: "or", left: l, right: rt}
		}
	}
	return l, ok
}

func (r *findParser) seq() (*findNode, bool) {
	l, ok := r.and()
	for ok && r.peek() == "," {
		r.i++
		var rt *findNode
		if rt, ok = r.and(); ok {
			l = &findNode{op: "seq", left: l, right: rt}
		}
	}
	return l, ok
}

func (r *findParser) and() (*findNode, bool) {
	l, ok := r.unary()
	for ok {
		switch r.peek() {
		case "", ")", "-o", "-or", ",":
			return l, true
		case "-a", "-and":
			r.i++
		}
		var rt *findNode
		if rt, ok = r.unary(); ok {
			l = &findNode{op: "and", left: l, right: rt}
		}
	}
	return l, ok
}

func (r *findParser) unary() (*findNode, bool) {
	switch tok := r.peek(); tok {
	case "!", "-not":
		r.i++
		e, ok := r.unary()
		return &findNode{op: "not", left: e}, ok
	case "(":
		r.i++
		e, ok := r.or()
		if !ok || r.peek() != ")" {
			return nil, false
		}
		r.i++
		return e, true
	case "":
		return nil, false
	}
	return r.primary()
}

func (r *findParser) primary() (*findNode, bool) {
	tok := r.args[r.i]
	r.i++
	arg := func() (string, bool) {
		if r.i >= len(r.args) {
			return "", false
		}
		r.i++
		return r.args[r.i-1], true
	}
	test := func(f func(findEntry) tri) (*findNode, bool) { return &findNode{op: "test", test: f}, true }
	switch tok {
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex":
		pat, ok := arg()
		if !ok {
			return nil, false
		}
		m := findMatcher(tok, pat)
		return test(m)
	case "-type":
		kinds, ok := arg()
		if !ok {
			return nil, false
		}
		return test(func(e findEntry) tri {
			for _, k := range strings.Split(kinds, ",") {
				if k == "d" && e.dir || k == "l" && e.link || k == "f" && !e.dir && !e.link {
					return yes
				}
				if k != "d" && k != "l" && k != "f" {
					return maybe
				}
			}
			return no
		})
	case "-maxdepth", "-mindepth":
		v, ok := arg()
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 0 {
			return nil, false
		}
		if tok == "-maxdepth" {
			r.plan.maxDepth = n
		} else {
			r.plan.minDepth = n
		}
		return test(func(findEntry) tri { return yes })
	case "-true", "-prune":
		return test(func(findEntry) tri { return yes })
	case "-false":
		return test(func(findEntry) tri { return no })
	case "-delete":
		r.plan.hasAction = true
		return &findNode{op: "act", acts: true, test: func(findEntry) tri { return yes }}, true
	case "-exec", "-execdir", "-ok", "-okdir":
		for r.i < len(r.args) && r.args[r.i] != ";" && r.args[r.i] != "+" {
			r.i++
		}
		if r.i >= len(r.args) {
			return nil, false
		}
		r.i++
		r.plan.hasAction = true
		return &findNode{op: "act", acts: true, test: func(findEntry) tri { return maybe }}, true
	case "-print", "-print0":
		r.plan.hasAction = true
		return &findNode{op: "act", print: true, test: func(findEntry) tri { return yes }}, true
	}
	if strings.HasPrefix(tok, "-newer") && len(tok) == 8 {
		if _, ok := arg(); !ok {
			return nil, false
		}
		return test(func(findEntry) tri { return maybe })
	}
	n, known := findArity[tok]
	if !known {
		return nil, false
	}
	for range n {
		if _, ok := arg(); !ok {
			return nil, false
		}
	}
	if strings.HasPrefix(tok, "-fprint") || tok == "-printf" || tok == "-ls" || tok == "-fls" {
		r.plan.hasAction = true
	}
	return test(func(findEntry) tri { return maybe })
}

// findMatcher returns the test of a name or path primary. A pattern it
// cannot translate matches maybe.
func findMatcher(tok, pat string) func(findEntry) tri {
	fold := strings.HasPrefix(tok, "-i")
	var re *regexp.Regexp
	var err error
	if strings.HasSuffix(tok, "regex") {
		// Emacs-style by default; close enough for the common forms, and a
		// failure to compile is maybe.
		re, err = regexp.Compile("^(?:" + pat + ")$")
	} else {
		re, err = regexp.Compile("^" + globRegexp(pat) + "$")
	}
	if err != nil {
		return func(findEntry) tri { return maybe }
	}
	if fold {
		re = regexp.MustCompile("(?i)" + re.String())
	}
	byName := tok == "-name" || tok == "-iname"
	return func(e findEntry) tri {
		s := e.shown
		if byName {
			s = e.name
		}
		if re.MatchString(s) {
			return yes
		}
		return no
	}
}

// globRegexp translates an fnmatch pattern without FNM_PATHNAME (find's
// rule: * and ? match "/" too) into a regular expression.
func globRegexp(pat string) string {
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '\\':
			if i+1 < len(pat) {
				i++
				b.WriteString(regexp.QuoteMeta(pat[i : i+1]))
			}
		case '[':
			j := strings.IndexByte(pat[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := pat[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// eval evaluates n on e, setting *reached when an action may run on it
// (or, when piped, a print may hand it on).
func (n *findNode) eval(e findEntry, piped bool, reached *bool) tri {
	switch n.op {
	case "and":
		l := n.left.eval(e, piped, reached)
		if l == no {
			return no
		}
		return and3(l, n.right.eval(e, piped, reached))
	case "or":
		l := n.left.eval(e, piped, reached)
		if l == yes {
			return yes
		}
		return or3(l, n.right.eval(e, piped, reached))
	case "seq":
		n.left.eval(e, piped, reached)
		return n.right.eval(e, piped, reached)
	case "not":
		return not3(n.left.eval(e, piped, reached))
	case "act":
		if n.acts || n.print && piped {
			*reached = true
		}
	}
	return n.test(e)
}

// reaches reports whether the command may act on e.
func (p findPlan) reaches(e findEntry, piped bool) bool {
	if e.depth < p.minDepth {
		return false
	}
	if p.expr == nil {
		return p.hasAction || piped
	}
	var reached bool
	v := p.expr.eval(e, piped, &reached)
	if !p.hasAction && piped && v != no {
		reached = true // the implicit -print
	}
	return reached
}

// findReach lists the regular files, as absolute paths, that the find
// command with args, run in dir, may act on; piped says its output feeds
// a command (xargs). resolve gives a path's absolute form when it is
// inside the workspace. It fails when the look-ahead passes its bounds.
func findReach(args []string, dir string, piped bool, resolve func(string) (string, bool)) ([]string, error) {
	p := parseFind(args)
	if !p.hasAction && !piped {
		return nil, nil
	}
	var out []string
	walked := 0
	for _, s := range p.starts {
		if strings.ContainsAny(s, "$`") {
			continue // known only at run time
		}
		abs, ok := resolve(inDir(dir, s))
		if !ok {
			continue
		}
		var visit func(absPath, shown string, depth int, under bool) error
		visit = func(absPath, shown string, depth int, under bool) error {
			if walked++; walked > findMaxWalked {
				return fmt.Errorf("%w (more than %d entries to look at under %s)", errFindTooBroad, findMaxWalked, s)
			}
			fi, err := os.Lstat(absPath)
			if err != nil {
				return nil
			}
			e := findEntry{shown: shown, name: path.Base(filepath.ToSlash(shown)), dir: fi.IsDir(), link: fi.Mode()&fs.ModeSymlink != 0, depth: depth}
			if depth == 0 {
				e.name = filepath.Base(absPath)
			}
			hit := under || (p.maxDepth < 0 || depth <= p.maxDepth) && p.reaches(e, piped)
			if hit && fi.Mode().IsRegular() {
				if out = append(out, absPath); len(out) > findMaxReached {
					return fmt.Errorf("%w (more than %d files)", errFindTooBroad, findMaxReached)
				}
			}
			if !e.dir || e.link || (p.maxDepth >= 0 && depth >= p.maxDepth && !hit) {
				return nil
			}
			ents, err := os.ReadDir(absPath)
			if err != nil {
				return nil
			}
			for _, c := range ents {
				if c.Name() == ".git" {
					continue // never part of a checkpoint
				}
				if err := visit(filepath.Join(absPath, c.Name()), shown+"/"+c.Name(), depth+1, hit && e.dir); err != nil {
					return err
				}
			}
			return nil
		}
		if err := visit(abs, strings.TrimSuffix(s, "/"), 0, false); err != nil {
			return out, err
		}
	}
	return out, nil
}
