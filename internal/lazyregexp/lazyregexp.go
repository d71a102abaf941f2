// Package lazyregexp is a regular expression compiled on first use.
//
// A package-level regexp.MustCompile runs when the program starts, in
// every program that links the package, whether or not the expression is
// ever used, and a command-line tool starts often, so package
// initialisation must stay trivial: a Regexp here costs one small
// allocation at start-up and compiles when a method is first called. A
// malformed expression panics then, with regexp.MustCompile's message;
// the packages' own tests exercise every expression.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regexp.Regexp compiled on first use. Its methods are those
// of regexp.Regexp; Regexp returns the compiled expression for anything
// else. It is safe for concurrent use.
type Regexp struct {
	expr string
	once sync.Once
	rx   *regexp.Regexp
}

// New returns expr, to be compiled with regexp.MustCompile when first
// used.
func New(expr string) *Regexp {
	return &Regexp{expr: expr}
}

func (r *Regexp) re() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.expr) })
	return r.rx
}

// Regexp compiles the expression if it has not been yet and returns it.
func (r *Regexp) Regexp() *regexp.Regexp { return r.re() }

// String returns the source text, without compiling it.
func (r *Regexp) String() string { return r.expr }

func (r *Regexp) Match(b []byte) bool                    { return r.re().Match(b) }
func (r *Regexp) MatchString(s string) bool              { return r.re().MatchString(s) }
func (r *Regexp) Find(b []byte) []byte                   { return r.re().Find(b) }
func (r *Regexp) FindIndex(b []byte) []int               { return r.re().FindIndex(b) }
func (r *Regexp) FindString(s string) string             { return r.re().FindString(s) }
func (r *Regexp) FindStringIndex(s string) []int         { return r.re().FindStringIndex(s) }
func (r *Regexp) FindSubmatch(b []byte) [][]byte         { return r.re().FindSubmatch(b) }
func (r *Regexp) FindSubmatchIndex(b []byte) []int       { return r.re().FindSubmatchIndex(b) }
func (r *Regexp) FindStringSubmatch(s string) []string   { return r.re().FindStringSubmatch(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int { return r.re().FindStringSubmatchIndex(s) }
func (r *Regexp) FindAll(b []byte, n int) [][]byte       { return r.re().FindAll(b, n) }
func (r *Regexp) FindAllIndex(b []byte, n int) [][]int   { return r.re().FindAllIndex(b, n) }
func (r *Regexp) FindAllString(s string, n int) []string { return r.re().FindAllString(s, n) }
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.re().FindAllStringIndex(s, n)
}
func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return r.re().FindAllSubmatch(b, n)
}
func (r *Regexp) FindAllSubmatchIndex(b []byte, n int) [][]int {
	return r.re().FindAllSubmatchIndex(b, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.re().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) ReplaceAll(src, repl []byte) []byte { return r.re().ReplaceAll(src, repl) }
func (r *Regexp) ReplaceAllFunc(src []byte, repl func([]byte) []byte) []byte {
	return r.re().ReplaceAllFunc(src, repl)
}
func (r *Regexp) ReplaceAllLiteral(src, repl []byte) []byte {
	return r.re().ReplaceAllLiteral(src, repl)
}
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.re().ReplaceAllString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.re().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return r.re().ReplaceAllLiteralString(src, repl)
}
func (r *Regexp) Split(s string, n int) []string { return r.re().Split(s, n) }
func (r *Regexp) SubexpNames() []string          { return r.re().SubexpNames() }
func (r *Regexp) SubexpIndex(name string) int    { return r.re().SubexpIndex(name) }
func (r *Regexp) NumSubexp() int                 { return r.re().NumSubexp() }
