package agent

import "errors"

// Sentinel errors; test with errors.Is.
var (
	// ErrConfig: the Config cannot work; the message says which field.
	ErrConfig = errors.New("agent: invalid config")
	// ErrNoWorkspace: a file edit or command needs Config.Workspace.
	ErrNoWorkspace = errors.New("agent: no workspace configured: set Config.Workspace to let the agent edit files and run commands")
	// ErrReadOnlyMode: a read-only mode refused a tool that changes things.
	ErrReadOnlyMode = errors.New("agent: tool not allowed in a read-only mode")
	// ErrModeTool: a mode that offers only some tools refused another.
	ErrModeTool = errors.New("agent: tool not offered in this mode")
	// ErrDirtyTree: GitBranch refused to branch from uncommitted changes.
	ErrDirtyTree = errors.New("agent: the git working tree has uncommitted changes: commit or stash them, or set GitBranch.AllowDirty")
	// ErrNotGitRepo: GitBranch is set but the workspace is not in a git repository.
	ErrNotGitRepo = errors.New("agent: the workspace is not inside a git repository")
	// ErrEmptyPrompt: Run was given nothing to do.
	ErrEmptyPrompt = errors.New("agent: empty prompt: Input.Prompt (or Input.Images) must say what to do")
	// ErrSink: the event sink failed; the run stopped.
	ErrSink = errors.New("agent: event sink failed")
)
