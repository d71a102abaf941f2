// Package worker holds what every multi-process store agrees on about the
// processes sharing it: how a process is named by default and how short a
// lease may be.
package worker

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"
)

// MinLeaseTTL is the shortest lease a process can renew in time: it renews
// every third of the lease, and a renewal is a database round trip.
const MinLeaseTTL = 100 * time.Millisecond

// DefaultName names this process among the workers sharing a store: the
// host name, the process id and a random suffix, so that two processes
// never share a name even when the host reuses a pid.
func DefaultName() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// CheckName refuses an empty worker name; pkg prefixes the error.
func CheckName(pkg, name string) error {
	if name == "" {
		return fmt.Errorf("%s: WithWorker(\"\"): give each worker a unique, non-empty name", pkg)
	}
	return nil
}

// CheckLeaseTTL refuses a lease too short to renew; pkg prefixes the error.
func CheckLeaseTTL(pkg string, ttl time.Duration) error {
	if ttl < MinLeaseTTL {
		return fmt.Errorf("%s: WithLeaseTTL(%v): too short to renew in time; use at least %v", pkg, ttl, MinLeaseTTL)
	}
	return nil
}
