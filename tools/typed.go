package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"time"
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
	return t
}

func (t *typed[Args]) Describe() Spec { return t.spec }

func (t *typed[Args]) Execute(ctx context.Context, call Call) (Result, error) {
	raw, err := prepare(t.spec.Name, t.schema, t.spec.ArgAliases, call.Arguments)
	if err != nil {
		return Result{}, err
	}
	var args Args
	if err := json.Unmarshal(raw, &args); err != nil {
		// Validation passed, so this is a type the subset validator does
		// not model (e.g. an unsigned field given -1): still the model's
		// input, still reported as such.
		return Result{}, &ArgumentError{Tool: t.spec.Name, Problems: []string{err.Error()}, Shape: shape(t.schema, "  ")}
	}
	return t.fn(ctx, args)
}

var nameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func checkName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("%w: %q (use 1-64 letters, digits, '_' or '-')", ErrInvalidName, name)
	}
	return nil
}
