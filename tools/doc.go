// Package tools defines what an agent can do: the Tool interface, typed
// tools whose JSON Schema is inferred from a Go struct, and the Registry
// that resolves the names models use and turns every outcome into a result
// the model can read.
//
// # Defining a tool
//
// A struct with json and jsonschema tags is the whole definition of a
// tool's arguments; New infers the schema with github.com/invopop/jsonschema.
// A field is required unless its json tag says omitempty:
//
//	type greetArgs struct {
//		Name  string `json:"name" jsonschema:"description=Who to greet"`
//		Times int    `json:"times,omitempty" jsonschema:"minimum=1,maximum=5"`
//	}
//	greet := tools.New("greet", "Greet someone.", func(ctx context.Context, a greetArgs) (tools.Result, error) {
//		return tools.Text(strings.Repeat("hello "+a.Name+"\n", max(a.Times, 1))), nil
//	}, tools.ReadOnly())
//
// Tools that do not fit a struct (an MCP server's tools, say) implement
// Tool directly or use the Func adapter with a hand-written schema.
//
// # What models send, and what the model gets back
//
// Before a typed tool sees its arguments they are normalised the way small
// models need: path aliases (path, file, filePath, file_path), keys in
// another case or separator style, arguments double-encoded as a JSON
// string, numbers and booleans sent as strings, a lone value where an
// array is expected. They are then validated against the schema. What is
// still wrong comes back as an *ArgumentError listing each problem and the
// expected shape, written for the model to read:
//
//	invalid arguments for read_file:
//	- missing required "path" (string): File to read
//	Expected arguments:
//	  "path": string (required): File to read
//	  "start_line": integer: First line to read
//
// A parameter named twice with different values (under two aliases, or an
// alias and its name) is an error naming both values: which one the model
// meant cannot be known, and judging one while the tool used the other
// would defeat every check. Registry.Prepare returns a call normalised
// once, for a host to judge and then run.
//
// # Declared effects
//
// A tool says what a call will do before it runs by implementing
// Declarer, or with New's WithEffects option: the paths it reads and
// writes, the command and directory it runs in, whether it is read-only,
// destructive or open-world (the MCP tool annotations are the model), and
// for file writes the exact new bytes. Registry.Effects asks the tool for
// a prepared call. An agent judges, shows and snapshots those effects and
// runs the call under WithApproved; a file tool then writes the approved
// bytes or, if the file changed since, nothing (CheckApproved). A tool
// that declares nothing is opaque to the agent and confirm-level.
//
// Registry.Execute never fails: an unknown tool name (answered with the
// list of available tools and a "did you mean"), invalid arguments, an
// error, a panic (recovered) or a timeout all become a Result with IsError
// set. Names small models were trained on resolve to Tether's tools (see
// DefaultAliases): ls and list_dir to list_files, bash and shell to
// run_terminal_command, grep to search_workspace, cat to read_file.
//
// # Results
//
// A Result carries Text for the model and Meta for the host: the path, the
// line range shown or changed, diff stats (+N −N), truncation counts, a
// command's exit code. UIs render Meta; they never parse Text. While a
// call runs, tools report Progress (each chunk read_file streams, a
// command's new output lines) to the Reporter a host puts in the call's
// context with WithReporter.
//
// # Built-in tools
//
// The sub-packages hold the built-in tools, one file each: fstools
// (read_file, write_file, create_file, edit_file, modify_lines, patch_file,
// get_file_size, create_folder, rename_file), search (search_workspace,
// list_files), terminal (run_terminal_command) and diag (get_diagnostics).
// Package builtin wires them all to one *safety.Workspace, through which
// every path is confined. Others are added by hosts that want them:
// lsptools (code intelligence from a language server), pdftools (read_pdf)
// and webtools (read_webpage, the one open-world tool: it declares
// Spec.OpenWorld, and reaches only public addresses by default).
package tools
