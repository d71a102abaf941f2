package session_test

import (
	"testing"

	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/internal/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Session(t, func(t *testing.T) session.Store { return session.NewMemoryStore() })
}
