package approval

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tetherdev/tether/safety"
)

func TestRequestJSONRoundTrip(t *testing.T) {
	req := Request{
		ID: "req_1", Kind: KindFileEdit, ToolName: "apply_file_change", Path: "/ws/.env", Token: "chg_1",
		Decision: safety.Confirm, Severity: safety.SeverityHigh, Reasons: []string{"matches **/.env"},
		Diff: "-A=1\n+A=2\n", Added: 1, Removed: 1,
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kind":"file_edit"`, `"decision":"confirm"`, `"severity":"high"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	var back Request
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Kind != req.Kind || back.Decision != req.Decision || back.Path != req.Path || back.Reasons[0] != req.Reasons[0] {
		t.Errorf("round trip = %+v", back)
	}

	resp := Response{Choice: AllowSession, Rule: req.Rule()}
	b, _ = json.Marshal(resp)
	var rback Response
	if err := json.Unmarshal(b, &rback); err != nil || rback != resp {
		t.Errorf("response round trip %s → %+v, %v", b, rback, err)
	}
	if err := json.Unmarshal([]byte(`{"choice":"maybe"}`), &rback); err == nil {
		t.Error("unknown choice accepted")
	}
	var k Kind
	if err := k.UnmarshalText([]byte("shell")); err == nil {
		t.Error("unknown kind accepted")
	}
	if Kind(7).String() != "Kind(7)" || Choice(-1).String() != "Choice(-1)" {
		t.Error("String of out-of-range values")
	}
}

func TestRequestSubjectAndRule(t *testing.T) {
	for _, tt := range []struct {
		req  Request
		want string
	}{
		{Request{Kind: KindCommand, Command: "ls", Path: "x", Summary: "y"}, "ls"},
		{Request{Kind: KindFileEdit, Command: "ls", Path: "x", Summary: "y"}, "x"},
		{Request{Kind: KindOther, Command: "ls", Path: "x", Summary: "y"}, "y"},
	} {
		if got := tt.req.Subject(); got != tt.want {
			t.Errorf("%v Subject = %q", tt.req.Kind, got)
		}
		if r := tt.req.Rule(); r.Subject != tt.want || r.Kind != tt.req.Kind {
			t.Errorf("Rule = %+v", r)
		}
	}
	r := Rule{Kind: KindCommand, Subject: "a\u202eb"}
	if got := r.String(); got != "any tool command: `a\\u202eb`" {
		t.Errorf("Rule.String = %q", got)
	}
}
