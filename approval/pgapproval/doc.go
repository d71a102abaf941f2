// Package pgapproval shares approval requests between processes through
// PostgreSQL (github.com/jackc/pgx/v5): a worker running an agent
// publishes each request its approval.Manager is waiting on, and any
// other process (a web page's backend, an operator's CLI) lists them and
// answers them.
//
// The worker keeps using an in-process approval.Manager, so its rules
// hold unchanged: validation, the timeout (a deny), cancellation, and the
// first answer winning. The database is the arbiter between processes: an
// answer is recorded only while the request is pending and its deadline
// has not passed, so exactly one of the answers and the timeout wins, and
// every later answer gets approval.ErrStale (an id never published gets
// approval.ErrUnknownRequest). Answers reach the waiting worker through
// LISTEN/NOTIFY, with a bounded poll as a fallback when a notification is
// lost (a dropped connection).
//
//	board, _ := pgapproval.Open(ctx, dsn)          // in every process
//	mgr := &approval.Manager{Timeout: 10 * time.Minute}
//	cfg.Approver = board.Approver(mgr)             // the worker
//
//	reqs, _ := board.Pending(ctx)                  // the UI process
//	err := board.Resolve(ctx, reqs[0].ID, approval.Response{Choice: approval.AllowOnce})
package pgapproval
