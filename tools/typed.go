package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// Option adjusts the Spec of a tool built with New.
type Option func(*Spec)

// ReadOnly marks the tool as one that never changes files or runs commands.
func ReadOnly() Option { return func(s *Spec) { s.ReadOnly = true } }

// OpenWorld marks the tool as one that reaches outside the machine.
func OpenWorld() Option { return func(s *Spec) { s.OpenWorld = true } }

// WithTimeout bounds each call of the tool.
func WithTimeout(d time.Duration) Option { return func(s *Spec) { s.Timeout = d } }

// WithArgAliases adds other names models use for a parameter.
func WithArgAliases(param string, names ...string) Option {
	return func(s *Spec) {
		if s.ArgAliases == nil {
			s.ArgAliases = map[string][]string{}
		}
		s.ArgAliases[param] = append(s.ArgAliases[param], names...)
	}
}

// WithEffects makes the tool a [Declarer]: declare receives a call's
// arguments decoded into the tool's Args (exactly as Execute would get
// them) and says what the call will do, without doing it. Args must be the
// type given to New; New panics otherwise.
func WithEffects[Args any](declare func(ctx context.Context, args Args) (Effects, error)) Option {
	return func(s *Spec) { s.declare = declare }
}

// typed is a Tool whose arguments are the Go struct Args.
type typed[Args any] struct {
	spec   Spec
	schema *schema
	fn     func(ctx context.Context, args Args) (Result, error)
}

// New defines a tool whose arguments are the struct Args: json tags name
// the parameters, jsonschema tags describe them (description=…, enum=…,
// minimum=…, default=…), and a field is required unless its json tag says
// omitempty or omitzero. The returned tool normalises and validates what a
// model sends before decoding it into Args, so fn sees well-formed input.
//
// New panics if name is invalid or Args is not a struct: both are
// programming errors, found the first time the program starts.
func New[Args any](name, description string, fn func(ctx context.Context, args Args) (Result, error), opts ...Option) Tool {
	if err := checkName(name); err != nil {
		panic(err)
	}
	params, err := reflectSchema(reflect.TypeFor[Args]())
	if err != nil {
		panic(fmt.Sprintf("tools.New(%q): %v", name, err))
	}
	sc, err := parseSchema(params)
	if err != nil {
		panic(fmt.Sprintf("tools.New(%q): %v", name, err))
	}
	t := &typed[Args]{spec: Spec{Name: name, Description: description, Parameters: params}, schema: sc, fn: fn}
	for _, o := range opts {
		o(&t.spec)
	}
	if t.spec.declare == nil {
		return t
	}
	declare, ok := t.spec.declare.(func(context.Context, Args) (Effects, error))
	if !ok {
		panic(fmt.Sprintf("tools.New(%q): WithEffects takes a function of %s, got %T", name, reflect.TypeFor[Args](), t.spec.declare))
	}
	t.spec.declare = nil
	return &declaring[Args]{typed: t, declare: declare}
}

// declaring is a typed tool that declares its effects.
type declaring[Args any] struct {
	*typed[Args]
	declare func(context.Context, Args) (Effects, error)
}

func (t *declaring[Args]) Effects(ctx context.Context, call Call) (Effects, error) {
	args, err := t.decode(call)
	if err != nil {
		return Effects{}, err
	}
	return t.declare(ctx, args)
}

func (t *typed[Args]) Describe() Spec { return t.spec }

func (t *typed[Args]) Execute(ctx context.Context, call Call) (Result, error) {
	args, err := t.decode(call)
	if err != nil {
		return Result{}, err
	}
	return t.fn(ctx, args)
}

// decode normalises, validates and decodes a call's arguments.
func (t *typed[Args]) decode(call Call) (Args, error) {
	var args Args
	raw, err := prepare(t.spec.Name, t.schema, t.spec.ArgAliases, call.Arguments)
	if err != nil {
		return args, err
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		// Validation passed, so this is a type the subset validator does
		// not model (e.g. an unsigned field given -1): still the model's
		// input, still reported as such.
		return args, &ArgumentError{Tool: t.spec.Name, Problems: []string{err.Error()}, Shape: shape(t.schema, "  ")}
	}
	return args, nil
}

var nameRE = lazyregexp.New(`^[a-zA-Z0-9_-]{1,64}$`)

func checkName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("%w: %q (use 1-64 letters, digits, '_' or '-')", ErrInvalidName, name)
	}
	return nil
}
