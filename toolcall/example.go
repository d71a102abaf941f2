package toolcall

import "bytes"

// Telling a fenced call from a fenced example.
//
// Models that call a tool from a fence (```json, ```xml, a bare ```)
// usually end their message there, to wait for the result, but many add a
// line first: "Then I will compare them.", "I'll wait for the output."
// Answers that document a call look different: the fence is introduced as
// an example ("For example:", "the format looks like this:") or followed
// by an explanation of it ("This reads the file…", "Replace PATH with…").
// Transcripts of small models (Qwen2.5-Coder, Llama 3.2, Mistral under
// Ollama) and peers' tests show both, and the peers that parse fences
// (llama.cpp's Hermes parser) take every fenced call, inventing the
// examples. So a fenced call that prose follows is a call unless one of
// these cues marks it as documentation. A fence that ends the message, or
// bare JSON that does, is a call unless the paragraph before it
// introduces it as an example. A tag shown inside a sentence ("for
// example <tool_call>…</tool_call>, and …") is an example too.

// exampleCuesBefore, found in the prose just before the fence (lower
// case), introduce an example.
var exampleCuesBefore = []string{
	"for example", "an example", "example:", "example of", "example call",
	"example usage", "e.g.", "for instance", "like this", "like so", "looks like",
	"look like", "would look", "the format", "format is", "syntax", "such as",
	"would write", "you'd write", "should write", "usage:", "how to", "here's how",
	"here is how",
}

// exampleCuesAfter, starting the prose after the fence, explain it.
var exampleCuesAfter = []string{
	"This ", "This:", "The above", "In this", "Here ", "Here,", "Where ",
	"Replace ", "Note", "Each ", "It ", "That ", "You can", "You could",
	"You'd", "The tool", "The function", "The call", "The model",
	"To ", "Or ", "Or,", "Alternatively", "If ", "For ",
}

// cueWindow bounds how far before the fence the cues are looked for: the
// sentence or two that introduce it.
const cueWindow = 200

// fencedExampleAt decides whether the fence that opened at fence and
// closed before the prose at p is documentation. need reports that p is
// too close to the end of the input to decide.
func (s *Stream) fencedExampleAt(fence, p int) (example, need bool) {
	b, eof := s.buf, s.eof
	for _, cue := range exampleCuesAfter {
		full, partial := hasPrefixOrPartial(b[p:], cue)
		if full {
			return true, false
		}
		if partial && !eof {
			need = true
		}
	}
	if need {
		return false, true
	}
	return s.fenceIsExample(fence), false
}

// fenceIsExample reports whether the fence at offset fence is introduced
// as an example, or follows a fence that was one: an answer that shows
// one example call usually shows several ("To read a file: … To write
// one: …").
func (s *Stream) fenceIsExample(fence int) bool {
	return s.examples > 0 || introducedAsExample(s.buf, fence)
}

// introducedAsExample reports whether the paragraph before offset at
// introduces what starts there as an example. Bare JSON that ends the
// message follows this rule too: "Example: {…}" is not a call.
func introducedAsExample(b []byte, at int) bool {
	if hypotheticalIntro(b, at) {
		return true
	}
	// Only the paragraph that introduces it counts.
	before := trimBlankRight(b[max(0, at-cueWindow):at])
	if i := bytes.LastIndex(before, []byte(fenceMark)); i >= 0 {
		before = before[i+len(fenceMark):]
	}
	if i := bytes.LastIndex(before, []byte("\n\n")); i >= 0 {
		before = before[i+2:]
	}
	return containsCue(before, exampleCuesBefore)
}

// containsCue reports whether one of cues (lower case) occurs in b,
// matched in place with ASCII case folded (foldMatch): nothing is
// copied.
func containsCue(b []byte, cues []string) bool {
	for i := range b {
		c := lower(b[i])
		for _, cue := range cues {
			if cue[0] == c && foldMatch(b[i:], cue) > 0 {
				return true
			}
		}
	}
	return false
}

