package toolcall

// jsonMachine is a resumable, byte-driven JSON validator. It is the one
// place in the package that knows where JSON strings begin and end, so a
// '}' or "</tool_call>" inside a string can never end a call.
//
// It validates a single JSON value starting at an absolute offset of the
// stream buffer and can be fed more bytes at any time: run picks up exactly
// where the previous call stopped, so streaming costs one pass over the
// input whatever the chunking. While it runs it records the members of
// shallow containers (key span, value span, kind), which lets the call
// builder read names and arguments without decoding the value again.
//
// Invariant: every decision depends only on bytes already seen, never on
// how they were split, so the machine's state after run is the same for
// any chunking of the same bytes.
type jsonMachine struct {
	state  jstate
	stack  []byte // open containers: '{' or '['
	start  int    // absolute offset of the value's first byte
	end    int    // absolute offset just past the value once state==jDone
	inKey  bool   // the current string is an object key
	uni    int8   // hex digits still expected in a \u escape
	lit    string // literal being matched (true, false, null)
	litPos int
	numAt  int // start of the number being scanned

	rawCtl    bool // a raw control character appeared inside a string
	lastComma bool // the last significant byte was ','
	// slipped: the value holds unambiguous slips (a trailing comma before
	// a closing bracket, Python's True, False or None) that fixSlips
	// turns into valid JSON.
	slipped bool

	errPos int
	errMsg string

	// Per-depth bookkeeping for member recording (depth < maxDepth).
	keyStart, keyEnd [maxDepth]int
	valStart         [maxDepth]int
	contStart        [maxDepth]int
	members          []member

	quote, backslash byteFinder // string scanning, see byteFinder
}

// maxDepth bounds the depths whose members are recorded. A call needs at
// most: array of calls (1) → call object (2) → function/arguments (3) →
// argument members (4).
const maxDepth = 5

type jstate uint8

const (
	jValue      jstate = iota // a value must follow (root, after ':' or after ',' in an array)
	jValueOrEnd               // after '[': a value or ']'
	jKeyOrEnd                 // after '{': a key or '}'
	jKey                      // after ',' in an object: a key
	jColon                    // after a key
	jCommaOrEnd               // after a complete value inside a container
	jString
	jEscape
	jUnicode
	jNumber
	jLiteral
	jDone
	jError
)

// member is one completed member of a container at depth ≤ maxDepth-1.
// For array elements keyStart is -1.
type member struct {
	depth            int // 1 = member of the root container
	parent           int // absolute start offset of the containing container
	keyStart, keyEnd int // key bytes between the quotes (raw, may hold escapes)
	valStart, valEnd int
	parentKeyStart   int // key of the containing container (depth ≥ 2), -1 if none
	parentKeyEnd     int
	kind             byte // '{', '[', '"', '0' (number), 't', 'f', 'n'
}

func (m *jsonMachine) reset(start int) {
	m.state = jValue
	m.stack = m.stack[:0]
	m.start = start
	m.end = 0
	m.inKey = false
	m.rawCtl = false
	m.lastComma = false
	m.slipped = false
	m.errPos = 0
	m.errMsg = ""
	m.members = m.members[:0]
	// The finders are kept: they describe the buffer, not this value.
}

func (m *jsonMachine) done() bool   { return m.state == jDone }
func (m *jsonMachine) failed() bool { return m.state == jError }

func (m *jsonMachine) fail(at int, msg string) int {
	m.state = jError
	m.errPos = at
	m.errMsg = msg
	return at
}

// beginValue records where a value at the current depth starts.
func (m *jsonMachine) beginValue(at int) {
	if d := len(m.stack); d < maxDepth {
		m.valStart[d] = at
	}
}

// endValue is called when a value that began at the current depth ends
// just before offset at. It records the member and moves the state on.
func (m *jsonMachine) endValue(at int, kind byte) {
	m.lastComma = false
	d := len(m.stack)
	if d == 0 {
		m.state = jDone
		m.end = at
		return
	}
	if d < maxDepth {
		mb := member{
			depth:          d,
			parent:         m.contStart[d-1],
			keyStart:       -1,
			keyEnd:         -1,
			valStart:       m.valStart[d],
			valEnd:         at,
			parentKeyStart: -1,
			parentKeyEnd:   -1,
			kind:           kind,
		}
		if m.stack[d-1] == '{' {
			mb.keyStart, mb.keyEnd = m.keyStart[d], m.keyEnd[d]
		}
		if d >= 2 && m.stack[d-2] == '{' {
			mb.parentKeyStart, mb.parentKeyEnd = m.keyStart[d-1], m.keyEnd[d-1]
		}
		m.members = append(m.members, mb)
	}
	m.state = jCommaOrEnd
}

func (m *jsonMachine) push(c byte, at int) {
	if d := len(m.stack); d < maxDepth {
		m.contStart[d] = at
	}
	m.stack = append(m.stack, c)
}

