// Package sqlitestore keeps agent sessions (conversation, memory, event
// log and the lease of the worker running a turn) in a SQLite file
// (modernc.org/sqlite, pure Go), usually the file that also holds the
// checkpoints (package checkpoint/sqlitestore), so that one database
// holds a session and the pre-images that undo its edits. It lives apart
// from package session so that importing the core links no driver.
//
// Several processes may open the same file: writes are serialised by
// SQLite, and a session's lease row keeps two of them from running turns
// in one session at once.
package sqlitestore
