package toolcall

import (
	"bytes"
	"fmt"
)

// Reading a call block: starting it, and the gap between its items,
// where each kind of item is recognised (the state is in blockstate.go).

func (s *Stream) startBlock(p int, r rec) {
	// Show the prose before the block now, but keep the prose run open:
	// if the block fails, its text joins the same run.
	s.showUpTo(p)
	// Keep the slices' memory from block to block: a message with many
	// calls then allocates almost nothing per call. (Only blockVars is
	// replaced: the JSON machine, the larger part, is reset in place.)
	calls, lt := s.blk.calls[:0], s.blk.par.lt
	s.blk.blockVars = blockVars{
		seq:    s.blocks,
		start:  p,
		format: r.format,
		open:   r.open,
		name:   r.name,
		yips:   r.yips,
		fenced: r.fenced,
		calls:  calls,
		par:    params{lt: lt},
	}
	s.blk.jm.reset(0)
	s.blocks++
	switch r.format {
	case FormatMistral:
		s.blk.state = bMistral
	case FormatPythonic:
		s.blk.state = bPyTag
		s.blk.pyStart, s.blk.pyScan, s.blk.py = r.end, r.end, r.py
	}
	s.emit(Event{Kind: EventCallStart, Block: s.blk.seq, Format: r.format, Name: r.name})
	if r.name != "" {
		s.blk.nameSent = true
	}
	s.pos = r.end
	s.mode = mBlock
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
				reason := "invalid JSON: " + k.jm.errMsg + fmt.Sprintf(" at byte %d", k.jm.errPos-k.jm.start)
				if s.isolateItem(ErrInvalidJSON, reason) {
					continue
				}
				s.failBlock(k.jm.errPos, ErrInvalidJSON, reason)
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
				k.itemEnd = k.jm.end
				var ok bool
				if k.jm.slipped {
					ok = s.finishSlipped()
				} else {
					ok = s.finishItem(b[k.jm.start:k.jm.end], k.jm.members, k.jm.start, k.jm.rawCtl, false)
				}
				if !ok {
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
		case bParams:
			return s.paramsStep()
		case bPyTag:
			return s.pyTagStep()
		case bGLM:
			return s.glmStep()
		case bOrphan:
			return s.orphanClose()
		case bPyDict:
			return s.pyDictStep()
		case bTrail:
			return s.trailStep()
		case bItemSkip:
			return s.itemSkipStep()
		case bGemma:
			return s.gemmaStep()
		}
	}
}

