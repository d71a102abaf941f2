package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Gemma 4 writes a call as
//
//	<|tool_call>call:NAME{key:<|"|>text<|"|>,n:5,flag:true,xs:[1,2]}<tool_call|>
//
// (the model's chat template; vLLM and llama.cpp Gemma 4 parsers): keys
// are bare words, strings are raw text between <|"|> quote tokens, and
// numbers, booleans, null, lists and nested objects are written as in
// JSON. Each call has its own wrapper. The arguments are converted to
// JSON; a JSON-quoted string or a bare word value is read as a string
// too (one meaning each). The wrapper is markup only when "call:"
// follows it.

const (
	gemmaOpen  = "<|tool_call>"
	gemmaClose = "<tool_call|>"
	gemmaQuote = `<|"|>`
	gemmaCall  = "call:"
)

// gemmaStep finds the close of a Gemma call outside quoted strings,
// resuming where it stopped, then reads the call.
func (s *Stream) gemmaStep() bool {
	k := &s.blk
	b := s.buf
	q := -1
	for k.pyScan < len(b) {
		j := bytes.IndexByte(b[k.pyScan:], '<')
		if j < 0 {
			k.pyScan = len(b)
			break
		}
		at := k.pyScan + j
		k.pyScan = at
		fullQ, partQ := hasPrefixOrPartial(b[at:], gemmaQuote)
		fullC, partC := hasPrefixOrPartial(b[at:], gemmaClose)
		if fullQ {
			k.gq = !k.gq
			k.pyScan = at + len(gemmaQuote)
			continue
		}
		if fullC && !k.gq {
			q = at
			break
		}
		if (partQ || partC) && !s.eof {
			return false
		}
		k.pyScan = at + 1
	}
	if q < 0 {
		if !s.eof {
			return false
		}
		s.failBlock(len(b), ErrTruncated, "output ended inside the call; the call was not used")
		return true
	}
	body := bytes.TrimSpace(b[k.pyStart:q])
	rest, ok := bytes.CutPrefix(body, []byte(gemmaCall))
	o := bytes.IndexByte(rest, '{')
	if !ok || o <= 0 || !validName(string(bytes.TrimSpace(rest[:o]))) {
		s.failBlock(q, ErrInvalidJSON, "expected call:NAME{arguments} after "+gemmaOpen)
		return true
	}
	name := string(bytes.TrimSpace(rest[:o]))
	s.emit(Event{Kind: EventCallName, Block: k.seq, Format: k.format, Name: name})
	args, err := gemmaArgs(rest[o:])
	if err != nil {
		s.failBlock(q, ErrInvalidJSON, "the arguments of "+name+" are not readable: "+err.Error())
		return true
	}
	k.name = name
	k.itemEnd = q
	s.pos = q
	k.state = bItems
	if !s.finishItem(args, nil, 0, false, false) {
		return true
	}
	return true
}

// gemmaReader converts Gemma's argument syntax to JSON.
type gemmaReader struct {
	b   []byte
	i   int
	out []byte
}

const maxGemmaDepth = 64

var errGemma = errors.New("expected a value")

// gemmaArgs converts the object b (from its '{' to the end) to JSON.
func gemmaArgs(b []byte) ([]byte, error) {
	r := gemmaReader{b: b}
	if err := r.value(0); err != nil {
		return nil, err
	}
	r.ws()
	if r.i != len(r.b) || len(r.out) == 0 || r.out[0] != '{' {
		return nil, errors.New("text after the arguments' closing brace")
	}
	return r.out, nil
}

func (r *gemmaReader) ws() {
	for r.i < len(r.b) && isSpace(r.b[r.i]) {
		r.i++
	}
}

func (r *gemmaReader) value(depth int) error {
	if depth > maxGemmaDepth {
		return errors.New("nested too deeply")
	}
	r.ws()
	if r.i == len(r.b) {
		return errGemma
	}
	switch c := r.b[r.i]; {
	case c == '{' || c == '[':
		return r.container(depth)
	case bytes.HasPrefix(r.b[r.i:], []byte(gemmaQuote)):
		r.i += len(gemmaQuote)
		e := bytes.Index(r.b[r.i:], []byte(gemmaQuote))
		if e < 0 {
			return errors.New("a string without its closing " + gemmaQuote)
		}
		r.out = appendJSONString(r.out, r.b[r.i:r.i+e])
		r.i += e + len(gemmaQuote)
		return nil
	case c == '"':
		j := r.i + 1
		for j < len(r.b) && r.b[j] != '"' {
			if r.b[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(r.b) || !json.Valid(r.b[r.i:j+1]) {
			return errors.New("a string without its closing quote")
		}
		r.out = append(r.out, r.b[r.i:j+1]...)
		r.i = j + 1
		return nil
	}
	// A number, true, false, null or a bare word up to the next
	// delimiter.
	j := r.i
	for j < len(r.b) && !bytes.ContainsRune([]byte(",}]:"), rune(r.b[j])) && !bytes.HasPrefix(r.b[j:], []byte(gemmaQuote)) {
		j++
	}
	w := bytes.TrimSpace(r.b[r.i:j])
	if len(w) == 0 {
		return errGemma
	}
	if json.Valid(w) {
		r.out = append(r.out, w...)
	} else {
		r.out = appendJSONString(r.out, w)
	}
	r.i = j
	return nil
}

// container reads a list or an object whose keys are bare words or
// quoted strings.
func (r *gemmaReader) container(depth int) error {
	open := r.b[r.i]
	closer := byte(']')
	if open == '{' {
		closer = '}'
	}
	r.out = append(r.out, open)
	r.i++
	for n := 0; ; n++ {
		r.ws()
		if r.i < len(r.b) && r.b[r.i] == closer {
			r.i++
			r.out = append(r.out, closer)
			return nil
		}
		if n > 0 {
			if r.i == len(r.b) || r.b[r.i] != ',' {
				return errors.New("expected ',' or '" + string(closer) + "'")
			}
			r.i++
			r.out = append(r.out, ',')
			r.ws()
		}
		if open == '{' {
			if err := r.key(); err != nil {
				return err
			}
		}
		if err := r.value(depth + 1); err != nil {
			return err
		}
	}
}

func (r *gemmaReader) key() error {
	var k []byte
	switch {
	case bytes.HasPrefix(r.b[r.i:], []byte(gemmaQuote)):
		r.i += len(gemmaQuote)
		e := bytes.Index(r.b[r.i:], []byte(gemmaQuote))
		if e < 0 {
			return errors.New("a key without its closing " + gemmaQuote)
		}
		k = r.b[r.i : r.i+e]
		r.i += e + len(gemmaQuote)
	case r.i < len(r.b) && r.b[r.i] == '"':
		e := bytes.IndexByte(r.b[r.i+1:], '"')
		if e < 0 {
			return errors.New("a key without its closing quote")
		}
		k = r.b[r.i+1 : r.i+1+e]
		r.i += e + 2
	default:
		j := r.i
		for j < len(r.b) && r.b[j] != ':' && r.b[j] != ',' && r.b[j] != '}' && !isSpace(r.b[j]) {
			j++
		}
		k = r.b[r.i:j]
		r.i = j
	}
	r.ws()
	if len(k) == 0 || r.i == len(r.b) || r.b[r.i] != ':' {
		return errors.New("expected key:value")
	}
	r.i++
	r.out = appendJSONString(r.out, k)
	r.out = append(r.out, ':')
	return nil
}
