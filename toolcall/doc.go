// Package toolcall finds tool calls that a model wrote in its text, in
// one shot with Parse or while the text streams with Stream.
package toolcall
