// Package storebench measures the checkpoint stores users run beside the
// shadow-git checkpoint other agents take (a separate git dir, git add -A
// && git commit after every edit), on one 10,000-file workspace in one
// run. It holds only benchmarks:
//
//	go test -run XXX -bench . -count 6 ./checkpoint/internal/storebench | tee new.txt
//	benchstat new.txt
//
// PostgreSQL comes from internal/pgtest (a private server, or the one
// TETHER_TEST_PG names); TETHER_BENCH_DIR puts the workspace elsewhere
// (/dev/shm measures without the disk's fsync latency).
package storebench
