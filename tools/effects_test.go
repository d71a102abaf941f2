package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type urlArgs struct {
	URL string `json:"url"`
}

func TestRegistryEffectsCarriesSpecFlags(t *testing.T) {
	noop := func(context.Context, urlArgs) (Result, error) { return Text("ok"), nil }
	declareURL := WithEffects(func(_ context.Context, a urlArgs) (Effects, error) {
		e := Reading()
		e.URL = a.URL
		return e, nil
	})
	tests := []struct {
		name string
		tool Tool
		want Effects
	}{
		{"opaque open-world", New("fetch_a", "Fetch.", noop, ReadOnly(), OpenWorld()),
			Effects{Annotations: Annotations{ReadOnly: true, OpenWorld: true}}},
		{"opaque local", New("fetch_b", "Fetch.", noop, ReadOnly()),
			Effects{Annotations: Annotations{ReadOnly: true}}},
		{"declaring tool of an open-world spec", New("fetch_c", "Fetch.", noop, ReadOnly(), OpenWorld(), declareURL),
			Effects{Annotations: Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true}, Declared: true, URL: "https://example.com/"}},
		{"declaring tool of a local spec", New("fetch_d", "Fetch.", noop, ReadOnly(), declareURL),
			Effects{Annotations: Annotations{ReadOnly: true, Idempotent: true}, Declared: true, URL: "https://example.com/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Registry
			require.NoError(t, r.Register(tt.tool))
			call, err := r.Prepare(Call{Name: tt.tool.Describe().Name, Arguments: json.RawMessage(`{"url":"https://example.com/"}`)})
			require.NoError(t, err)
			got, err := r.Effects(context.Background(), call)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
