// Package pgstore keeps checkpoints in PostgreSQL (through
// github.com/jackc/pgx/v5), so that every worker of a fleet sharing the
// database can list, diff and undo the checkpoints any of them took, also
// after a worker restarts or dies.
//
// Pre-images are content-addressed blobs (sha256), stored once however
// many checkpoints refer to them, uncompressed so that large ones are read
// back in bounded slices rather than materialised twice. Commits are
// transactions; deleting a checkpoint prunes only the blobs nothing else
// refers to, and is serialised against commits so that a blob being
// committed is never pruned under it.
//
// The tables (tether_checkpoints, tether_checkpoint_blobs, …_files,
// …_changes) are created and migrated by Open; their prefix lets them live
// in an application's own database.
package pgstore
