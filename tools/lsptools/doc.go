// Package lsptools gives an agent code intelligence from a real language
// server: nine read-only
// tools over a workspace and an *lsp.Manager.
//
//	get_document_symbols  a file's outline with line ranges and nesting
//	find_definition       follow a call to its source, across files
//	find_references       every use of a symbol, grouped by file, capped at 30
//	find_implementations  the implementations of an interface or method
//	find_symbol           symbols by name across the workspace index
//	get_hover_info        type signature and documentation
//	get_call_hierarchy    callers (incoming) and callees (outgoing)
//	get_type_hierarchy    supertypes and subtypes
//	get_diagnostics       the language server's errors for a file
//
// Wiring:
//
//	m := &lsp.Manager{Root: ws.Root()}
//	defer m.Close(ctx)
//	err := lsptools.Register(&reg, lsptools.Config{Files: ws, Servers: m})
//
// Register replaces a get_diagnostics already in the registry (tools/diag,
// which runs go vet or tsc) and keeps it as the fallback for directories,
// the whole workspace, and file types no server serves.
//
// # Naming a position
//
// Models name symbols better than they count columns, so the position
// tools take {path, symbolName?, line?, character?} and resolve them so:
// line and character (1-based) are
// used as given; a symbolName is found in the file, exact before
// case-insensitive, whole words before substrings and code before
// comments, nearest to line when one is given, and otherwise at the
// file's own declaration of it; a line alone means its first word. A
// qualified name ("geom.Total") is looked up by its last part.
//
// # What the model reads
//
// Locations use the search tool's format: a "── path:line:col ──" header,
// then the target line marked with → between context lines. Paths are
// workspace-relative; files outside the workspace (the standard library,
// dependencies) show their path only, unless they are under
// Config.ReadRoots. Files the workspace's sensitivity rules guard (.env,
// keys) are neither analysed nor quoted. References are grouped by file
// and capped; what is left out is counted per file. Results carry Meta
// (path, line, matches, files, truncation) for UIs.
//
// When no language server serves a file type, the tools answer "No
// definition: no language server for .txt files (looked for [...])" as an
// ordinary result pointing at search_workspace, not as an error; a server
// that lacks a feature (type hierarchy, say) gets the same treatment.
//
// ProgressGroup gives UI progress titles for these tools and
// NavigationGuidance a system-prompt section telling the model when to use
// which tool.
package lsptools
