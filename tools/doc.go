// Package tools defines the tools an agent can call: the Tool interface,
// typed tools with inferred JSON Schema, and the Registry.
package tools
