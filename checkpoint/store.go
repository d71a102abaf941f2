package checkpoint

import (
	"context"
	"fmt"
	"io/fs"
	"time"
)

// State is the lifecycle of a checkpoint: open (accepting writes), kept
// (accepted; no more writes) or undone (every file restored).
type State string

const (
	StateOpen   State = "open"
	StateKept   State = "kept"
	StateUndone State = "undone"
)

// Info describes one checkpoint.
type Info struct {
	ID      string    `json:"id"`
	Session string    `json:"session"` // groups the checkpoints of one conversation or run
	Label   string    `json:"label"`   // free text for the UI ("turn 3", the user's prompt…)
	Created time.Time `json:"created"`
	State   State     `json:"state"`
	// Workspace is the root of the workspace the checkpoint was taken in,
	// when Files reports one (safety.Workspace does); Manager.Open refuses
	// a checkpoint of another workspace.
	Workspace string `json:"workspace,omitempty"`
}

// Image is the state of one path at one moment: absent, or a regular
// file whose content is the blob with Hash (lowercase hex sha256).
type Image struct {
	Exists bool
	Hash   string      // empty when !Exists
	Mode   fs.FileMode // permission bits (and ModeSymlink for a link the agent made); zero when !Exists
}

// Same reports whether two images have the same existence and content.
// Modes are ignored: a chmod alone is not a conflicting edit.
func (i Image) Same(o Image) bool {
	if i.Exists != o.Exists {
		return false
	}
	return !i.Exists || i.Hash == o.Hash
}

// Identical reports whether two images are the same file: existence,
// content and permission bits. A chmod is a change the agent can make
// (chmod +x) and undo must reverse, though it is no conflicting edit.
func (i Image) Identical(o Image) bool {
	return i.Same(o) && i.Mode == o.Mode
}

// FileStatus is what has happened to one file of a checkpoint.
type FileStatus string

const (
	FilePending FileStatus = "pending" // changed by the agent, not yet kept or undone
	FileKept    FileStatus = "kept"
	FileUndone  FileStatus = "undone"
)

// FileRecord is one file a checkpoint touched. Invariant: Pre is the file as
// it was before the agent's first mutation in this checkpoint (or the
// accepted baseline after AcceptHunk); Post is what the agent last wrote
// (absent after a delete or the source of a rename). Post is recorded
// before the write lands (write-ahead), with a pending Change that
// recovery settles after a crash.
type FileRecord struct {
	Checkpoint  string
	Path        string // slash-separated, workspace-relative
	Order       int64  // seq of the first change; files are listed in this order
	Pre         Image
	Post        Image
	Status      FileStatus
	Tainted     bool     // someone else changed the file between two agent writes
	RenamedFrom string   // set on the destination of a rename
	CreatedDirs []string // parent directories the agent's write created, outermost first
}

// Op is the kind of mutation a Change made.
type Op string

const (
	OpWrite  Op = "write"  // create or overwrite
	OpRemove Op = "remove" // delete
	OpRename Op = "rename" // From → Path
	OpRecord Op = "record" // a change made outside WriteFile, recorded afterwards
	// OpSnapshot marks a call in flight: its pre-images are taken and
	// whatever it changes is not recorded yet. It is always Pending; Record
	// drops it. One left behind (the process died, or the record could
	// not be saved) is settled from the disk: what the path holds then is
	// taken as the call's work, so undo still covers it. From names the
	// process that runs the call, so that only a dead one's is settled.
	OpSnapshot Op = "snapshot"
)

// Call identifies the tool call that made a change, for per-call stats and
// UI badges. The zero Call means "not attributed".
type Call struct {
	ID   string `json:"id,omitempty"`   // the model's tool call id
	Tool string `json:"tool,omitempty"` // tool name, e.g. "write_file"
}

// Change is one mutation, in order. Before and After are the images of
// Path around it; for a rename, FromBefore is the source's image before it
// (the source is absent after).
type Change struct {
	Checkpoint string
	Seq        int64
	Path       string
	From       string // rename source
	Op         Op
	Call       Call
	Before     Image
	After      Image
	FromBefore Image
	Pending    bool // recorded, write not yet confirmed
	Time       time.Time
}

// Batch is a set of writes a Store applies atomically: all or none, even
// when the process is killed during Commit.
type Batch struct {
	Blobs       map[string][]byte // hash → content; content-addressed, idempotent
	Files       []FileRecord      // upserted by (Checkpoint, Path)
	Changes     []Change          // upserted by (Checkpoint, Seq)
	DropChanges []int64           // seqs of changes to delete
	State       State             // if non-empty, the checkpoint's new state
}

// Belongs checks that every record of the batch is for checkpoint id, as
// a store must before committing it: a record filed under another
// checkpoint would be undone with the wrong run.
func (b Batch) Belongs(id string) error {
	for _, f := range b.Files {
		if f.Checkpoint != id {
			return fmt.Errorf("file record for %s belongs to checkpoint %q", f.Path, f.Checkpoint)
		}
	}
	for _, c := range b.Changes {
		if c.Checkpoint != id {
			return fmt.Errorf("change %d belongs to checkpoint %q", c.Seq, c.Checkpoint)
		}
	}
	return nil
}

// Store persists checkpoints. Implementations must be safe for concurrent
// use and apply each Commit atomically. NewMemoryStore and
// the stores in the sub-packages sqlitestore and pgstore pass the same
// conformance tests.
type Store interface {
	// Create records a new checkpoint.
	Create(ctx context.Context, info Info) error
	// Info returns the checkpoint, or an error wrapping ErrNotFound.
	Info(ctx context.Context, id string) (Info, error)
	// List returns the session's checkpoints, oldest first; session ""
	// lists all of them.
	List(ctx context.Context, session string) ([]Info, error)
	// Commit applies b to checkpoint id atomically.
	Commit(ctx context.Context, id string, b Batch) error
	// Blob returns the content with that hash, or an error wrapping ErrNotFound.
	Blob(ctx context.Context, hash string) ([]byte, error)
	// Files returns the checkpoint's file records in Order.
	Files(ctx context.Context, id string) ([]FileRecord, error)
	// Changes returns the checkpoint's changes in Seq order.
	Changes(ctx context.Context, id string) ([]Change, error)
	// Delete removes the checkpoint and every blob no other checkpoint uses.
	Delete(ctx context.Context, id string) error
	// Close releases the store.
	Close() error
}

var _ Store = (*MemoryStore)(nil)
