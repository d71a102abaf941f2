// Package session persists agent conversations so that they survive a
// restart: each session's messages, its session memory and the ordered
// log of every event its turns emitted.
//
// A [Manager] creates, opens, lists and deletes sessions and runs their
// turns with an agent.Executor built from one Config:
//
//	db := filepath.Join(stateDir, "tether.db")
//	cps, _ := checkpoint.OpenSQLite(ctx, db)      // pre-images for undo
//	sessions, _ := session.OpenSQLite(ctx, db)    // the same file
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
// unrecorded. A turn's conversation is saved even when it failed or was
// cancelled.
//
// A session belongs to the workspace it was created in: a Manager lists,
// opens and deletes only the sessions of its Config.Workspace, so one
// database can serve several projects without resuming a session in the
// wrong tree (ErrOtherWorkspace).
//
// Sessions live in the same SQLite file as the checkpoints, in their own
// tables with their own schema version, through their own connection
// (the checkpoint package does not expose its handle); both use WAL mode
// and a busy timeout, so they share the file safely. [MemoryStore] is
// the in-memory Store for tests.
package session
