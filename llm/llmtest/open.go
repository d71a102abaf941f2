package llmtest

import (
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/modelstr"
)

// Model strings are opened by llm/modelstr, which programs import without
// linking httptest; these names keep llmtest's API whole.

// ErrUnknownScheme is [modelstr.ErrUnknownScheme].
var ErrUnknownScheme = modelstr.ErrUnknownScheme

// Option configures Open.
type Option = modelstr.Option

// Options of Open; see the modelstr functions of the same names.
var (
	WithGetenv       = modelstr.WithGetenv
	WithHTTPClient   = modelstr.WithHTTPClient
	WithRetry        = modelstr.WithRetry
	WithStallTimeout = modelstr.WithStallTimeout
	WithLogger       = modelstr.WithLogger
	WithWireLog      = modelstr.WithWireLog
)

// Open turns a model string into a Model; see [modelstr.Open].
func Open(model string, opts ...Option) (llm.Model, error) { return modelstr.Open(model, opts...) }
