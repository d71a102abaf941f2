// Package pgstore keeps agent sessions in PostgreSQL (through
// github.com/jackc/pgx/v5): their info, conversation, memory, event log
// and the lease of the worker running a turn, so that any worker of a
// fleet can resume, replay or continue any session, and no two run one
// session at once.
//
// Events are numbered per session by a counter on the session's row,
// whose row lock serialises concurrent appends, so sequence numbers stay
// dense and ordered whichever worker writes. The tables carry a tether_
// prefix so that they can live in an application's own database.
package pgstore
