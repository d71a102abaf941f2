package safety

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word after the expansions bash performs before running
// a command and that can be done statically: quote removal, backslash
// escapes, $'…' decoding, brace expansion, and $HOME (shown as "~").
type word struct {
	s string
	// dynamic: part of the value comes from a parameter, command
	// substitution or arithmetic; s then holds the source text.
	dynamic bool
	// mayVanish: the whole word is an unquoted expansion that may expand to
	// nothing, so the next word may be the real command name.
	mayVanish bool
	ansiC     bool // contains $'…'
	extGlob   bool // contains @(…), *(…), +(…), ?(…) or !(…)
	glob      bool // contains an unquoted glob metacharacter
	quoted    bool // some part was quoted
	// fetched: a command or process substitution in the word runs a
	// network fetch or decoder, so its text is downloaded content.
	fetched bool
	// param names the variable when the word is exactly $name, ${name}
	// or either in double quotes.
	param string
	// fallback is the literal a word that is exactly ${x:-word}, ${x=word},
	// ${x:+word} or a spelling of those becomes when the operator picks
	// its word: one of the values the word can take at run time.
	fallback string
	// pipe: the word is exactly <(…) or >(…), a pipe to commands that are
	// analysed, not a file.
	pipe bool
	// files: the dynamic word is one of these workspace paths or patterns
	// (a loop over them, a git or find listing; see runtimeFiles).
	files []string
	// payload is the value of a dynamic word that is a literal echo or
	// printf substituted ($(printf 'x')), when printed reconstructs it.
	payload string
	printed bool
	// parts are a dynamic word's parts, and joined the words a dynamic
	// word was joined from (see joinWords): what worstOf reads to find
	// the text it expands to at worst, only when that is needed.
	parts  []syntax.WordPart
	joined []word
}

// maxBraceFields bounds brace expansion: `{1..99999999}` must not allocate
// a field per number. A word that would expand to more fields is treated
// as unanalysable rather than skipped.
const maxBraceFields = 256

// fields expands w into the words bash would pass to a command. It also
// scans w for nested commands and unanalysable constructs.
func (a *analyzer) fields(w *syntax.Word) []word {
	return a.appendFields(nil, w)
}

// appendFields is fields appending to dst.
func (a *analyzer) appendFields(dst []word, w *syntax.Word) []word {
	a.scanWord(w)
	// SplitBraces rewrites the word it is given, and the rewritten nodes
	// (BraceExp) neither map to positions nor can be walked, while the
	// tree is walked again later (printedWords, worst readings): it gets
	// a copy, so the tree keeps the parser's nodes.
	text := a.src(w)
	if !hasBraceLit(w) {
		return append(dst, a.join(w.Parts, text))
	}
	if cp := (&syntax.Word{Parts: slices.Clone(w.Parts)}); syntax.SplitBraces(cp) {
		alts, ok := braceAlternatives(cp.Parts, 0)
		if !ok {
			a.unanalyzable(-1, "brace expansion of "+short(text)+" produces too many words")
			return append(dst, word{s: short(text), dynamic: true})
		}
		for _, parts := range alts {
			dst = append(dst, a.join(parts, text))
		}
		return dst
	}
	return append(dst, a.join(w.Parts, text))
}

