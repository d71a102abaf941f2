package toolcall

import "bytes"

// Small models inside a tag sometimes write the call as a Python dict,
// single quotes and all (reports on vLLM's and Ollama's trackers for
// Hermes-style Qwen and Llama fine-tunes):
//
//	<tool_call>
//	{'name': 'read_file', 'arguments': {'path': 'main.go', 'recursive': False}}
//	</tool_call>
//
// Inside an explicit call tag this has one meaning, so an item that
// opens with "{'" is read as a Python literal (python.go), converted to
// JSON and marked Repaired. Outside a tag it stays prose: a Python dict
// in an answer is code, not a call.

// pyDictAt reports whether the item at b[i] ('{') opens with a
// single-quoted key; need when the buffer ends first.
func pyDictAt(b []byte, i int, eof bool) (ok, need bool) {
	j := skipGap(b, i+1)
	if j == len(b) {
		return false, !eof
	}
	return b[j] == '\'', false
}

// startPyDict begins a Python-dict item at b[i].
func (s *Stream) startPyDict(i int) {
	k := &s.blk
	k.pyd = pyList{start: i}
	k.state = bPyDict
	s.pos = i
}

func (s *Stream) pyDictStep() bool {
	k := &s.blk
	end, done, bad := k.pyd.scan(s.buf, s.pos)
	s.pos = end
	if !done && !bad && !s.eof {
		return false
	}
	if !done && !bad {
		s.failBlock(end, ErrTruncated, "output ended inside a Python dict; the call was not used")
		return true
	}
	if !done {
		s.failBlock(end, ErrInvalidJSON, "a Python dict whose string runs past the line; write the call as a JSON object")
		return true
	}
	p := pyParser{b: bytes.TrimSpace(s.buf[k.pyd.start:end])}
	if !p.value(0) {
		s.failBlock(end, ErrInvalidJSON, "a Python dict with values other than literals; write the call as a JSON object")
		return true
	}
	members, rawCtl, ok := revalidate(p.out)
	if !ok || p.out[0] != '{' {
		s.failBlock(end, ErrInvalidJSON, "a Python dict that is not a call object; write the call as a JSON object")
		return true
	}
	k.itemEnd = end
	if !s.finishItem(p.out, members, 0, rawCtl, true) {
		return true
	}
	k.state = bItems
	return true
}
