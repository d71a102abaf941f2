package terminal

import (
	"fmt"
	"strings"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// Output keeps what a command printed in bounded memory, however much it
// prints: the first Head lines and the last Tail lines, each cut at
// MaxLine bytes, plus exact counts of everything. Terminal escape
// sequences (CSI colours and cursor moves, OSC titles and hyperlinks,
// VS Code's ]633; shell-integration marks, DCS/APC/PM strings) are removed
// as the bytes stream in, and a carriage return not followed by a newline
// starts the line over, as a terminal shows a progress bar.
//
// Output is an io.Writer; it is not safe for concurrent Writes (exec.Cmd
// serialises writes when Stdout and Stderr are the same writer).
type Output struct {
	head, tail, maxLine int

	headLines [][]byte
	ring      [][]byte // tail ring buffer; ring[next] is the oldest when full
	ringLen   int
	next      int
	lineCuts  map[int]int // bytes cut from kept lines, by line number

	cur      []byte // the line being assembled (≤ maxLine bytes kept)
	curCut   int    // bytes of cur beyond maxLine
	lines    int    // complete lines seen
	bytes    int64  // raw bytes written
	state    escState
	pendCR   bool
	curStart int // line number of cur (1-based)

	onLine func(line []byte) // sees every complete line; must copy it to keep it
}

type escState uint8

const (
	stNormal    escState = iota
	stEsc                // after ESC
	stCSI                // ESC [ … final byte
	stString             // OSC/DCS/APC/PM/SOS body, until BEL or ST
	stStringEsc          // ESC inside a string: ST if followed by '\'
	stCharset            // ESC ( and friends: one more byte
)

// NewOutput returns an Output keeping head first and tail last lines of at
// most maxLine bytes each.
func NewOutput(head, tail, maxLine int) *Output {
	o := &Output{head: head, tail: tail, maxLine: maxLine, lineCuts: map[int]int{}}
	o.ring = make([][]byte, tail)
	return o
}

// Write consumes p; it never fails.
func (o *Output) Write(p []byte) (int, error) {
	o.bytes += int64(len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch o.state {
		case stNormal:
			if o.pendCR {
				o.pendCR = false
				if c != '\n' {
					o.cur, o.curCut = o.cur[:0], 0 // \r: the line starts over
				}
			}
			switch {
			case c == '\n':
				o.endLine()
			case c == '\r':
				o.pendCR = true
			case c == 0x1b:
				o.state = stEsc
			case c >= 0x20 || c == '\t' || c == 0x07:
				// Fast path: copy the run of printable bytes at once.
				j := i + 1
				for j < len(p) && p[j] >= 0x20 && p[j] != 0x7f {
					j++
				}
				o.appendCur(p[i:j])
				i = j - 1
			}
		case stEsc:
			switch c {
			case '[':
				o.state = stCSI
			case ']', 'P', '_', '^', 'X':
				o.state = stString
			case '(', ')', '*', '+', '-', '.', '/', '#', '%', ' ':
				o.state = stCharset
			default:
				o.state = stNormal
			}
		case stCSI:
			if c >= 0x40 && c <= 0x7e {
				o.state = stNormal
			}
		case stString:
			switch c {
			case 0x07:
				o.state = stNormal
			case 0x1b:
				o.state = stStringEsc
			}
		case stStringEsc:
			o.state = stNormal
			if c != '\\' {
				i-- // not ST: the ESC ended the string; reread c
			}
		case stCharset:
			o.state = stNormal
		}
	}
	return len(p), nil
}

func (o *Output) appendCur(b []byte) {
	if room := o.maxLine - len(o.cur); room < len(b) {
		if room > 0 {
			o.cur = append(o.cur, b[:room]...)
		}
		o.curCut += len(b) - max(room, 0)
		return
	}
	o.cur = append(o.cur, b...)
}

func (o *Output) endLine() {
	if o.onLine != nil {
		o.onLine(o.cur)
	}
	o.lines++
	n := o.lines
	if o.curCut > 0 {
		o.lineCuts[n] = o.curCut
	}
	switch {
	case len(o.headLines) < o.head:
		o.headLines = append(o.headLines, append([]byte(nil), o.cur...))
	case o.tail > 0:
		// Reuse the evicted slot's memory: no allocation per line.
		slot := o.ring[o.next]
		if slot != nil {
			delete(o.lineCuts, n-o.tail)
		}
		o.ring[o.next] = append(slot[:0], o.cur...)
		o.next = (o.next + 1) % o.tail
		o.ringLen = min(o.ringLen+1, o.tail)
	default:
		delete(o.lineCuts, n)
	}
	o.cur, o.curCut = o.cur[:0], 0
}

// flush ends a final line that had no newline.
func (o *Output) flush() {
	if len(o.cur) > 0 || o.curCut > 0 {
		o.endLine()
	}
}

// Lines is the number of lines written so far (a final unterminated line
// counts once String or Close has run).
func (o *Output) Lines() int { return o.lines }

// Bytes is the number of raw bytes written.
func (o *Output) Bytes() int64 { return o.bytes }

// Omitted is the number of lines between the head and the tail that are
// not kept.
func (o *Output) Omitted() int { return o.lines - len(o.headLines) - o.ringLen }

// escapeless OSC remnants: a ]633; or ]133; mark whose ESC was lost
// upstream (some terminals' logs), up to its BEL or the end of the line.
var osclessRE = lazyregexp.New(`\](?:633|133|1337|7|0|2);[^\x07]*(?:\x07|$)`)

// String renders the kept lines with a "[N lines truncated]" marker where
// lines were dropped and "[… N bytes cut]" on lines cut short.
func (o *Output) String() string {
	o.flush()
	var b strings.Builder
	line := func(n int, text []byte) {
		s := osclessRE.ReplaceAllString(string(text), "")
		s = strings.ReplaceAll(s, "\x07", "")
		b.WriteString(s)
		if cut := o.lineCuts[n]; cut > 0 {
			fmt.Fprintf(&b, " [… %d bytes cut]", cut)
		}
		b.WriteByte('\n')
	}
	for i, l := range o.headLines {
		line(i+1, l)
	}
	if om := o.Omitted(); om > 0 {
		fmt.Fprintf(&b, "[%d lines truncated]\n", om)
	}
	first := o.lines - o.ringLen + 1
	for k := 0; k < o.ringLen; k++ {
		idx := (o.next - o.ringLen + k + o.tail) % o.tail
		line(first+k, o.ring[idx])
	}
	return strings.TrimSuffix(b.String(), "\n")
}
