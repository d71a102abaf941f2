package toolcall

import "fmt"

// A block is call markup recognised by an explicit opener: a tag,
// [TOOL_CALLS], <|python_tag|>, >>>name, or a yips fence. Its content is a
// sequence of JSON items; it ends at its close tag, or where something
// other than an item follows, or at the end of input (a missing close tag
// at the very end is accepted).

type block struct {
	seq    int
	start  int // span start (the fence when a fence wraps the tag)
	format Format
	open   *opener // tag blocks
	name   string  // tool name given by the markup (<function=x>, name[ARGS], >>>x)
	yips   string
	fenced bool // a call-capable fence opened before the tag

	state    bstate
	jm       jsonMachine
	itemName string // name from a <function=x> inside a wrapper
	fnClose  bool   // a </function> may follow the current item
	items    int
	calls    []Call
	repaired bool
	envText  string
	warnings []Warning
	pathSent int // members already checked for progress events
	nameSent bool
	id       string // [CALL_ID] of a Mistral call
}

type bstate uint8

const (
	bItems      bstate = iota // between items
	bValue                    // inside an item's JSON
	bMistral                  // after [TOOL_CALLS]: a JSON value or name[ARGS]
	bFenceClose               // after the close tag of a fenced block
)

func (s *Stream) startBlock(p int, r rec) {
	s.flushText(p)
	s.blk = block{
		seq:    s.blocks,
		start:  p,
		format: r.format,
		open:   r.open,
		name:   r.name,
		yips:   r.yips,
		fenced: r.fenced,
		calls:  s.blk.calls[:0],
	}
	s.blk.jm.stack = s.blk.jm.stack[:0]
	s.blk.jm.members = s.blk.jm.members[:0]
	s.blocks++
	if r.format == FormatMistral {
		s.blk.state = bMistral
	}
	s.events = append(s.events, Event{Kind: EventCallStart, Block: s.blk.seq, Format: r.format, Name: r.name})
	if r.name != "" {
		s.blk.nameSent = true
	}
	s.pos = r.end
	s.mode = mBlock
}

// closeTag returns the tag that ends the current block, if any.
func (k *block) closeTag() string {
	switch {
	case k.open != nil:
		return k.open.close
	case k.format == FormatFunctionTag:
		return functionClose
	}
	return ""
}

// singleItem reports block kinds that hold exactly one JSON item.
func (k *block) singleItem() bool {
	return k.name != "" || k.format == FormatMistral || k.format == FormatYips || k.format == FormatFunctionary
}

func (s *Stream) blockStep() bool {
	k := &s.blk
	b := s.buf
	for {
		switch k.state {
		case bMistral:
			return s.mistralPrefix()
		case bValue:
			s.pos = k.jm.run(b, s.pos)
			s.progress()
			if k.jm.failed() {
				s.failBlock(k.jm.errPos, ErrInvalidJSON, "invalid JSON: "+k.jm.errMsg+fmt.Sprintf(" at byte %d", k.jm.errPos-k.jm.start))
				return true
			}
			if !k.jm.done() && s.pos == len(b) {
				if !s.eof {
					return false
				}
				if !k.jm.atEOF(b) {
					s.truncatedItem()
					return true
				}
			}
			if k.jm.done() {
				if !s.finishItem(b[k.jm.start:k.jm.end], k.jm.members, k.jm.start, k.jm.rawCtl, false) {
					return true
				}
				k.state = bItems
			}
		case bItems:
			more, done := s.blockItems()
			if done || !more {
				return done
			}
		case bFenceClose:
			return s.fenceClose()
		}
	}
}

