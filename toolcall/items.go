package toolcall

import "bytes"

// Turning the JSON items of a block into calls, and the parts of a block
// that come before or during its items: the Mistral name[ARGS] prefix and
// the progress events (name, path) a UI shows while a call streams.

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
	if k.open != nil && k.open.keyed {
		return s.finishKeyed(v)
	}
	name := k.name
	id := k.id
	if k.itemName != "" || k.itemAnon {
		name = k.itemName
		k.itemName, k.itemAnon = "", false
		if k.open != nil && k.open.items != nil {
			k.tail = true
			id, k.itemID = k.itemID, ""
		} else {
			k.fnClose = true
		}
	}
	var one [1]shape
	shapes := one[:0]
	switch {
	case name != "":
		if v[0] != '{' {
			return s.failItem(ErrBadArguments, "the arguments must be a JSON object")
		}
		shapes = append(shapes, shape{call: Call{Name: name, Arguments: v, ID: id}})
	default:
		shapes = callShapes(v, rebase(members, base), shapes)
	}
	if n := len(shapes); k.truncated && name == "" && shapes[n-1].nameOnly() {
		// Cut off after the tool name: running it without the arguments
		// the model meant to write would invent a call.
		if n == 1 {
			return s.failItem(ErrTruncated, nameOnlyReason)
		}
		shapes = shapes[:n-1]
		s.addFailure(Failure{Format: k.format, Reason: nameOnlyReason, Err: ErrTruncated, Start: k.start, End: len(s.buf)})
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
		c.Repaired = c.Repaired || k.repaired
		c.Arguments = s.ownArgs(c.Arguments)
		k.calls = append(k.calls, c)
	}
	k.inItem = false
	return true
}

const nameOnlyReason = "output ended after the tool name, before its arguments; the call was not used"

// nameOnly reports a call object that has a name and nothing else.
func (sh *shape) nameOnly() bool {
	return sh.err == nil && !sh.explicit && string(sh.call.Arguments) == "{}"
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
	if s.isolateItem(err, reason) {
		return false
	}
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
		if fixed := k.jm.rollback(s.buf, k.format == FormatYips); fixed != nil && s.finishRolledBack(fixed) {
			s.addFailure(Failure{Format: k.format, Reason: why + cutTailReason, Err: ErrTruncated, Start: k.start, End: len(s.buf)})
			s.endBlock(len(s.buf))
			return
		}
		if s.mode == mSkip {
			return
		}
		s.failBlock(len(s.buf), ErrTruncated, why+"; the call was not used")
		return
	}
	fixed := k.jm.repair(s.buf)
	if k.jm.slipped {
		fixed = fixSlips(fixed)
	}
	members, rawCtl, ok := revalidate(fixed)
	if !ok {
		s.failBlock(len(s.buf), ErrTruncated, "output ended inside the call and it could not be closed")
		return
	}
	k.truncated = true
	if !s.finishItem(fixed, members, 0, rawCtl || k.jm.rawCtl, true) {
		return
	}
	s.endBlock(len(s.buf))
}

// cutTailReason ends the failure reported for a call list cut off
// inside its last call.
const cutTailReason = "; the calls before the cut were kept, the cut call was not used"

// finishRolledBack finishes an item cut back to its complete calls.
func (s *Stream) finishRolledBack(fixed []byte) bool {
	if s.blk.jm.slipped {
		fixed = fixSlips(fixed)
	}
	members, rawCtl, ok := revalidate(fixed)
	return ok && s.finishItem(fixed, members, 0, rawCtl || s.blk.jm.rawCtl, true)
}

// finishSlipped finishes a complete item that holds JSON slips, from a
// fixed copy.
func (s *Stream) finishSlipped() bool {
	k := &s.blk
	fixed := fixSlips(s.buf[k.jm.start:k.jm.end])
	members, rawCtl, ok := revalidate(fixed)
	if !ok {
		// The machine accepted only slips fixSlips repairs.
		return s.failItem(ErrInvalidJSON, "invalid JSON that could not be repaired")
	}
	return s.finishItem(fixed, members, 0, rawCtl, true)
}

// revalidate runs a fresh machine over a repaired copy of a value and
// returns its members; ok is false unless the copy is plain, complete
// JSON.
func revalidate(fixed []byte) (members []member, rawCtl, ok bool) {
	var jm jsonMachine
	jm.reset(0)
	jm.run(fixed, 0)
	return jm.members, jm.rawCtl, jm.atEOF(fixed) && !jm.slipped
}

