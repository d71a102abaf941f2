package tools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tetherdev/tether/llm"
)

// DefaultTimeout bounds a call when neither its Spec nor the Registry set
// a timeout.
const DefaultTimeout = 5 * time.Minute

// timeoutGrace is how long Execute waits, after a call's deadline, for the
// tool to return its own (partial) result before answering for it.
const timeoutGrace = 3 * time.Second

// Registry holds the tools an agent may call, resolves the names models
// use, and runs calls so that every outcome (success, error, panic,
// timeout, unknown tool, malformed arguments) is a Result the model can
// read. The zero value is an empty registry ready to use; it is safe for
// concurrent use and must not be copied after first use.
type Registry struct {
	// Timeout bounds a call whose Spec has no Timeout; zero means
	// DefaultTimeout.
	Timeout time.Duration
	// Logger receives recovered panics and timeouts; nil means no logging.
	Logger *slog.Logger

	mu      sync.RWMutex
	entries map[string]*entry
	order   []string
	aliases map[string]string // user aliases; DefaultAliases are consulted after
}

type entry struct {
	tool   Tool
	spec   Spec
	schema *schema
}

// Register adds tools under their own names. It fails, adding none, on an
// invalid or duplicate name or a Parameters value that is not a schema.
func (r *Registry) Register(tools ...Tool) error { return r.register("", "", tools) }

// Replace removes what Unregister(name) would remove and adds tools under
// their own names, as one step: a concurrent Lookup or Execute sees the
// old set or the new one, never a registry without either (an MCP server
// refreshing its list while the model calls one of its tools). It fails,
// changing nothing, when Register would fail on tools. An empty name
// removes nothing.
func (r *Registry) Replace(name string, tools ...Tool) error { return r.register(name, "", tools) }

// RegisterNamespace adds tools under "<ns>__<name>", for skills and
// external (MCP) servers whose tool names may collide with built-ins.
// A model that drops the prefix still reaches a tool whose bare name is
// unique across namespaces.
func (r *Registry) RegisterNamespace(ns string, tools ...Tool) error {
	if err := checkName(ns); err != nil || strings.Contains(ns, NamespaceSep) {
		return fmt.Errorf("%w: namespace %q", ErrInvalidName, ns)
	}
	return r.register("", ns, tools)
}

// register adds tools, under namespace ns when it is not empty, after
// removing what Unregister(replace) would when replace is not empty; all
// under one lock, and nothing changes on an error.
func (r *Registry) register(replace, ns string, tools []Tool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.entries == nil {
		r.entries = map[string]*entry{}
	}
	added := map[string]*entry{}
	var names []string
	for _, t := range tools {
		spec := t.Describe()
		if ns != "" {
			spec.Name = ns + NamespaceSep + spec.Name
			t = renamed{Tool: t, name: spec.Name}
		}
		if err := checkName(spec.Name); err != nil {
			return err
		}
		if _, dup := r.entries[spec.Name]; dup && !removedBy(replace, spec.Name) {
			return fmt.Errorf("%w: %q", ErrDuplicateTool, spec.Name)
		}
		if _, dup := added[spec.Name]; dup {
			return fmt.Errorf("%w: %q", ErrDuplicateTool, spec.Name)
		}
		sc, err := parseSchema(spec.Parameters)
		if err != nil {
			return fmt.Errorf("tool %q: %w", spec.Name, err)
		}
		added[spec.Name] = &entry{tool: t, spec: spec, schema: sc}
		names = append(names, spec.Name)
	}
	if replace != "" {
		r.unregister(replace)
	}
	for _, n := range names {
		r.entries[n] = added[n]
	}
	r.order = append(r.order, names...)
	return nil
}

// Unregister removes tools by name, or every tool of a namespace when
// given "<ns>__" (for an MCP server that went away).
func (r *Registry) Unregister(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.unregister(name)
}

func (r *Registry) unregister(name string) {
	r.order = slices.DeleteFunc(r.order, func(n string) bool {
		if removedBy(name, n) {
			delete(r.entries, n)
			return true
		}
		return false
	})
}

