package pdftools

import (
	"errors"
	"math"
	"strings"
	"unicode"

	"github.com/ledongthuc/pdf"
	"golang.org/x/text/unicode/norm"
)

// Word and line breaks, in ems of the glyphs' size on the page. The word
// gap, the step back and the overprint distance are the ones poppler's
// pdftotext uses, so both find the same words.
const (
	// wordGap is the horizontal gap between two glyphs on one baseline
	// that separates words. Kerning stays under it; the narrowest word
	// spaces justified text gets stay over it.
	wordGap = 0.1
	// lineShift is how far the baseline must move for the next glyph to
	// start a new line rather than a super- or subscript.
	lineShift = 0.5
	// backStep is how far back along the baseline the next glyph may
	// start before it is taken as a new piece of text, not an overlap.
	backStep = 0.2
	// dupNear is how close a repeated glyph must be to the last one to be
	// an overprint (fake bold) and dropped.
	dupNear = 0.1
)

// Bounds of one page's walk: form XObjects may draw one another, so the
// work is bounded by what is done, not by the size of the streams.
const (
	maxFormDepth   = 12
	maxPageOps     = 1 << 21 // content operators interpreted per page
	maxGStateDepth = 1 << 10
	// formCost is what drawing a form costs against maxPageOps beyond
	// its operators: opening and decoding its stream.
	formCost = 1 << 10
)

// errPageBudget stops a page's walk when it has done maxPageOps
// operators; the text found so far is kept.
var errPageBudget = errors.New("page content exceeds the operator budget")

// matrix is a PDF transformation [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n: m applied first, then n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return x*m[0] + y*m[2] + m[4], x*m[1] + y*m[3] + m[5]
}

// textParams are the text state parameters that q and Q save.
type textParams struct {
	font       *pdfFont
	size       float64
	tc, tw, th float64 // character spacing, word spacing, horizontal scale
	tl, rise   float64 // leading, rise
}

// walker turns a page's glyphs into text. It follows the text and
// graphics state closely enough to know where each glyph starts and ends
// on the page, and decides word and line breaks from that geometry alone,
// in the order the producer drew the text.
type walker struct {
	b     strings.Builder
	limit int
	ops   int

	ctm     matrix
	stack   []gstate
	tm, tlm matrix
	textParams

	// fonts are read once per page: keyed by the resource scope (the
	// page, or the path of form names that reached a form) and the name.
	fonts map[string]*pdfFont
	scope string

	// The last glyph shown: its start and end on the page, its writing
	// direction (unit vector), its size and text.
	have     bool
	x0, y0   float64
	x1, y1   float64
	dx, dy   float64
	lastSize float64
	lastText string
	sep      string // separator owed before the next glyph
	depth    int    // nesting of form XObjects
	// box is the visible page (crop box, else media box); glyphs wholly
	// outside it are not shown, and are not text.
	box *[4]float64
}

type gstate struct {
	ctm matrix
	textParams
}

// pageText returns a page's text in the order the producer drew it,
// which is the order producers lay out columns in, with word and line
// breaks where the glyphs' positions put them, compatibility characters
// (ligatures among them) folded by NFKC. Output stops growing past limit
// bytes. cut reports that the page's content ran past the operator
// budget and its text stops where the walk did.
func pageText(p pdf.Page, limit int) (text string, cut bool) {
	w := &walker{limit: limit, ctm: identity, fonts: map[string]*pdfFont{}}
	w.th = 1
	w.box = pageBox(p)
	func() {
		defer func() {
			if r := recover(); r != nil {
				if r != errPageBudget { //nolint:errorlint // sentinel panic value
					panic(r)
				}
				cut = true
			}
		}()
		w.walk(p.V.Key("Contents"), p.Resources())
	}()
	return norm.NFKC.String(strings.ToValidUTF8(w.b.String(), "\uFFFD")), cut
}

// walk interprets one content stream (or array of them) with resources.
func (w *walker) walk(contents, res pdf.Value) {
	fontDicts := res.Key("Font")
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		if w.ops++; w.ops > maxPageOps {
			panic(errPageBudget)
		}
		n := stk.Len()
		var argv [6]pdf.Value
		args := argv[:0]
		if n <= len(argv) {
			args = argv[:n]
		} else {
			args = make([]pdf.Value, n)
		}
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		w.op(op, args, fontDicts, res)
	})
}