// mistralPrefix reads what follows [TOOL_CALLS]: JSON, or name[ARGS]
// (optionally name[CALL_ID]id[ARGS]).
func (s *Stream) mistralPrefix() bool {
	k := &s.blk
	b := s.buf
	i := skipGap(b, s.pos)
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
	if j > i && j < len(b) && b[j] == '{' {
		// Tokenizer v11 and later: [TOOL_CALLS]name{arguments}.
		s.mistralName(string(b[i:j]), "", j)
		return true
	}
	if j == i || j < len(b) && b[j] != '[' {
		// The older form with junk before the array of calls
		// ("[TOOL_CALLS] json\n[{…}]"): skip it if an array of objects
		// opens soon after.
		at, need := mistralArray(b, i, s.eof)
		if need {
			return false
		}
		if at >= 0 {
			k.state = bItems
			s.pos = at
			return true
		}
		s.failBlock(i, ErrInvalidJSON, "expected a JSON array of calls, name{…} or name[ARGS]{…} after "+mistralTag)
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
		s.failBlock(j, ErrInvalidJSON, "expected [ARGS] or a JSON object after the tool name "+name)
		return true
	}
	s.mistralName(name, id, j+len(mistralArgs))
	return true
}

// mistralName starts the arguments of the Mistral call name at offset at.
func (s *Stream) mistralName(name, id string, at int) {
	k := &s.blk
	k.name = name
	k.itemName = ""
	k.state = bItems
	s.pos = at
	k.id = id
	s.emit(Event{Kind: EventCallName, Block: k.seq, Format: k.format, Name: name})
	k.nameSent = true
}

// mistralJoined starts the next call when a named call is followed by a
// comma and another name{…} or name[ARGS]{…} ("[TOOL_CALLS]a{…},b{…}", a slip
// of Mistral Small and Nemo, which the template writes with one marker
// per call). i is the first byte after the comma and blank space.
func (s *Stream) mistralJoined(i int) (joined, need bool) {
	k := &s.blk
	b := s.buf
	if k.format != FormatMistral || k.name == "" || k.items == 0 || k.joined || bytes.IndexByte(b[k.itemEnd:i], ',') < 0 {
		return false, false
	}
	if full, partial := hasPrefixOrPartial(b[i:], mistralTag); partial && !s.eof {
		return false, true
	} else if full {
		k.itemEnd = i // "a{…},[TOOL_CALLS]b{…}": the comma is markup too
		return false, false
	}
	j := i
	for j < len(b) && j-i < maxNameLen && isNameByte(b[j]) {
		j++
	}
	if j == len(b) && !s.eof && j-i < maxNameLen {
		return false, true
	}
	if j == i || j == len(b) {
		return false, false
	}
	if b[j] == '[' {
		// name[ARGS]{…} or name[CALL_ID]id[ARGS]{…}: mistralPrefix reads it.
		args, argsPart := hasPrefixOrPartial(b[j:], mistralArgs)
		id, idPart := hasPrefixOrPartial(b[j:], mistralCallID)
		if (argsPart || idPart) && !s.eof {
			return false, true
		}
		if !args && !id {
			return false, false
		}
		k.state, s.pos, k.joined = bMistral, i, true
		return true, false
	}
	if b[j] != '{' {
		return false, false
	}
	s.mistralName(string(b[i:j]), "", j)
	k.joined = true
	return true, false
}

// mistralJunkLimit bounds the junk skipped between [TOOL_CALLS] and its
// array, so that a stray token in prose cannot swallow a later array.
const mistralJunkLimit = 32

// mistralArray finds "[" followed by "{" (blank space between allowed)
// within mistralJunkLimit bytes of i, on the same or the next line. It
// returns the offset of the "[", -1 if there is none, or need when more
// input could decide.
func mistralArray(b []byte, i int, eof bool) (at int, need bool) {
	lines := 0
	for p := i; p < len(b) && p-i < mistralJunkLimit; p++ {
		switch b[p] {
		case '\n':
			if lines++; lines > 1 {
				return -1, false
			}
		case '[':
			j := skipGap(b, p+1)
			if j == len(b) {
				return -1, !eof
			}
			if b[j] == '{' {
				return p, false
			}
		}
	}
	return -1, !eof && len(b)-i < mistralJunkLimit
}

// progress emits the call's name and path as soon as they are complete.
func (s *Stream) progress() {
	if s.silent {
		return
	}
	k := &s.blk
	ms := k.jm.members
	if k.pathSent == len(ms) {
		return // no member completed since the last look (most chunks)
	}
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
			if name, ok := unquoteIn(val, true); ok {
				s.emit(Event{Kind: EventCallName, Block: k.seq, Format: k.format, Name: name})
			}
		case isPathKey(key) && ((named && m.depth == 1) ||
			(!named && m.depth == base+1 && m.parentKeyStart >= 0 && isArgsKey(s.buf[m.parentKeyStart:m.parentKeyEnd])) ||
			(!named && m.depth == base)):
			if path, ok := unquoteIn(val, true); ok {
				s.emit(Event{Kind: EventCallPath, Block: k.seq, Format: k.format, Path: path})
			}
		}
	}
}