// A call the model introduces as hypothetical or refuses is not a call:
//
//	If I could, I would call:
//	<tool_call>{…}</tool_call>
//	but I don't have that tool.
//
//	I won't run this one:
//	```json
//	{…}
//	```
//
// Small models write this when they lack a tool or judge it unsafe, and
// peers that take every block run it. The cue is a modal or a negation
// right before a calling verb ("would call", "I'd run", "won't use",
// "can't execute") in the last clause of the line that introduces the
// block with a colon; a clause before it ("Since I can't run code
// myself, I'll use the tool:") states a reason, not the call's status,
// and is ignored. Without the colon the line narrates a call the model
// makes ("Okay, I would use get_weather for this.").

// hypotheticalModals, followed by a calling verb, mark a call as not
// made.
var hypotheticalModals = []string{
	"would ", "'d ", "could ", "might ", "won't ", "will not ", "wouldn't ",
	"would not ", "can't ", "cannot ", "couldn't ", "shouldn't ",
	"should not ", "don't ", "do not ", "never ", "not ",
}

var callingVerbs = []string{"call", "run", "use", "execute", "invoke", "send", "make", "issue", "emit"}

// hypotheticalIntro reports whether the line that introduces what starts
// at offset at (the text before it on its line, or else the last
// non-blank line before it) says that the call is hypothetical or
// refused.
func hypotheticalIntro(b []byte, at int) bool {
	before := trimBlankRight(b[max(0, at-cueWindow):at])
	// Only a line ending with ':' introduces, or a fence line, whose
	// backticks then lie in the window: most calls end the test here,
	// without the byte-wise search for the line's start.
	if len(before) == 0 || before[len(before)-1] != ':' && bytes.IndexByte(before, '`') < 0 {
		return false
	}
	nl := bytes.LastIndexByte(before, '\n')
	line := before[nl+1:]
	if bytes.HasPrefix(line, []byte(fenceMark)) && nl >= 0 {
		// at is inside a fence: the line before the fence introduces it.
		before = trimBlankRight(before[:nl])
		line = before[bytes.LastIndexByte(before, '\n')+1:]
	}
	if len(line) == 0 || line[len(line)-1] != ':' {
		return false // reasoning that narrates a call ("I would use X.") makes it
	}
	for i := len(line) - 2; i >= 0; i-- {
		if bytes.IndexByte([]byte(",;.!?"), line[i]) >= 0 && line[i+1] == ' ' {
			line = line[i+2:]
			break
		}
	}
	// Matched in place, ASCII case folded and ’ read as ' (foldMatch):
	// nothing is copied.
	for i := range line {
		c := lower(line[i])
		for _, m := range hypotheticalModals {
			if m[0] != c && !(m[0] == '\'' && c == 0xE2) {
				continue
			}
			n := foldMatch(line[i:], m)
			if n == 0 || m[0] != '\'' && i > 0 && isLetter(line[i-1]) {
				continue // the modal starts a word: "knot run" is not "not run"
			}
			k := i + n
			for _, v := range callingVerbs {
				if e := k + foldMatch(line[k:], v); e > k && (e == len(line) || !isLetter(line[e])) {
					return true
				}
			}
		}
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// noteExample counts a fenced call judged documentation, which makes the
// fences after it examples too. A hedged or refused call is not
// documentation: the call after "I won't run rm:" and its fence
// ("Instead I'll list the files:") is still made.
func (s *Stream) noteExample(fence int) {
	if !hypotheticalIntro(s.buf, fence) {
		s.examples++
	}
}

// trimBlankRight drops the spaces, tabs and line ends that end b.
func trimBlankRight(b []byte) []byte {
	i := len(b)
	for i > 0 && (b[i-1] == ' ' || b[i-1] == '\t' || b[i-1] == '\r' || b[i-1] == '\n') {
		i--
	}
	return b[:i]
}
