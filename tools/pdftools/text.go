package pdftools

import (
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// Word-break thresholds, in ems of the current font size.
const (
	// kernSpace is the TJ adjustment (thousandths of an em, negative moves
	// right) taken as a word space: pdfTeX writes no space glyphs and moves
	// the pen by about a third of an em instead, while kerning stays well
	// under a quarter.
	kernSpace = -250
	// gapSpace is the horizontal gap a Td move must leave after the text
	// already shown to count as a word space (Ghostscript and groff split
	// words into kerned pieces joined by Td moves).
	gapSpace = 0.15
)

// textState follows the text cursor of one page closely enough to tell a
// word gap from kerning: the pen's x position, in text space units,
// advanced by each glyph's width when the font has widths.
type textState struct {
	b        strings.Builder
	limit    int
	enc      pdf.TextEncoding
	font     *pdf.Font
	size     float64 // Tf size
	tc, tw   float64 // character and word spacing
	lineX    float64 // x of the current text line's start
	penX     float64 // x after the last glyph shown
	widthsOK bool    // penX is trustworthy: the font has widths
	y        float64 // last Tm y, to tell a new line from a same-line jump
	sep      string  // separator owed before the next text
}

func (s *textState) show(raw string) {
	if s.b.Len() > s.limit {
		return
	}
	t := raw
	if s.enc != nil {
		t = s.enc.Decode(raw)
	}
	if s.size > 0 && s.tc > gapSpace*s.size && utf8.RuneCountInString(t) == len(raw) {
		// Character spacing this wide is a word gap (Ghostscript justifies
		// lines by spacing "e n" as one string), not letter-spacing noise.
		t = strings.Join(strings.Split(t, ""), " ")
	}
	if t != "" {
		if s.b.Len() > 0 {
			s.b.WriteString(s.sep)
		}
		s.sep = ""
		s.b.WriteString(t)
	}
	if !s.widthsOK {
		return
	}
	for i := 0; i < len(raw); i++ {
		c := int(raw[i])
		w := s.font.Width(c)
		if w == 0 && c != 32 {
			s.widthsOK = false
			return
		}
		s.penX += w/1000*s.size + s.tc
		if c == 32 {
			s.penX += s.tw
		}
	}
}

// moveTo starts a line at x on the same baseline (dy == 0) or a new one.
func (s *textState) move(dx, dy float64) {
	s.lineX += dx
	switch {
	case dy != 0:
		s.sep = "\n"
	case s.sep == "" && s.widthsOK && s.lineX-s.penX > gapSpace*s.size:
		s.sep = " "
	}
	s.penX = s.lineX
}

// pageText returns a page's text in content-stream order, which is the
// order producers lay out columns in. The pdf package's own GetPlainText
// joins consecutive lines with nothing between them ("uniformvictor") and
// drops the word gaps producers write as cursor moves; this walker keeps
// both. Output stops growing past limit bytes.
func pageText(p pdf.Page, limit int) string {
	fonts := map[string]*pdf.Font{}
	encoders := map[string]pdf.TextEncoding{}
	for _, name := range p.Fonts() {
		f := p.Font(name)
		fonts[name] = &f
		encoders[name] = f.Encoder()
	}
	s := &textState{limit: limit}
	pdf.Interpret(p.V.Key("Contents"), func(stk *pdf.Stack, op string) {
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "Tf":
			if len(args) == 2 {
				name := args[0].Name()
				s.enc, s.font, s.size = encoders[name], fonts[name], args[1].Float64()
				s.widthsOK = s.font != nil
			}
		case "Tc":
			if len(args) == 1 {
				s.tc = args[0].Float64()
			}
		case "Tw":
			if len(args) == 1 {
				s.tw = args[0].Float64()
			}
		case "Td", "TD":
			if len(args) == 2 {
				s.move(args[0].Float64(), args[1].Float64())
			}
		case "Tm":
			if len(args) == 6 {
				if ny := args[5].Float64(); ny != s.y {
					s.sep, s.y = "\n", ny
				} else if s.sep == "" {
					s.sep = " "
				}
				s.lineX, s.penX = 0, 0
				s.widthsOK = s.font != nil
			}
		case "T*":
			s.move(0, -1)
		case "'", "\"":
			if len(args) > 0 {
				s.move(0, -1)
				s.show(args[len(args)-1].RawString())
			}
		case "Tj":
			if len(args) == 1 {
				s.show(args[0].RawString())
			}
		case "TJ":
			if len(args) != 1 {
				return
			}
			for k := 0; k < args[0].Len(); k++ {
				switch x := args[0].Index(k); x.Kind() {
				case pdf.String:
					s.show(x.RawString())
				case pdf.Integer, pdf.Real:
					adj := x.Float64()
					s.penX -= adj / 1000 * s.size
					if adj < kernSpace && s.sep == "" {
						s.sep = " "
					}
				}
			}
		}
	})
	return strings.ToValidUTF8(s.b.String(), "\uFFFD")
}