func hasBraceLit(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// braceAlternatives expands the BraceExp nodes in parts into the cross
// product of part lists, failing when it would exceed maxBraceFields.
func braceAlternatives(parts []syntax.WordPart, depth int) ([][]syntax.WordPart, bool) {
	if depth > 32 {
		return nil, false
	}
	out := [][]syntax.WordPart{nil}
	for _, p := range parts {
		be, ok := p.(*syntax.BraceExp)
		if !ok {
			for i := range out {
				out[i] = append(out[i], p)
			}
			continue
		}
		var elems [][]syntax.WordPart
		if be.Sequence {
			seq, ok := braceSequence(be)
			if !ok {
				return nil, false
			}
			elems = seq
		} else {
			for _, e := range be.Elems {
				sub, ok := braceAlternatives(e.Parts, depth+1)
				if !ok {
					return nil, false
				}
				elems = append(elems, sub...)
			}
		}
		if len(out)*len(elems) > maxBraceFields {
			return nil, false
		}
		next := make([][]syntax.WordPart, 0, len(out)*len(elems))
		for _, prefix := range out {
			for _, e := range elems {
				alt := append(append([]syntax.WordPart(nil), prefix...), e...)
				next = append(next, alt)
			}
		}
		out = next
	}
	return out, true
}

// braceSequence expands {x..y[..incr]} with the mvdan expander, after
// checking that the range is small.
func braceSequence(be *syntax.BraceExp) ([][]syntax.WordPart, bool) {
	lo, hi := be.Elems[0].Lit(), be.Elems[1].Lit()
	if n, ok := seqLen(lo, hi); !ok || n > maxBraceFields {
		return nil, false
	}
	words := expand.Braces(&syntax.Word{Parts: []syntax.WordPart{be}})
	out := make([][]syntax.WordPart, 0, len(words))
	for _, w := range words {
		out = append(out, w.Parts)
	}
	return out, true
}

// seqLen estimates how many values a brace sequence yields.
func seqLen(lo, hi string) (int, bool) {
	a, errA := atoiSmall(lo)
	b, errB := atoiSmall(hi)
	if errA && errB {
		if len(lo) == 1 && len(hi) == 1 {
			return abs(int(hi[0])-int(lo[0])) + 1, true
		}
		return 0, false
	}
	if errA || errB {
		return 0, false
	}
	return abs(b-a) + 1, true
}

// atoiSmall parses a short decimal; bad reports failure.
func atoiSmall(s string) (n int, bad bool) {
	s = strings.TrimPrefix(s, "-")
	if s == "" || len(s) > 9 {
		return 0, true
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, true
		}
		n = n*10 + int(r-'0')
	}
	return n, false
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// join performs quote removal over parts; text is the word's source,
// shown for values known only at run time.
func (a *analyzer) join(parts []syntax.WordPart, text string) word {
	var w word
	if len(parts) == 1 {
		// Fast path, most words: one plain literal needs no copy.
		if l, ok := parts[0].(*syntax.Lit); ok && !strings.ContainsAny(l.Value, "\\~*?[") {
			w.s = l.Value
			return w
		}
	}
	var b strings.Builder
	for i, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				// Tilde expansion; `~user` keeps its name.
				v = "~" + v[1:]
			}
			unescapeUnquoted(&b, v, &w)
		case *syntax.SglQuoted:
			w.quoted = true
			if p.Dollar {
				w.ansiC = true
				s, _, _ := expand.Format(nil, p.Value, nil)
				s, _, _ = strings.Cut(s, "\x00")
				b.WriteString(s)
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			w.quoted = true
			for _, q := range p.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
					unescapeDouble(&b, q.Value)
				case *syntax.ParamExp:
					if isHome(q) {
						b.WriteString("~")
					} else {
						w.dynamic = true
						if len(parts) == 1 && len(p.Parts) == 1 {
							w.fallback = a.fallback(q)
							if q.Param != nil && simpleParam(q) {
								w.param = q.Param.Value // "$x"
							}
						}
					}
				default:
					w.dynamic = true
					w.fetched = w.fetched || a.fetched[q]
				}
			}
		case *syntax.ParamExp:
			if isHome(p) {
				b.WriteString("~")
				continue
			}
			w.dynamic = true
			if len(parts) == 1 {
				w.mayVanish = true
				if p.Param != nil && (p.Short || simpleParam(p)) {
					w.param = p.Param.Value
				}
				w.fallback = a.fallback(p)
			}
		case *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst:
			w.dynamic = true
			if _, ok := p.(*syntax.ProcSubst); ok && len(parts) == 1 {
				w.pipe = true
			}
			w.fetched = w.fetched || a.fetched[p]
			if _, ok := p.(*syntax.CmdSubst); ok && len(parts) == 1 {
				w.mayVanish = true
			}
		case *syntax.ExtGlob:
			w.glob, w.extGlob = true, true
			b.WriteString(p.Op.String() + p.Pattern.Value + ")")
		default:
			w.dynamic = true
		}
	}
	if w.dynamic {
		w.s = short(text)
		w.files = a.runtimeFiles(parts)
		w.payload, w.printed = substitutedText(parts)
		w.parts = parts
	} else {
		w.s = b.String()
	}
	return w
}

// fallback returns the word ${x:-word} and its siblings expand to when
// the operator chooses the word rather than x, if that word is known
// (literally or as the fallback of a nested expansion), or "".
func (a *analyzer) fallback(p *syntax.ParamExp) string {
	if p.Exp == nil || p.Exp.Word == nil || p.Excl || p.Length || p.Index != nil || p.Slice != nil || p.Repl != nil {
		return ""
	}
	switch p.Exp.Op {
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull, syntax.DefaultUnset, syntax.DefaultUnsetOrNull,
		syntax.AssignUnset, syntax.AssignUnsetOrNull:
	default:
		return ""
	}
	w := a.join(p.Exp.Word.Parts, a.src(p.Exp.Word))
	if w.dynamic {
		return w.fallback
	}
	return w.s
}

func simpleParam(p *syntax.ParamExp) bool {
	return p.Param != nil && !p.Excl && !p.Length && p.Index == nil && p.Slice == nil &&
		p.Repl == nil && p.Exp == nil && p.NestedParam == nil && p.Names == 0
}

// isHome reports a plain $HOME or ${HOME}.
func isHome(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Param.Value == "HOME" && !p.Excl && !p.Length &&
		p.Index == nil && p.Slice == nil && p.Repl == nil && p.Exp == nil && p.NestedParam == nil
}

// unescapeUnquoted removes backslashes as bash does outside quotes and
// notes unquoted glob characters.
func unescapeUnquoted(b *strings.Builder, v string, w *word) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch c {
		case '\\':
			if i+1 < len(v) {
				i++
				if v[i] != '\n' {
					b.WriteByte(v[i])
				}
			}
			continue
		case '*', '?':
			w.glob = true
		case '[':
			w.glob = w.glob || strings.IndexByte(v[i+1:], ']') >= 0
		}
		b.WriteByte(c)
	}
}

// unescapeDouble removes the backslashes bash removes inside "…".
func unescapeDouble(b *strings.Builder, v string) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			switch v[i+1] {
			case '$', '`', '"', '\\':
				i++
				b.WriteByte(v[i])
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
}

// literal reports the static value of w when it has one.
func (a *analyzer) literal(w *syntax.Word) (string, bool) {
	f := a.fields(w)
	if len(f) != 1 || f[0].dynamic {
		return "", false
	}
	return f[0].s, true
}

// literalFields splits a value known to the analysis into words as an
// unquoted expansion of it would be split.
func literalFields(v string) []word {
	var out []word
	for _, f := range strings.Fields(v) {
		out = append(out, word{s: f})
	}
	return out
}