// blockItems handles the gap between items. It returns more=false when
// it needs input, done=true when the block ended.
func (s *Stream) blockItems() (more, done bool) {
	k := &s.blk
	b := s.buf
	i := s.pos
	for i < len(b) && (isSpace(b[i]) || (k.items > 0 && (b[i] == ',' || b[i] == ';'))) {
		i++
	}
	if i == len(b) {
		if !s.eof {
			return false, false
		}
		s.endBlock(i)
		return false, true
	}
	if k.fnClose {
		full, partial := hasPrefixOrPartial(b[i:], functionClose)
		if partial && !s.eof {
			s.pos = i
			return false, false
		}
		k.fnClose = false
		if full {
			s.pos = i + len(functionClose)
			return true, false
		}
	}
	if ct := k.closeTag(); ct != "" {
		full, partial := hasPrefixOrPartial(b[i:], ct)
		if full {
			s.pos = i + len(ct)
			if k.items == 0 {
				s.failBlock(s.pos, ErrNotACall, "empty "+k.describe()+" block: put a JSON object with the tool name and arguments inside")
				return false, true
			}
			if k.fenced {
				k.state = bFenceClose
				return true, false
			}
			s.endBlock(s.pos)
			return false, true
		}
		if partial && !s.eof {
			s.pos = i
			return false, false
		}
	}
	if k.format == FormatPythonTag {
		for _, e := range llamaEnds {
			full, partial := hasPrefixOrPartial(b[i:], e)
			if full {
				s.endBlock(i + len(e))
				return false, true
			}
			if partial && !s.eof {
				s.pos = i
				return false, false
			}
		}
	}
	if k.format == FormatYips && k.items > 0 {
		end, ok, need := isFenceClose(b, i, s.eof)
		if need {
			s.pos = i
			return false, false
		}
		if ok {
			s.endBlock(end)
			return false, true
		}
		s.failBlock(i, ErrInvalidJSON, "unexpected text after the envelope's JSON object; close the fence with ``` right after it")
		return false, true
	}
	c := b[i]
	canTake := k.items == 0 || !k.singleItem()
	if canTake && (c == '{' || (c == '[' && k.name == "" && k.itemName == "")) {
		if k.format == FormatYips && c != '{' {
			s.failBlock(i, ErrInvalidJSON, "the envelope must be a JSON object")
			return false, true
		}
		k.jm.reset(i)
		k.state = bValue
		s.pos = i
		return true, false
	}
	if canTake && k.open != nil && k.open.wrap && k.itemName == "" {
		r := recognizeFunctionTag(b, i, s.eof)
		if r.v == vNeed {
			s.pos = i
			return false, false
		}
		if r.v == vBlock {
			k.itemName = r.name
			k.fnClose = false
			s.pos = r.end
			s.events = append(s.events, Event{Kind: EventCallName, Block: k.seq, Format: k.format, Name: r.name})
			return true, false
		}
	}
	if k.items > 0 {
		s.endBlock(i) // the close tag is missing; prose follows
		return false, true
	}
	s.failBlock(i, ErrInvalidJSON, fmt.Sprintf("expected a JSON object after %s, found %s", k.describe(), quoteByte(c)))
	return false, true
}

func (k *block) describe() string {
	switch {
	case k.open != nil:
		return k.open.tag
	case k.format == FormatFunctionTag:
		return "<function=" + k.name + ">"
	case k.format == FormatMistral:
		return mistralTag
	case k.format == FormatPythonTag:
		return pythonTag
	case k.format == FormatFunctionary:
		return ">>>" + k.name
	case k.format == FormatYips:
		return "```" + k.yips
	}
	return k.format.String()
}

