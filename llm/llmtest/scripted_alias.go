package llmtest

import (
	"io"

	"github.com/tetherdev/tether/llm/scripted"
)

// The scripted model lives in llm/scripted, a non-test package, so that
// programs can play scripts without linking httptest; these names keep
// llmtest's API whole.
type (
	// Script is a scripted model session; see [scripted.Script].
	Script = scripted.Script
	// Turn is one scripted model response.
	Turn = scripted.Turn
	// CallSpec is one scripted tool call.
	CallSpec = scripted.CallSpec
	// ScriptError is a script line that could not be parsed.
	ScriptError = scripted.ScriptError
	// ScriptedModel is an llm.Model that plays a Script.
	ScriptedModel = scripted.Model
)

// ErrScriptExhausted is [scripted.ErrExhausted].
var ErrScriptExhausted = scripted.ErrExhausted

// NewScripted returns a model that plays s.
func NewScripted(s Script) *ScriptedModel { return scripted.New(s) }

// Replay reads a script file and returns a model that plays it.
func Replay(path string) (*ScriptedModel, error) { return scripted.Replay(path) }

// ParseScript reads a script from JSON lines.
func ParseScript(r io.Reader) (Script, error) { return scripted.ParseScript(r) }

// ReadScriptFile reads a script file.
func ReadScriptFile(path string) (Script, error) { return scripted.ReadScriptFile(path) }
