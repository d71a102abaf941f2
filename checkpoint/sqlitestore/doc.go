// Package sqlitestore keeps checkpoints in a SQLite file (modernc.org/sqlite,
// pure Go), so that undo survives a restart of the process. It lives apart
// from package checkpoint so that importing the core links no database
// driver.
package sqlitestore
