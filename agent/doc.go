// Package agent is the executor loop: it streams the model, runs the
// tool calls it asks for through safety, approval and checkpoints, feeds
// the results back, and reports every step as one ordered stream of
// events.
//
// # A run
//
// An [Executor] is configured once with a [Config] (the model, the tool
// registry, the workspace, the approval policy and approver, the
// checkpoint manager and the event sink) and runs user turns:
//
//	x, err := agent.New(agent.Config{
//		Model:     model,    // llm/ollama, llm/openai or llm/llmtest
//		Tools:     registry, // tools.Registry with fstools, search, terminal…
//		Workspace: ws,       // safety.OpenWorkspace(dir)
//		Approver:  ui,       // asks a person; approval.Manager for async UIs
//		Sink:      event.JSONLines(os.Stdout), // package agent/event
//	})
//	res, err := x.Run(ctx, agent.Input{Prompt: "Fix the failing test"})
//	// res.FinalMessage, res.FilesChanged, res.CheckpointID, res.StopReason…
//
// Each iteration streams one response. The stream processor shows text
// throttled to one delta per 32 ms (the first only once it holds eight
// word characters, so "**What" never flashes), strips the
// [TASK_COMPLETE] signal even when it arrives split across chunks,
// collapses the thinking block as soon as a native tool call arrives
// (its duration measured to the last thinking token) and announces
// "Writing <file>…" as soon as a write call's path is known.
//
// The calls of a response run as a batch, in order; consecutive read-only
// calls may run concurrently. Each call is prepared once: the registry
// resolves the tool's name and normalises the arguments (a parameter
// given twice with different values is refused, never guessed), and the
// tool declares what the call will do ([tools.Effects]: the paths it reads
// and writes, the command and the directory it runs in, the exact new
// bytes of each file). Everything after that sees only the prepared call,
// so what is judged, shown, snapshotted and run is one thing. A call then
// passes through the host's [ToolMiddleware], if any, to the agent's own
// handler, which routes it by its declared effects: commands to the
// terminal handler (safety analysis in the directory the shell is in,
// command rules, approval of the exact bytes; critical commands are always
// asked, even under auto-approve; the files the analysis says it writes
// are snapshotted), file writes to the file-edit handler (workspace
// confinement, sensitivity, approval with the diff of the declared bytes,
// a checkpoint snapshot, then the tool writes exactly those bytes or,
// if the file changed since, nothing). Read-only calls go straight to the
// registry (a file that may hold secrets needs approval first, and so
// does a read that reaches outside the machine, such as a web page,
// unless the tool declares the host's configuration allows it); a tool
// that declares nothing is opaque and confirm-level. With Config.Staging,
// file writes are only staged under tokens that the apply tool or
// [Executor.ApplyChange] apply once.
// Every call is reported running, pending while it waits for approval,
// then success, error, denied or skipped, under a progress group named
// after the batch ("Editing files", "Running commands", …). While a call
// runs, [event.ToolProgress] events carry what it reports: each chunk of a read
// ("Reading main.go lines 101–200"), a search's matches per file, and a
// command's output, throttled and bounded.
//
// The run ends when the model writes [TASK_COMPLETE] or stops without
// calling a tool. When the prompt asks for changes and nothing was
// written, completion is refused once with a reminder (write
// validation). Guards stop the same failing call repeated, inject pivot
// guidance after consecutive rounds in which everything failed, and
// bound the iterations (25 in agent mode, 10 in read-only modes). The
// summary builder then emits the final message and the files changed
// with the checkpoint id: undo them with
// x.Checkpoints().Open(ctx, res.CheckpointID) and Undo.
//
// # What undo restores
//
// Undo restores exactly the files the checkpoint recorded and reports
// each one (restored, removed, unchanged, or skipped because someone else
// changed it since). File tools declare every file they write, so their
// changes are covered byte for byte, with permission bits, including a
// rename of a whole directory. For a shell command the checkpoint covers
// the paths the command's analysis names as written, taken in the
// directory the command runs in (the shell's current directory, and for
// later parts of the line any `cd` it makes), globs expanded as the shell
// will: redirects, rm (a directory: every file under it), mv and cp
// (every file that appears under a destination directory), sed -i,
// touch, chmod, ln -s (the link is removed again). Directories the run
// created are removed once empty; directories it deleted come back with
// their files. Three things are outside it, by design: what a program
// writes that no argument names (a build, a script, `git init` making
// .git), which is never listed as changed nor touched by undo; anything
// inside .git, which a checkpoint never reads or writes; and symlinks or
// empty directories a command deletes, which are not put back.
//
// # Tool calling
//
// Native when the model reports tool support (specs in the request,
// structured calls back; results as role-tool messages with tool_name),
// text otherwise (tool descriptions and the exact <tool_call> format in
// the system prompt, calls parsed from the text by package toolcall,
// results gathered into one user message), or the envelope protocol
// (one ```yips-agent block per message). Config.ToolCalling forces one.
// A call that cannot be parsed goes back to the model with the parser's
// reason, so it can correct itself; calls are never de-duplicated.
//
// # Modes
//
// Explore, plan and review only read: they offer the read-only tools,
// and the runner refuses any other call in code, whatever the model
// writes. Review may also run read-only git commands, checked by safety
// analysis. Read-only runs make no checkpoints and never ask for
// approval: what would need one (reading a file that may hold secrets, or
// a web page the host has not allowed) is refused instead.
//
// Modes are [ModeSpec] values: the four above are [BuiltinModes], and a
// host adds its own (Ask, Architect…) in Config.Modes with their tools
// (by name or by declared spec), prompt, temperature, iteration limit and
// read-only enforcement, on the same Executor and Registry.
//
// # What the model sees
//
// The prompt builder writes the system prompt for the mode and the
// tool-calling style: the role and rules, USER-PROVIDED CONTEXT, SEARCH
// TIPS and CODE NAVIGATION STRATEGY when those tools are offered, the
// tool list with the exact call format (text and envelope modes), the
// host's prompt, the project context ([projectctx.Discover]: AGENTS.md,
// CLAUDE.md, CODE.md, Copilot instructions, the README and summaries of
// go.mod, package.json, pyproject.toml and Cargo.toml, bounded, listed
// in a [event.ProjectContextLoaded] event) and, last because it changes every
// iteration, the session [Memory] (files read and written, commands,
// errors, the plan). Code the user attached ([Input].Context) opens the
// user's turn with "already provided — do not re-read"
// labels ([FormatUserContext]).
//
// Before each model call the run measures the conversation (the
// backend's reported prompt tokens plus an estimate of what followed, or
// [llm.EstimateTokens]); past 80% of the context length
// ([CompactionConfig]) the older turns are summarised by the model and
// replaced by the summary, while the task and the latest turns, with
// their pending tool results, stay verbatim ([event.ContextCompacted]). A
// host compacts a finished conversation with [Executor.Compact], or a
// running turn with [Executor.RequestCompaction].
//
// [Config].Skills adds skills under the "skill__" namespace: [TodosSkill]
// keeps the plan ([event.TodosUpdated] events) and [BuildSkill] runs the
// project's build or tests through the terminal handler.
// [Config].Subagents adds the subagent tool, which runs a child executor
// with its own round limit, read-only or with the parent's policy; its
// events arrive nested in [event.SubagentEvent]s and its final message is the
// tool result. Package agent/session persists conversations, memory and
// event logs next to the checkpoints, for resuming after a restart.
//
// # Events
//
// Every step is an [event.Event] delivered in order to one
// [event.Sink]: persist and display the same sequence and they cannot
// diverge. The event types, their JSON codec ([event.Marshal],
// [event.Unmarshal], [event.JSONLines]) and the sink live in package
// agent/event, which a user interface imports without the loop; a host
// imports both. [Executor.Events] adapts a run to an iter.Seq2.
package agent
