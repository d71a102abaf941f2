// Package acp serves a Tether agent to an editor over the Agent Client
// Protocol (ACP): Zed, JetBrains IDEs, Neovim (CodeCompanion, avante.nvim),
// Emacs (agent-shell) and VS Code through ACP client extensions launch the
// agent as a process and talk JSON-RPC 2.0 on its standard input and output.
//
// The protocol is on one side, Tether's executor on the other:
//
//   - initialize negotiates the protocol version (this agent speaks 1 and
//     answers 1 to any other) and the capabilities; authenticate is offered
//     only when [Config.Auth] says the backend needs a key.
//   - session/new opens a session in the directory the editor names, with
//     the agent [Config.Open] builds there (the host's model, tools,
//     workspace and checkpoints) and the editor's MCP servers passed to it
//     in [SessionEnv]; session/load replays a stored session's turns as
//     session/update notifications before it answers, session/resume
//     reopens one without replaying it, and session/list lists the store's
//     sessions by directory.
//   - session/prompt runs one turn and streams it: agent_message_chunk and
//     agent_thought_chunk for the model's text and thinking, tool_call and
//     tool_call_update for each call (its kind derived from the effects the
//     tool declared: read, edit, delete, move, search, execute, think,
//     fetch; the files it touches as locations; the exact diff of an edit;
//     a command's output as it runs), plan for the todos skill. The
//     response's stopReason is mapped from Tether's.
//   - A confirm-level action becomes session/request_permission showing the
//     diff of exactly the bytes that will be written or the exact command,
//     with allow once, allow always (never for a critical action), reject
//     once and reject always; the answer goes back through the
//     approval.Approver of the session.
//   - session/cancel ends the turn: the model stream stops, the running
//     command's process group is killed, pending permission requests are
//     withdrawn, and the prompt answers "cancelled".
//   - Tether's modes (agent, explore, plan, review and the host's own) are
//     the session's modes; undo, review and compact are its slash commands.
//     /undo restores the files of the last turn through the path they were
//     written through.
//   - When the editor offers fs/read_text_file and fs/write_text_file,
//     [SessionEnv.Files] wraps the session's workspace so that the file
//     tools read unsaved buffers and write through the editor, and the
//     checkpoints take pre-images and undo the same way; confinement and
//     sensitivity apply first, as for any file.
//
// The JSON-RPC connection is this package's own: messages are handed to
// the dispatcher in the order they were read, so a session/cancel sent
// right behind its prompt always reaches it, and every malformed or
// out-of-order message gets the JSON-RPC error that names what was wrong,
// never ending the connection. The message types are those of
// github.com/coder/acp-go-sdk, generated from the protocol's schema.
//
// A host needs only Config.Open:
//
//	srv, err := acp.NewServer(acp.Config{
//		Open: func(ctx context.Context, env acp.SessionEnv) (*acp.Setup, error) {
//			ws, err := safety.OpenWorkspace(env.Cwd)
//			if err != nil {
//				return nil, err
//			}
//			reg := &tools.Registry{}
//			if _, err := builtin.Register(reg, ws, builtin.Options{}); err != nil {
//				return nil, err
//			}
//			return &acp.Setup{Agent: agent.Config{Model: model, Tools: reg, Workspace: ws},
//				Close: func() { ws.Close() }}, nil
//		},
//		Store: sessions, // agent/session/sqlitestore, so sessions survive a restart
//	})
//	...
//	err = srv.Serve(ctx, os.Stdin, os.Stdout)
//
// examples/tether-acp is such a host, with flags for the model, the database and
// the sandbox.
package acp