// run consumes b[i:] until the value is complete, an error is found or the
// bytes run out, and returns the offset of the first unconsumed byte.
func (m *jsonMachine) run(b []byte, i int) int {
	for i < len(b) {
		switch m.state {
		case jDone, jError:
			return i
		case jString:
			i = m.scanString(b, i)
			continue
		case jEscape:
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				m.state = jString
			case 'u':
				m.state = jUnicode
				m.uni = 4
			default:
				return m.fail(i, "invalid escape sequence in string")
			}
			i++
			continue
		case jUnicode:
			if !isHex(b[i]) {
				return m.fail(i, "invalid \\u escape in string")
			}
			m.uni--
			if m.uni == 0 {
				m.state = jString
			}
			i++
			continue
		case jNumber:
			c := b[i]
			if isNumByte(c) {
				i++
				continue
			}
			if !validNumber(b[m.numAt:i]) {
				return m.fail(m.numAt, "invalid number")
			}
			m.endValue(i, '0')
			continue // re-examine c in the new state
		case jLiteral:
			if b[i] != m.lit[m.litPos] {
				return m.fail(i, "invalid literal (expected "+m.lit+")")
			}
			m.litPos++
			i++
			if m.litPos == len(m.lit) {
				m.endValue(i, m.lit[0]|0x20) // the kind of True is 't'
			}
			continue
		}

		c := b[i]
		if c == ' ' || c == '\n' || c == '\r' || c == '\t' {
			i++
			continue
		}
		switch m.state {
		case jValue, jValueOrEnd:
			if c == ']' && (m.state == jValueOrEnd || m.lastComma) {
				m.slipped = m.slipped || m.state == jValue // [1, 2,]
				m.stack = m.stack[:len(m.stack)-1]
				m.endValue(i+1, '[')
				i++
				continue
			}
			if !m.startValue(b, i, c) {
				return m.fail(i, "unexpected "+quoteByte(c)+", expected a JSON value")
			}
			i++
		case jKeyOrEnd, jKey:
			if c == '}' && (m.state == jKeyOrEnd || m.lastComma) {
				m.slipped = m.slipped || m.state == jKey // {"a": 1,}
				m.stack = m.stack[:len(m.stack)-1]
				m.endValue(i+1, '{')
				i++
				continue
			}
			if c != '"' {
				return m.fail(i, "unexpected "+quoteByte(c)+", expected a quoted object key")
			}
			if d := len(m.stack); d < maxDepth {
				m.keyStart[d] = i + 1
			}
			m.inKey = true
			m.state = jString
			m.lastComma = false
			i++
		case jColon:
			if c != ':' {
				return m.fail(i, "unexpected "+quoteByte(c)+", expected ':' after object key")
			}
			m.state = jValue
			i++
		case jCommaOrEnd:
			top := m.stack[len(m.stack)-1]
			switch {
			case c == ',':
				m.lastComma = true
				if top == '{' {
					m.state = jKey
				} else {
					m.state = jValue
				}
			case c == '}' && top == '{', c == ']' && top == '[':
				m.stack = m.stack[:len(m.stack)-1]
				m.endValue(i+1, top)
			default:
				want := "'}'"
				if top == '[' {
					want = "']'"
				}
				return m.fail(i, "unexpected "+quoteByte(c)+", expected ',' or "+want)
			}
			i++
		}
	}
	return i
}

// startValue begins the value whose first byte is c at offset i.
func (m *jsonMachine) startValue(b []byte, i int, c byte) bool {
	m.beginValue(i)
	m.lastComma = false
	switch {
	case c == '{':
		m.push('{', i)
		m.state = jKeyOrEnd
	case c == '[':
		m.push('[', i)
		m.state = jValueOrEnd
	case c == '"':
		m.inKey = false
		m.state = jString
	case c == '-' || (c >= '0' && c <= '9'):
		m.numAt = i
		m.state = jNumber
	case c == 't':
		m.lit, m.litPos, m.state = "true", 1, jLiteral
	case c == 'f':
		m.lit, m.litPos, m.state = "false", 1, jLiteral
	case c == 'n':
		m.lit, m.litPos, m.state = "null", 1, jLiteral
	case c == 'T', c == 'F', c == 'N':
		// Python's literals, as models write them when they think in
		// Python: unambiguous, and fixSlips writes their JSON spelling
		// (each has the same length).
		m.lit, m.litPos, m.state = pyLiterals[c], 1, jLiteral
		m.slipped = true
	default:
		return false
	}
	return true
}

// atEOF settles the machine when the input has ended. A number that runs
// to the very end is complete only now. It reports whether the value is
// complete.
func (m *jsonMachine) atEOF(b []byte) bool {
	if m.state == jNumber && len(m.stack) == 0 && validNumber(b[m.numAt:]) {
		m.endValue(len(b), '0')
	}
	return m.state == jDone
}

// scanString consumes string bytes from b[i] and returns the new offset.
// It stops after the closing quote (the state then moves on), at the end
// of b, or inside an escape it cannot finish yet.
//
// Strings hold most of a call's bytes, so this loop decides throughput.
// Escape-dense text (code, where \n and \" come every few bytes) is
// searched a word at a time (SWAR) and simple escapes are skipped in
// place; long plain runs go to the vectorised finders, which remember
// their hits so nothing is searched twice.
func (m *jsonMachine) scanString(b []byte, i int) int {
	for {
		var end int
		w := min(len(b), i+64)
		if k := indexStringSpecial(b[i:w]); k >= 0 {
			end = i + k
		} else if w == len(b) {
			return len(b)
		} else {
			end = len(b)
			if q := m.quote.next(b, w, '"'); q >= 0 {
				end = q
			}
			if e := m.backslash.next(b, w, '\\'); e >= 0 && e < end {
				end = e
			}
			if k := indexControl(b[w:end]); k >= 0 {
				end = w + k
			}
			if end == len(b) {
				return len(b)
			}
		}
		i = end
		switch c := b[i]; {
		case c == '"':
			if m.inKey {
				if d := len(m.stack); d < maxDepth {
					m.keyEnd[d] = i
				}
				m.inKey = false
				m.state = jColon
			} else {
				m.endValue(i+1, '"')
			}
			return i + 1
		case c == '\\':
			if i+1 == len(b) {
				m.state = jEscape
				return i + 1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2 // a simple escape: stay in the string
			default: // \u and invalid escapes take the slow path
				m.state = jEscape
				return i + 1
			}
		default: // raw control character: tolerated, repaired later
			m.rawCtl = true
			i++
		}
		if i >= len(b) {
			return i
		}
	}
}
