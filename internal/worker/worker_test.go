package worker

import (
	"strings"
	"testing"
	"time"
)

func TestDefaultNamesDiffer(t *testing.T) {
	a, b := DefaultName(), DefaultName()
	if a == b || !strings.Contains(a, "/") {
		t.Fatalf("DefaultName() gave %q and %q; want distinct host/pid/suffix names", a, b)
	}
}

func TestChecks(t *testing.T) {
	if err := CheckName("pkg", ""); err == nil || !strings.HasPrefix(err.Error(), "pkg: WithWorker") {
		t.Errorf("CheckName(\"\") = %v", err)
	}
	if err := CheckName("pkg", "w1"); err != nil {
		t.Errorf("CheckName(w1) = %v", err)
	}
	if err := CheckLeaseTTL("pkg", 99*time.Millisecond); err == nil || !strings.Contains(err.Error(), "at least 100ms") {
		t.Errorf("CheckLeaseTTL(99ms) = %v", err)
	}
	if err := CheckLeaseTTL("pkg", MinLeaseTTL); err != nil {
		t.Errorf("CheckLeaseTTL(min) = %v", err)
	}
}
