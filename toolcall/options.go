package toolcall

import "fmt"

// Option configures a Stream (and ParseWith).
type Option func(*config)

type config struct {
	set      bool // built by newConfig: a zero Stream has not been yet
	formats  Format
	allow    map[string]bool // nil: any name
	thinking bool            // the message starts inside a reasoning block
}

func newConfig(opts []Option) config {
	c := config{set: true, formats: AllFormats}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithTools restricts calls to the named tools.
//
// With an allow-list, a block recognised by its markup (<tool_call>,
// [TOOL_CALLS], …) naming another tool is reported as a Failure with
// ErrUnknownTool, an envelope action naming another tool is dropped with a
// Warning, and bare JSON naming another tool is plain prose — never a call.
// Bare JSON that carries its arguments at the top level ({"name":"read_file",
// "path":"a"}) is accepted only when its name is on the list, because without
// a list any object with a "name" key would look like a call.
func WithTools(names ...string) Option {
	return func(c *config) {
		c.allow = make(map[string]bool, len(names))
		for _, n := range names {
			c.allow[n] = true
		}
	}
}

// WithFormats enables only the given syntaxes (default AllFormats).
func WithFormats(f Format) Option {
	return func(c *config) { c.formats = f }
}

// StartInThinking declares that the message begins inside a reasoning
// block whose <think> tag was part of the prompt (Qwen3, DeepSeek-R1
// templates): everything up to the first </think> is thinking.
func StartInThinking() Option {
	return func(c *config) { c.thinking = true }
}

func (c *config) allowed(name string) bool {
	return c.allow == nil || c.allow[name]
}

func (c *config) unknownToolReason(name string) string {
	return fmt.Sprintf("unknown tool %q: use one of the tools you were given", name)
}
