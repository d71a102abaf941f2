package lsptools

// Progress group titles for batches of these tools, named after what the model
// is doing rather than after the tool. A host that groups tool calls in its UI
// uses ProgressGroup; agent's progress titles use the same words.
const (
	GroupAnalyzing  = "Analyzing code"
	GroupSearching  = "Searching codebase"
	GroupInspecting = "Inspecting file structure"
)

// ProgressGroup returns the progress title for one of these tools,
// or "" for a name that is not one of them.
func ProgressGroup(name string) string {
	switch name {
	case DefinitionName, ReferencesName, ImplementationsName, HoverName, CallHierarchyName, TypeHierarchyName, DiagnosticsName:
		return GroupAnalyzing
	case FindSymbolName:
		return GroupSearching
	case DocumentSymbolsName:
		return GroupInspecting
	}
	return ""
}

// NavigationGuidance is a CODE NAVIGATION STRATEGY section for a
// system prompt: when to use which tool. Add it to the agent's system
// prompt (agent.Config.SystemPrompt) when these tools are registered.
const NavigationGuidance = `CODE NAVIGATION STRATEGY:
- Use get_document_symbols before reading a large file, to see its structure and read only what matters.
- Use find_definition to follow a function or method call to its source.
- Use find_references before modifying shared code, to see everything that depends on it.
- Use find_symbol when you don't know which file a symbol is in.
- Use get_hover_info to check a symbol's type, signature and documentation.
- Use get_call_hierarchy to trace who calls a function and what it calls.
- Use find_implementations to find the implementations of an interface or abstract method.
- Use get_type_hierarchy to see inheritance chains.
- Use get_diagnostics after editing code to check it compiles.
Name symbols with symbolName (e.g. {"path": "src/server.go", "symbolName": "handleRequest"}) instead of guessing line and column numbers.`