// removedBy reports whether Unregister(name) removes the tool called n.
func removedBy(name, n string) bool {
	return name != "" && (n == name || (strings.HasSuffix(name, NamespaceSep) && strings.HasPrefix(n, name)))
}

// Alias makes alias resolve to target. User aliases take precedence over
// DefaultAliases but never over a real tool name.
func (r *Registry) Alias(alias, target string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.aliases == nil {
		r.aliases = map[string]string{}
	}
	r.aliases[alias] = target
}

// Lookup resolves a name as a model wrote it: exact name, alias, the same
// name in another case or separator style ("readFile"), or a namespaced
// tool's bare name when unique. It returns the tool and its canonical name.
func (r *Registry) Lookup(name string) (Tool, string, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, err := r.resolve(name)
	if err != nil {
		return nil, "", err
	}
	return e.tool, e.spec.Name, nil
}

func (r *Registry) resolve(raw string) (*entry, error) {
	name := cleanName(raw)
	if e, ok := r.entries[name]; ok {
		return e, nil
	}
	for _, aliases := range []map[string]string{r.aliases, DefaultAliases()} {
		if target, ok := aliases[name]; ok {
			if e, ok := r.entries[target]; ok {
				return e, nil
			}
		}
	}
	fn := fold(name)
	for _, n := range r.order {
		if fold(n) == fn {
			return r.entries[n], nil
		}
	}
	for _, aliases := range []map[string]string{r.aliases, DefaultAliases()} {
		for a, target := range aliases {
			if fold(a) == fn {
				if e, ok := r.entries[target]; ok {
					return e, nil
				}
			}
		}
	}
	var bare *entry
	for _, n := range r.order {
		if i := strings.LastIndex(n, NamespaceSep); i >= 0 && fold(n[i+len(NamespaceSep):]) == fn {
			if bare != nil {
				bare = nil
				break
			}
			bare = r.entries[n]
		}
	}
	if bare != nil {
		return bare, nil
	}
	err := &UnknownToolError{Name: raw, Available: slices.Clone(r.order)}
	best := 4 // suggest only close names
	for _, n := range r.order {
		if d := editDistance(fn, fold(n)); d < best {
			best, err.Suggest = d, n
		}
	}
	return nil, err
}

// Tools returns the registered tools in registration order.
func (r *Registry) Tools() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, len(r.order))
	for i, n := range r.order {
		out[i] = r.entries[n].tool
	}
	return out
}

// Names returns the registered names in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.order)
}

// Specs returns the specs a natively tool-calling model receives.
func (r *Registry) Specs() []llm.ToolSpec {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]llm.ToolSpec, len(r.order))
	for i, n := range r.order {
		out[i] = r.entries[n].spec.LLM()
	}
	return out
}

// Filter returns a new Registry with the tools keep accepts, the same
// aliases, timeout and logger.
func (r *Registry) Filter(keep func(Spec) bool) *Registry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := &Registry{Timeout: r.Timeout, Logger: r.Logger, entries: map[string]*entry{}}
	for a, t := range r.aliases {
		out.Alias(a, t)
	}
	for _, n := range r.order {
		if e := r.entries[n]; keep(e.spec) {
			out.entries[n] = e
			out.order = append(out.order, n)
		}
	}
	return out
}

// ReadOnly returns the read-only subset, for explore, plan and review modes.
func (r *Registry) ReadOnly() *Registry { return r.Filter(func(s Spec) bool { return s.ReadOnly }) }

// Execute runs one call and always returns a Result: failures of any kind
// come back with IsError set and a message that tells the model what to do.
// Meta.Tool holds the canonical name and Meta.Duration the time taken.
func (r *Registry) Execute(ctx context.Context, call Call) Result {
	start := time.Now()
	res := r.execute(ctx, call)
	res.Meta.Duration = time.Since(start)
	return res
}

