package toolcall

import "bytes"

// Failure isolation per item. A section whose items have their own
// delimiters (Kimi and DeepSeek items, <invoke> items in MiniMax,
// <function_calls> and DSML blocks) loses only the item that is broken:
// its raw text is reported as a Failure and kept as prose (the Text of
// the block's call segment), and the items after it are read as usual. A
// broken item ends at its end token, or where the next item or the
// section's close begins when the end token is missing.

// isolateItem starts skipping the current item of a section after err,
// when the block has items with delimiters; it reports whether it did
// (otherwise the caller fails the whole block).
func (s *Stream) isolateItem(err error, reason string) bool {
	k := &s.blk
	end, _ := k.itemDelims()
	if !k.inItem || end == "" {
		return false
	}
	k.state = bItemSkip
	k.skipErr, k.skipReason = err, reason
	k.itemScan = max(s.pos, k.itemStart+1)
	return true
}

// failItemAt fails the current item at offset at: isolated when the block
// allows it, else the whole block. It returns true (the state changed).
func (s *Stream) failItemAt(at int, err error, reason string) bool {
	if !s.isolateItem(err, reason) {
		s.failBlock(at, err, reason)
	}
	return true
}

// itemDelims returns the token that ends an item of the current block
// and the one that begins the next, or "" when items have none.
func (k *block) itemDelims() (end, next string) {
	switch {
	case k.open == nil:
		return "", ""
	case k.open.items != nil:
		return k.open.items.end, k.open.items.begin
	case k.open.xml != nil:
		return k.open.xml.fnClose, k.open.xml.fnStem()
	}
	return "", ""
}

// itemSkipStep finds the end of a broken item, records its failure and
// goes back to reading items. The scan resumes where it stopped, so a
// long broken item costs one pass whatever the chunking.
func (s *Stream) itemSkipStep() bool {
	k := &s.blk
	b := s.buf
	endTok, nextTok := k.itemDelims()
	end := -1
	for k.itemScan < len(b) {
		j := bytes.IndexByte(b[k.itemScan:], '<')
		if j < 0 {
			k.itemScan = len(b)
			break
		}
		q := k.itemScan + j
		k.itemScan = q
		fullE, partE := hasPrefixOrPartial(b[q:], endTok)
		fullN, partN := hasPrefixOrPartial(b[q:], nextTok)
		fullC, partC := hasPrefixOrPartial(b[q:], k.open.close)
		if fullE {
			end = q + len(endTok)
			break
		}
		if fullN || fullC {
			end = q
			break
		}
		if (partE || partN || partC) && !s.eof {
			return false
		}
		k.itemScan++
	}
	if end < 0 {
		if !s.eof {
			return false
		}
		end = len(b)
	}
	s.addFailure(Failure{Format: k.format, Reason: k.skipReason, Err: k.skipErr, Start: k.itemStart, End: end})
	k.dropText += s.str(k.itemStart, end)
	k.failedItems++
	k.inItem, k.itemName, k.itemAnon, k.tail, k.fnClose = false, "", false, false, false
	k.itemEnd = end
	k.state = bItems
	s.pos = end
	return true
}
