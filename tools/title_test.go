package tools

import (
	"context"
	"encoding/json"
	"testing"
)

// TestTitles: a tool's own title wins, a partial one is completed, and a
// tool without one gets the default naming the file it declares.
func TestTitles(t *testing.T) {
	type args struct {
		Path string `json:"path"`
	}
	noop := func(context.Context, args) (Result, error) { return Text("ok"), nil }
	reg := &Registry{}
	err := reg.Register(
		New("peek", "Peek.", noop, ReadOnly(), WithPathTitle("Peeking at ", "Peeked at ", "Peek at ", KindRead)),
		Func{Spec: Spec{Name: "ping"}, Run: func(context.Context, Call) (Result, error) { return Text("pong"), nil },
			Titles: func(Call, Effects) Title { return Title{Running: "Pinging"} }},
		Func{Spec: Spec{Name: "plain"}, Run: func(context.Context, Call) (Result, error) { return Text(""), nil }},
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		eff  Effects
		want Title
	}{
		{"peek", Reading("src/main.go"), Title{Running: "Peeking at main.go", Done: "Peeked at main.go", Order: "Peek at main.go", Kind: KindRead}},
		{"ping", Effects{}, Title{Running: "Pinging", Done: "Pinging", Order: "Pinging"}},
		{"plain", Effects{Writes: []string{"a/b.txt"}}, Title{Running: "Running plain on b.txt", Done: "Ran plain on b.txt", Order: "Run plain on b.txt", Kind: KindEdit}},
		{"plain", Effects{Command: "ls"}, Title{Running: "Running plain", Done: "Ran plain", Order: "Run plain", Kind: KindCommand}},
		{"unknown", Effects{}, Title{Running: "Running unknown", Done: "Ran unknown", Order: "Run unknown"}},
	} {
		if got := reg.Title(Call{Name: tc.name, Arguments: json.RawMessage(`{}`)}, tc.eff); got != tc.want {
			t.Errorf("Title(%s, %+v) = %+v, want %+v", tc.name, tc.eff, got, tc.want)
		}
	}
	if got := Shorten("  go test ./...\nmore", 80); got != "go test ./..." {
		t.Errorf("Shorten keeps the first line: %q", got)
	}
	if got := (Call{Arguments: json.RawMessage(`{"q":"x","n":1}`)}).StringArg("q"); got != "x" {
		t.Errorf("StringArg = %q", got)
	}
}

// TestGuidance: the lines tools give a prompt section, in registration
// order, and none for a section nobody fills.
func TestGuidance(t *testing.T) {
	type args struct{}
	noop := func(context.Context, args) (Result, error) { return Text(""), nil }
	reg := &Registry{}
	if err := reg.Register(New("b", "B.", noop, WithGuidance(SectionRules, "rule b")),
		New("a", "A.", noop, WithGuidance(SectionRules, "rule a"), WithGuidance(SectionSearch, "tip a"))); err != nil {
		t.Fatal(err)
	}
	if got := reg.Guidance(SectionRules); len(got) != 2 || got[0] != "rule b" || got[1] != "rule a" {
		t.Errorf("rules = %q", got)
	}
	if got := reg.Guidance(SectionNavigation); got != nil {
		t.Errorf("navigation = %q, want none", got)
	}
}
