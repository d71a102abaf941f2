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
// An approval page need not poll: Watch yields the pending list again
// each time a request is registered or settled in any process (a trigger
// on the request table notifies every board), within the poll interval
// when a notification is lost.
//
// Each board holds a lease in the database, renewed while it is open. A
// worker that dies (kill -9, a lost machine) stops renewing it: once it
// expires, its requests leave Pending and Watch, an answer to them is
// stale, and the next Sweep (every board runs one at each renewal)
// records them as abandoned, a deny, instead of leaving them listed until
// their deadline, or forever without one. Close abandons the board's own
// requests at once and denies their waiters.
//
//	board, _ := pgapproval.Open(ctx, dsn)          // in every process
//	mgr := &approval.Manager{Timeout: 10 * time.Minute}
//	cfg.Approver = board.Approver(mgr)             // the worker
//
//	for reqs, err := range board.Watch(ctx) {      // the UI process
//		// show reqs; on a click:
//		err = board.Resolve(ctx, reqs[0].ID, approval.Response{Choice: approval.AllowOnce})
//	}
package pgapproval