// Prepare resolves call's tool name and normalises and validates its
// arguments, returning the call as the tool will see it. Hosts use it to
// judge and snapshot what a call will really touch (a "file" argument is
// the "path" by then) before running it; Execute prepares on its own.
// Errors are *UnknownToolError or *ArgumentError.
func (r *Registry) Prepare(call Call) (Call, error) {
	r.mu.RLock()
	e, err := r.resolve(call.Name)
	r.mu.RUnlock()
	if err != nil {
		return call, err
	}
	raw, err := prepare(e.spec.Name, e.schema, e.spec.ArgAliases, call.Arguments)
	if err != nil {
		return Call{ID: call.ID, Name: e.spec.Name, Arguments: call.Arguments}, err
	}
	return Call{ID: call.ID, Name: e.spec.Name, Arguments: raw}, nil
}

func (r *Registry) execute(ctx context.Context, call Call) Result {
	call, err := r.Prepare(call)
	if err != nil {
		res := errorResult(err)
		var ue *UnknownToolError
		if !errors.As(err, &ue) {
			res.Meta.Tool = call.Name
		}
		return res
	}
	r.mu.RLock()
	e := r.entries[call.Name]
	r.mu.RUnlock()
	if e == nil { // unregistered between Prepare and here
		return errorResult(&UnknownToolError{Name: call.Name, Available: r.Names()})
	}

	timeout := e.spec.Timeout
	if timeout <= 0 {
		timeout = r.Timeout
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cctx, cancel := context.WithTimeoutCause(ctx, timeout, ErrTimeout)
	defer cancel()

	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1) // buffered: a late tool never blocks
	go func() {
		defer func() {
			if p := recover(); p != nil {
				if r.Logger != nil {
					r.Logger.Error("tool panicked", "tool", e.spec.Name, "panic", p, "stack", string(debug.Stack()))
				}
				done <- outcome{err: fmt.Errorf("%w: %v (this is a bug in the tool, not in your call; try another approach)", ErrPanic, p)}
			}
		}()
		res, err := e.tool.Execute(cctx, call)
		done <- outcome{res, err}
	}()

	var o outcome
	select {
	case o = <-done:
	case <-cctx.Done():
		// Give the tool a moment to return its own partial result (a
		// command's output so far); answer for it if it does not.
		select {
		case o = <-done:
		case <-time.After(timeoutGrace):
			if r.Logger != nil {
				r.Logger.Warn("tool ignored cancellation", "tool", e.spec.Name, "cause", context.Cause(cctx))
			}
			o.err = context.Cause(cctx)
		}
	}
	if errors.Is(context.Cause(cctx), ErrTimeout) {
		switch {
		case o.err == nil:
			o.res.Meta.TimedOut = true // returned (a partial result) after its deadline
		case errors.Is(o.err, context.DeadlineExceeded), errors.Is(o.err, context.Canceled):
			o.err = ErrTimeout // the tool passed on ctx.Err(); say what happened
		}
	}
	if o.err != nil {
		res := errorResult(describeFailure(e.spec.Name, timeout, o.err))
		res.Meta = o.res.Meta
		res.Meta.Tool = e.spec.Name
		if errors.Is(o.err, ErrTimeout) {
			res.Meta.TimedOut = true
		}
		return res
	}
	o.res.Meta.Tool = e.spec.Name
	return o.res
}

func describeFailure(name string, timeout time.Duration, err error) error {
	switch {
	case errors.Is(err, ErrTimeout):
		return fmt.Errorf("%w: %s did not finish within %s and was stopped; narrow the request or raise the timeout", ErrTimeout, name, timeout)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("%s was cancelled: %w", name, err)
	}
	return err
}

func errorResult(err error) Result {
	return Result{Text: "Error: " + err.Error(), IsError: true}
}

// renamed gives a namespaced tool its qualified name.
type renamed struct {
	Tool
	name string
}

func (t renamed) Describe() Spec {
	s := t.Tool.Describe()
	s.Name = t.name
	return s
}
