//go:build tetherfault && unix

package faultpoint

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

var (
	armed string // the point TETHER_FAULT names, "" for none
	nth   int64  = 1
	hits  atomic.Int64
)

func init() {
	armed = os.Getenv("TETHER_FAULT")
	if name, n, ok := strings.Cut(armed, "#"); ok {
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil || v < 1 {
			fmt.Fprintf(os.Stderr, "faultpoint: TETHER_FAULT=%q: want NAME or NAME#N with N ≥ 1\n", armed)
			os.Exit(2)
		}
		armed, nth = name, v
	}
}

// Reached kills the process with SIGKILL when name is the armed point and
// this is the time it was armed for.
func Reached(name string) {
	if armed == "" || name != armed || hits.Add(1) != nth {
		return
	}
	fmt.Fprintf(os.Stderr, "faultpoint: %s\n", name)
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way; nothing more may run
}
