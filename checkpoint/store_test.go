package checkpoint_test

import (
	"testing"

	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/internal/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Checkpoint(t, func(t *testing.T) checkpoint.Store { return checkpoint.NewMemoryStore() })
}