// mistralPrefix reads what follows [TOOL_CALLS]: JSON, or name[ARGS]
// (optionally name[CALL_ID]id[ARGS]).
func (s *Stream) mistralPrefix() bool {
	k := &s.blk
	b := s.buf
	i := skipSpace(b, s.pos)
	if i == len(b) {
		if !s.eof {
			return false
		}
		s.failBlock(i, ErrTruncated, "output ended right after "+mistralTag)
		return true
	}
	if b[i] == '{' || b[i] == '[' {
		k.state = bItems
		s.pos = i
		return true
	}
	j := i
	for j < len(b) && j-i < maxNameLen && isNameByte(b[j]) {
		j++
	}
	if j == len(b) && !s.eof && j-i < maxNameLen {
		return false
	}
	if j == i {
		s.failBlock(i, ErrInvalidJSON, "expected a JSON array of calls or name[ARGS]{…} after "+mistralTag)
		return true
	}
	name := string(b[i:j])
	id := ""
	if full, partial := hasPrefixOrPartial(b[j:], mistralCallID); partial && !s.eof {
		return false
	} else if full {
		e := j + len(mistralCallID)
		for e < len(b) && b[e] != '[' && e-j < maxNameLen {
			e++
		}
		if e == len(b) && !s.eof {
			return false
		}
		id = string(b[j+len(mistralCallID) : e])
		j = e
	}
	full, partial := hasPrefixOrPartial(b[j:], mistralArgs)
	if partial && !s.eof {
		return false
	}
	if !full {
		s.failBlock(j, ErrInvalidJSON, "expected [ARGS] after the tool name "+name)
		return true
	}
	k.name = name
	k.itemName = ""
	k.state = bItems
	s.pos = j + len(mistralArgs)
	k.id = id
	s.events = append(s.events, Event{Kind: EventCallName, Block: k.seq, Format: k.format, Name: name})
	k.nameSent = true
	return true
}

// finishItem turns a complete JSON item into calls. It returns false when
// the block failed.
// Member offsets are relative to base; v starts at base.
func (s *Stream) finishItem(v []byte, members []member, base int, rawCtl, repaired bool) bool {
	k := &s.blk
	k.items++
	k.repaired = k.repaired || repaired || rawCtl
	if k.format == FormatYips {
		return s.finishEnvelope(v, rawCtl)
	}
	name := k.name
	if k.itemName != "" {
		name = k.itemName
		k.itemName = ""
		k.fnClose = true
	}
	var shapes []shape
	switch {
	case name != "":
		if v[0] != '{' {
			return s.failItem(ErrBadArguments, "the arguments must be a JSON object")
		}
		shapes = append(shapes, shape{call: Call{Name: name, Arguments: v, ID: k.id}})
	case v[0] == '{':
		shapes = append(shapes, buildCall(v, 0, 1, rebase(members, base)))
	default:
		ms := rebase(members, base)
		for _, m := range ms {
			if m.depth != 1 {
				continue
			}
			if m.kind != '{' {
				return s.failItem(ErrNotACall, "every element of the array must be a call object, found "+kindName(m.kind))
			}
			shapes = append(shapes, buildCall(v, m.valStart, 2, ms))
		}
		if len(shapes) == 0 {
			return s.failItem(ErrNotACall, "the array of calls is empty")
		}
	}
	for _, sh := range shapes {
		if sh.err != nil {
			return s.failItem(sh.err, sh.reason)
		}
		if !s.cfg.allowed(sh.call.Name) {
			return s.failItem(ErrUnknownTool, s.cfg.unknownToolReason(sh.call.Name))
		}
		c := sh.call
		if rawCtl {
			c.Arguments = escapeControl(c.Arguments)
		}
		c.Kind = "tool"
		c.Format = k.format
		c.Repaired = repaired || rawCtl
		k.calls = append(k.calls, c)
	}
	return true
}

// rebase returns members with offsets relative to base, in place.
func rebase(ms []member, base int) []member {
	if base == 0 {
		return ms
	}
	for i := range ms {
		m := &ms[i]
		m.parent -= base
		if m.keyStart >= 0 {
			m.keyStart -= base
			m.keyEnd -= base
		}
		if m.parentKeyStart >= 0 {
			m.parentKeyStart -= base
			m.parentKeyEnd -= base
		}
		m.valStart -= base
		m.valEnd -= base
	}
	return ms
}

func (s *Stream) failItem(err error, reason string) bool {
	end := s.pos
	if s.blk.jm.done() {
		end = s.blk.jm.end
	}
	s.failBlock(end, err, reason)
	return false
}