// blockItems handles the gap between items. It returns more=false when
// it needs input, done=true when the block ended.
func (s *Stream) blockItems() (more, done bool) {
	k := &s.blk
	b := s.buf
	i := s.pos
	for i < len(b) && i-s.pos < maxBlankGap && (isSpace(b[i]) || (k.items > 0 && (b[i] == ',' || b[i] == ';'))) {
		i++
	}
	if k.open != nil && k.open.xml != nil && len(k.open.xml.frame) > 0 {
		j, need := k.open.xml.skipFrame(b, i, s.eof)
		if need {
			s.pos = i
			return false, false
		}
		if j > i && k.items > 0 {
			k.itemEnd = j // a frame token after the last item is markup
		}
		i = j
	}
	if i == len(b) {
		if !s.eof {
			return false, false
		}
		s.endBlock(k.itemEnd) // trailing whitespace after the last item stays text
		return false, true
	}
	if k.fnClose {
		full, partial := hasPrefixOrPartial(b[i:], k.dialect().fnClose)
		if partial && !s.eof {
			s.pos = i
			return false, false
		}
		k.fnClose = false
		if full {
			s.pos = i + len(k.dialect().fnClose)
			k.itemEnd = s.pos
			return true, false
		}
	}
	if k.tail {
		end, ok, need := itemTail(k.open.items, k.itemFen, b, i, s.eof)
		if need {
			s.pos = i
			return false, false
		}
		k.tail = false
		if ok {
			s.pos, k.itemEnd = end, end
			return true, false
		}
	}
	if k.open != nil && k.open.gemma && k.items == 0 {
		k.state, k.pyStart, k.pyScan = bGemma, i, i
		s.pos = i
		return true, false
	}
	canTake := k.items == 0 || !k.singleItem() || k.joined
	if canTake && k.open != nil && k.open.items != nil && k.itemName == "" {
		h, ok, need := parseItemHeader(k.open.items, b, i, s.eof, s.cfg.allow)
		if need {
			s.pos = i
			return false, false
		}
		if ok {
			k.itemName, k.itemID, k.itemFen, k.itemAnon = h.name, h.id, h.fenced, h.anon
			k.inItem, k.itemStart = true, i
			if h.name != "" {
				s.emit(Event{Kind: EventCallName, Block: k.seq, Format: k.format, Name: h.name})
			}
			k.jm.reset(h.valueAt)
			k.state = bValue
			s.pos = h.valueAt
			return true, false
		}
	}
	if canTake && k.paramsAllowed() {
		d := k.dialect()
		if d == qwenXML {
			// The first parameter's spelling sets the item's dialect.
			for _, alt := range [...]*xmlDialect{qwenNamedXML, qwenParamXML} {
				full, partial := hasPrefixOrPartial(b[i:], alt.parOpen)
				if partial && !s.eof {
					return false, false
				}
				if full {
					k.xml, d = alt, alt
					break
				}
			}
		}
		fullP, partP := hasPrefixOrPartial(b[i:], d.parOpen)
		fullF, partF := hasPrefixOrPartial(b[i:], d.fnClose)
		if (partP || partF) && !s.eof {
			return false, false
		}
		if fullP {
			s.startParams(i)
			return true, false
		}
		if fullF { // <function=NAME></function>: a call without arguments
			k.itemEnd, s.pos = i, i
			if !s.finishItem([]byte("{}"), nil, 0, false, false) {
				return false, true
			}
			return true, false
		}
	}
	if ct := k.closeTag(); ct != "" {
		full, partial := hasPrefixOrPartial(b[i:], ct)
		if full {
			s.pos = i + len(ct)
			if k.items == 0 && k.failedItems == 0 {
				s.failBlock(s.pos, ErrNotACall, "empty "+k.describe()+" block: put a JSON object with the tool name and arguments inside")
				s.skip.end = s.pos
				return false, true
			}
			if k.fenced {
				k.state = bFenceClose
				return true, false
			}
			if k.open == nil && k.format == FormatFunctionTag {
				k.state = bOrphan
				return true, false
			}
			s.endBlock(s.pos)
			return false, true
		}
		if partial {
			if !s.eof {
				s.pos = i
				return false, false
			}
			if k.items > 0 {
				// The output was cut inside the close tag: still markup.
				s.endBlock(len(b))
				return false, true
			}
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
			// assistant_text replaces the envelope: leave the closing
			// fence's line break to the prose so that the text after the
			// fence does not run on from it.
			if k.envText != "" && end > i && b[end-1] == '\n' {
				end--
				if end > i && b[end-1] == '\r' {
					end--
				}
			}
			s.endBlock(end)
			return false, true
		}
		s.failBlock(i, ErrInvalidJSON, "unexpected text after the envelope's JSON object; close the fence with ``` right after it")
		return false, true
	}
	c := b[i]
	if canTake && (c == '{' || (c == '[' && k.name == "" && k.itemName == "")) {
		if k.format == FormatYips && c != '{' {
			s.failBlock(i, ErrInvalidJSON, "the envelope must be a JSON object")
			return false, true
		}
		if c == '{' && k.open != nil && k.open.items == nil {
			py, need := pyDictAt(b, i, s.eof)
			if need {
				s.pos = i
				return false, false
			}
			if py {
				s.startPyDict(i)
				return true, false
			}
		}
		k.jm.reset(i)
		k.joined = false
		k.state = bValue
		s.pos = i
		return true, false
	}
	if canTake && k.open != nil && (k.open.wrap || k.open.xml != nil) && k.itemName == "" {
		r, xml := recognizeFunctionTag(b, i, s.eof), qwenXML
		if k.open.xml != nil {
			r, xml = recognizeQuotedName(b, i, s.eof, k.open.xml.fnOpen), k.open.xml
		}
		if r.v == vNeed {
			s.pos = i
			return false, false
		}
		if r.v == vNone && k.open.xml != nil && bytes.HasPrefix(b[i:], []byte(k.open.xml.fnStem())) {
			k.inItem, k.itemStart = true, i
			s.pos = i + 1
			s.isolateItem(ErrInvalidJSON, "an item without a readable tool name: write "+k.open.xml.fnOpen+"\"NAME\">")
			return true, false
		}
		if r.v == vBlock {
			k.itemName, k.xml = r.name, xml
			k.inItem, k.itemStart = k.open.xml != nil, i
			k.fnClose = false
			s.pos = r.end
			s.emit(Event{Kind: EventCallName, Block: k.seq, Format: k.format, Name: r.name})
			return true, false
		}
	}
	if canTake && k.open != nil && k.open.tag == "<tool_call>" && k.itemName == "" {
		name, next, ok, need := glmHeader(b, i, s.eof)
		if need {
			s.pos = i
			return false, false
		}
		if ok {
			k.itemName = name
			s.emit(Event{Kind: EventCallName, Block: k.seq, Format: k.format, Name: name})
			k.par.args = append(k.par.args[:0], '{')
			k.par.valStart = -1
			k.state = bGLM
			s.pos = next
			return true, false
		}
	}
	if joined, need := s.mistralJoined(i); need {
		s.pos = i
		return false, false
	} else if joined {
		return true, false
	}
	if k.items > 0 {
		s.endBlock(k.itemEnd) // the close tag is missing; prose follows
		return false, true
	}
	if k.format == FormatPythonTag {
		k.pyStart, k.pyScan = i, i
		k.state = bPyTag
		s.pos = i
		return true, false
	}
	if k.open != nil && k.open.items != nil {
		g := k.open.items
		s.failBlock(i, ErrInvalidJSON, fmt.Sprintf("expected %sNAME%s{arguments}%s after %s", g.begin, g.sep, g.end, k.describe()))
		return false, true
	}
	s.failBlock(i, ErrInvalidJSON, fmt.Sprintf("expected a JSON object after %s, found %s", k.describe(), quoteByte(c)))
	return false, true
}
