// Package session persists agent conversations so that they survive a
// restart: each session's messages, its session memory and the ordered
// log of every event its turns emitted.
//
// A [Manager] creates, opens, lists and deletes sessions and runs their
// turns with an agent.Executor built from one Config:
//
//	db := filepath.Join(stateDir, "tether.db")
//	cps, _ := cpsqlite.Open(ctx, db)           // checkpoint/sqlitestore: pre-images for undo
//	sessions, _ := sqlitestore.Open(ctx, db)   // agent/session/sqlitestore: the same file
//	mgr, _ := session.NewManager(sessions, agent.Config{Model: m, Tools: reg, Workspace: ws, Checkpoints: cpManager})
//
//	s, _ := mgr.Create(ctx, "Fix the flaky test")
//	res, err := s.Run(ctx, agent.Input{Prompt: "Fix TestRetry"})
//
//	// Later, in another process:
//	s, _ = mgr.Open(ctx, id)
//	for ev, err := range s.Events(ctx, 0) { … }   // replay the UI
//	res, err = s.Run(ctx, agent.Input{Prompt: "Now add a test"})
//
// Every event is persisted before the host's sink sees it, so a UI
// rebuilt from Events shows what it showed live, and a sink or storage
// failure stops the turn at its next safe point instead of carrying on
// unrecorded. A turn's conversation and memory are saved before each model
// call after the first and when the turn ends, even when it failed or was
// cancelled: the turn after a worker was killed mid-turn continues from
// the iterations that worker completed.
//
// A session belongs to the workspace it was created in: a Manager lists,
// opens and deletes only the sessions of its Config.Workspace, so one
// database can serve several projects without resuming a session in the
// wrong tree (ErrOtherWorkspace).
//
// Stores with database drivers live in sub-packages, so that importing
// session links none: sqlitestore keeps sessions in the SQLite file that
// also holds the checkpoints, in their own tables with their own schema
// version; pgstore keeps them in PostgreSQL for a fleet of workers.
// [MemoryStore] is the in-memory Store for tests.
//
// A turn holds a lease on its session in the store, renewed while it
// runs: two workers sharing a store never run one session at once (the
// second gets a *LeaseError), and a worker that dies without releasing
// it is replaced once the lease expires ([WithLeaseTTL]).
package session