// truncatedItem settles an item the output cut short: repaired when it
// stopped at a value boundary, a failure otherwise.
func (s *Stream) truncatedItem() {
	k := &s.blk
	if why := k.jm.truncation(); why != "" {
		s.failBlock(len(s.buf), ErrTruncated, why+"; the call was not used")
		return
	}
	fixed := k.jm.repair(s.buf)
	var jm jsonMachine
	jm.reset(0)
	jm.run(fixed, 0)
	if !jm.atEOF(fixed) {
		s.failBlock(len(s.buf), ErrTruncated, "output ended inside the call and it could not be closed")
		return
	}
	if !s.finishItem(fixed, jm.members, 0, jm.rawCtl || k.jm.rawCtl, true) {
		return
	}
	s.endBlock(len(s.buf))
}

// endBlock completes the block at end (exclusive).
func (s *Stream) endBlock(end int) {
	k := &s.blk
	if k.items == 0 {
		s.failBlock(end, ErrTruncated, "output ended before the call's JSON")
		return
	}
	if k.format == FormatYips {
		s.envelopes++
	}
	for i := range k.calls {
		k.calls[i].Start, k.calls[i].End = k.start, end
	}
	for _, w := range k.warnings {
		s.addWarning(w)
	}
	s.addCallSegment(k.start, end, k.envText, k.calls, k.seq)
	k.calls = k.calls[:0]
	s.pos = end
	s.mode = mProse
}

// failBlock gives up on the current block. at is where the problem was
// found; the block's end is found by skipStep, and its text stays prose.
func (s *Stream) failBlock(at int, err error, reason string) {
	k := &s.blk
	k.calls = k.calls[:0]
	s.skip = skipState{err: err, reason: reason}
	s.pos = max(at, s.pos)
	if s.pos > len(s.buf) {
		s.pos = len(s.buf)
	}
	s.mode = mSkip
}

// fenceClose absorbs the ``` that closes a fence wrapping a tag block.
func (s *Stream) fenceClose() bool {
	b := s.buf
	tagEnd := s.pos
	i := skipSpace(b, tagEnd)
	if i == len(b) {
		if !s.eof {
			return false
		}
		s.endBlock(tagEnd)
		return true
	}
	end, ok, need := isFenceClose(b, i, s.eof)
	if need {
		return false
	}
	if ok {
		s.endBlock(end)
		return true
	}
	// The fence stays open. Another call block may follow inside it;
	// anything else makes the rest of the fence ordinary code.
	var r rec
	if b[i] == '<' || b[i] == '[' {
		r = s.recognize(b, i, s.eof)
		if r.v == vNeed {
			return false
		}
	}
	s.endBlock(tagEnd)
	if r.v == vBlock {
		r.fenced = true
		s.startBlock(i, r)
		return true
	}
	s.mode = mFence
	return true
}

// progress emits the call's name and path as soon as they are complete.
func (s *Stream) progress() {
	k := &s.blk
	ms := k.jm.members
	base := 1 // depth of a call object's members
	if k.jm.start < len(s.buf) && s.buf[k.jm.start] == '[' {
		base = 2
	}
	named := k.name != "" || k.itemName != ""
	for ; k.pathSent < len(ms); k.pathSent++ {
		m := &ms[k.pathSent]
		if m.keyStart < 0 || m.kind != '"' {
			continue
		}
		key := s.buf[m.keyStart:m.keyEnd]
		val := s.buf[m.valStart:m.valEnd]
		switch {
		case !named && m.depth == base && isNameKey(key):
			if name, ok := unquote(val); ok {
				s.events = append(s.events, Event{Kind: EventCallName, Block: k.seq, Format: k.format, Name: name})
			}
		case isPathKey(key) && ((named && m.depth == 1) ||
			(!named && m.depth == base+1 && m.parentKeyStart >= 0 && isArgsKey(s.buf[m.parentKeyStart:m.parentKeyEnd])) ||
			(!named && m.depth == base)):
			if path, ok := unquote(val); ok {
				s.events = append(s.events, Event{Kind: EventCallPath, Block: k.seq, Format: k.format, Path: path})
			}
		}
	}
}
