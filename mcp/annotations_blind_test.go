package mcp

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/safety"
)

// TestBlindAnnotations holds decide to testdata/annotations.jsonl, cases
// written from the MCP specification's tool annotations before the change:
// annotations classify a tool, and never grant more than the host
// configured. readOnly is the tool's Spec.ReadOnly, which read-only modes
// and parallel runs rely on.
func TestBlindAnnotations(t *testing.T) {
	f, err := os.Open("testdata/annotations.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	total, right := 0, 0
	for n := 1; sc.Scan(); n++ {
		var c struct {
			Source     string               `json:"source"`
			Ann        *sdk.ToolAnnotations `json:"ann"`
			Rules      Rules                `json:"rules"`
			InheritEnv bool                 `json:"inheritEnv"`
			Want       string               `json:"want"`
			ReadOnly   bool                 `json:"readOnly"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		total++
		srv := &Client{cfg: ServerConfig{Name: "s", Rules: c.Rules, InheritEnv: c.InheritEnv}, rootsAt: newRootsState()}
		tool := srv.newTool("s__t", "t", "a tool", []byte(`{"type":"object"}`), c.Ann)
		dec, reasons := tool.Decision()
		var want safety.Decision
		switch c.Want {
		case "allow":
			want = safety.Allow
		case "confirm":
			want = safety.Confirm
		case "deny":
			want = safety.Deny
		default:
			t.Fatalf("line %d: want %q", n, c.Want)
		}
		if dec != want || tool.Describe().ReadOnly != c.ReadOnly {
			t.Errorf("line %d (%s): %v (read-only %v) %q; want %v (read-only %v)", n, c.Source, dec, tool.Describe().ReadOnly, reasons, want, c.ReadOnly)
			continue
		}
		right++
	}
	t.Logf("blind annotation cases: %d/%d right", right, total)
}