func num(v pdf.Value) float64 {
	f := v.Float64()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func toMatrix(args []pdf.Value) matrix {
	var m matrix
	for i := range m {
		m[i] = num(args[i])
	}
	return m
}

func (w *walker) op(op string, args []pdf.Value, fontDicts, res pdf.Value) {
	switch op {
	case "q":
		if len(w.stack) < maxGStateDepth {
			w.stack = append(w.stack, gstate{w.ctm, w.textParams})
		}
	case "Q":
		if n := len(w.stack); n > 0 {
			g := w.stack[n-1]
			w.stack = w.stack[:n-1]
			w.ctm, w.textParams = g.ctm, g.textParams
		}
	case "cm":
		if len(args) == 6 {
			w.ctm = toMatrix(args).mul(w.ctm)
		}
	case "BT":
		w.tm, w.tlm = identity, identity
	case "Tf":
		if len(args) == 2 {
			w.font = w.fontFor(fontDicts, args[0].Name())
			w.size = num(args[1])
		}
	case "Tc":
		if len(args) == 1 {
			w.tc = num(args[0])
		}
	case "Tw":
		if len(args) == 1 {
			w.tw = num(args[0])
		}
	case "Tz":
		if len(args) == 1 {
			w.th = num(args[0]) / 100
		}
	case "TL":
		if len(args) == 1 {
			w.tl = num(args[0])
		}
	case "Ts":
		if len(args) == 1 {
			w.rise = num(args[0])
		}
	case "Td":
		if len(args) == 2 {
			w.nextLine(num(args[0]), num(args[1]))
		}
	case "TD":
		if len(args) == 2 {
			w.tl = -num(args[1])
			w.nextLine(num(args[0]), num(args[1]))
		}
	case "Tm":
		if len(args) == 6 {
			w.tm = toMatrix(args)
			w.tlm = w.tm
		}
	case "T*":
		w.nextLine(0, -w.tl)
	case "'":
		if len(args) == 1 {
			w.nextLine(0, -w.tl)
			w.show(args[0].RawString())
		}
	case "\"":
		if len(args) == 3 {
			w.tw, w.tc = num(args[0]), num(args[1])
			w.nextLine(0, -w.tl)
			w.show(args[2].RawString())
		}
	case "Tj":
		if len(args) == 1 {
			w.show(args[0].RawString())
		}
	case "TJ":
		if len(args) != 1 {
			return
		}
		a := args[0]
		for k := 0; k < a.Len(); k++ {
			switch x := a.Index(k); x.Kind() {
			case pdf.String:
				w.show(x.RawString())
			case pdf.Integer, pdf.Real:
				w.advance(-num(x) / 1000 * w.size * w.th)
			}
		}
	case "Do":
		if len(args) == 1 {
			w.form(args[0].Name(), res)
		}
	}
}

// fontFor returns the font named name in fontDicts, read once per page.
func (w *walker) fontFor(fontDicts pdf.Value, name string) *pdfFont {
	key := w.scope + "\x00" + name
	if f, ok := w.fonts[key]; ok {
		return f
	}
	f := missingFont()
	if v := fontDicts.Key(name); v.Kind() == pdf.Dict {
		f = newFont(v)
	}
	w.fonts[key] = f
	return f
}

// form draws a form XObject: its content with its own resources (or the
// caller's), under its matrix.
func (w *walker) form(name string, res pdf.Value) {
	x := res.Key("XObject").Key(name)
	if x.Kind() != pdf.Stream || x.Key("Subtype").Name() != "Form" || w.depth >= maxFormDepth {
		return
	}
	saved := gstate{w.ctm, w.textParams}
	savedStack := len(w.stack)
	if m := x.Key("Matrix"); m.Len() == 6 {
		var fm matrix
		for i := range fm {
			fm[i] = num(m.Index(i))
		}
		w.ctm = fm.mul(w.ctm)
	}
	if r := x.Key("Resources"); r.Kind() == pdf.Dict {
		res = r
	}
	if w.ops += formCost; w.ops > maxPageOps {
		panic(errPageBudget)
	}
	scope := w.scope
	w.scope += "\x00" + name
	w.depth++
	w.walk(x, res)
	w.depth--
	w.scope = scope
	w.ctm, w.textParams = saved.ctm, saved.textParams
	w.stack = w.stack[:min(savedStack, len(w.stack))]
}

// nextLine moves to the start of the next line, offset by (tx, ty) from
// the start of the current one.
func (w *walker) nextLine(tx, ty float64) {
	w.tlm = matrix{1, 0, 0, 1, tx, ty}.mul(w.tlm)
	w.tm = w.tlm
}

// advance moves the text position tx along the baseline.
func (w *walker) advance(tx float64) {
	w.tm = matrix{1, 0, 0, 1, tx, 0}.mul(w.tm)
}

// show draws a string: each code's glyph is placed, measured and broken
// from the glyph before by the page geometry.
func (w *walker) show(s string) {
	f := w.font
	if f == nil || w.b.Len() > w.limit {
		return
	}
	for len(s) > 0 {
		code, n := f.next(s)
		s = s[n:]
		glyphW := f.width(code) * w.size
		adv := glyphW + w.tc
		if n == 1 && code == 32 {
			adv += w.tw
		}
		// The glyph's extent on the page (text space under Tm × CTM) is its
		// own width: character and word spacing are the gap after it.
		trm := w.tm.mul(w.ctm)
		x0, y0 := trm.apply(0, w.rise)
		x1, y1 := trm.apply(glyphW*w.th, w.rise)
		adv *= w.th
		dx, dy := trm[0], trm[1]
		if l := math.Hypot(dx, dy); l > 0 {
			dx, dy = dx/l, dy/l
		} else {
			dx, dy = 1, 0
		}
		size := math.Abs(w.size) * math.Hypot(trm[2], trm[3])
		w.glyph(f.text(code, n), x0, y0, x1, y1, dx, dy, size)
		w.advance(adv)
	}
}

// pageBox returns a page's visible area as [llx lly urx ury], or nil
// when it has none that makes sense.
func pageBox(p pdf.Page) *[4]float64 {
	for _, b := range []pdf.Value{inherited(p.V, "CropBox"), inherited(p.V, "MediaBox")} {
		if b.Len() != 4 {
			continue
		}
		var r [4]float64
		for i := range r {
			r[i] = num(b.Index(i))
		}
		r[0], r[2] = min(r[0], r[2]), max(r[0], r[2])
		r[1], r[3] = min(r[1], r[3]), max(r[1], r[3])
		if r[2] > r[0] && r[3] > r[1] {
			return &r
		}
	}
	return nil
}

// inherited looks key up in a page and its ancestors (the page list
// refused pages whose chain of parents is longer than maxTreeDepth).
func inherited(page pdf.Value, key string) pdf.Value {
	v := page
	for range maxTreeDepth + 1 {
		if v.IsNull() {
			break
		}
		if r := v.Key(key); !r.IsNull() {
			return r
		}
		v = v.Key("Parent")
	}
	return pdf.Value{}
}

// offPage reports whether a glyph from (x0, y0) to (x1, y1), size high,
// lies wholly outside the visible page.
func (w *walker) offPage(x0, y0, x1, y1, size float64) bool {
	b := w.box
	if b == nil {
		return false
	}
	return max(x0, x1) < b[0] || min(x0, x1) > b[2] || max(y0, y1)+size < b[1] || min(y0, y1) > b[3]
}

// glyph places one glyph's text.
func (w *walker) glyph(text string, x0, y0, x1, y1, dx, dy, size float64) {
	if w.offPage(x0, y0, x1, y1, size) {
		return
	}
	if w.have {
		em := max(size, w.lastSize, 1e-6)
		// Offset from the end of the last glyph, along and across its
		// baseline.
		ox, oy := x0-w.x1, y0-w.y1
		along := ox*w.dx + oy*w.dy
		across := oy*w.dx - ox*w.dy
		// The same glyph drawn again where the last one was is an
		// overprint.
		sx, sy := x0-w.x0, y0-w.y0
		if text == w.lastText && math.Abs(sx*w.dx+sy*w.dy) < dupNear*em && math.Abs(sy*w.dx-sx*w.dy) < dupNear*em {
			return
		}
		turned := dx*w.dx+dy*w.dy < 0.99
		switch {
		case turned || math.Abs(across) > lineShift*em:
			w.sep = "\n"
		case along > wordGap*em || along < -backStep*em:
			if w.sep == "" {
				w.sep = " "
			}
		}
	}
	w.have = true
	w.x0, w.y0, w.x1, w.y1, w.dx, w.dy, w.lastSize, w.lastText = x0, y0, x1, y1, dx, dy, size, text
	if strings.TrimFunc(text, unicode.IsSpace) == "" {
		// A space glyph (or an unmapped one) is a word break only when it
		// is a space; its width is still where the next glyph starts from.
		if text != "" && w.sep == "" {
			w.sep = " "
		}
		return
	}
	if w.b.Len() > 0 {
		w.b.WriteString(w.sep)
	}
	w.sep = ""
	w.b.WriteString(text)
}
