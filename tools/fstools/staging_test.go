package fstools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/tools"
)

// TestStagingToolsDirect: the preview tools stage without writing and
// return the token and diff as metadata beside the prose; apply writes
// once; each declares what it does (Stage, ApplyToken and the file).
func TestStagingToolsDirect(t *testing.T) {
	ws, dir := newWS(t, map[string]string{"app.txt": "colour = red\n"})
	reg := &tools.Registry{}
	if err := reg.Register(Staging(ws, approval.NewStager(ws, approval.StagerConfig{}))...); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	call := func(name string, args any) tools.Call {
		b, _ := json.Marshal(args)
		c, err := reg.Prepare(tools.Call{Name: name, Arguments: b})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	edit := call(PreviewEditName, map[string]string{"path": "app.txt", "old_text": "red", "new_text": "blue"})
	eff, err := reg.Effects(ctx, edit)
	if err != nil || !eff.Stage || len(eff.Changes) != 1 || string(eff.Changes[0].After) != "colour = blue\n" {
		t.Fatalf("preview_edit_file effects = %+v, %v; want a staged change to blue", eff, err)
	}
	if title := reg.Title(edit, eff); title.Running != "Staging app.txt" || title.Kind != tools.KindEdit {
		t.Errorf("title = %+v", title)
	}
	res := reg.Execute(ctx, edit)
	tok, _ := res.Metadata["token"].(string)
	if res.IsError || !strings.HasPrefix(tok, "chg_") || !strings.Contains(res.Metadata["diffPreview"].(string), "+colour = blue") {
		t.Fatalf("preview result = %+v", res)
	}
	if _, legacy := res.Metadata["legacyTranslated"]; legacy || !strings.Contains(res.Text, tok) {
		t.Errorf("a preview is not a translated write, and its prose names the token: %q %v", res.Text, res.Metadata)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "app.txt")); string(b) != "colour = red\n" {
		t.Fatalf("the preview wrote the file: %q", b)
	}

	apply := call(ApplyChangeName, map[string]string{"token": tok})
	eff, err = reg.Effects(ctx, apply)
	if err != nil || eff.ApplyToken != tok || len(eff.Writes) != 1 || eff.Writes[0] != "app.txt" {
		t.Fatalf("apply effects = %+v, %v", eff, err)
	}
	if res := reg.Execute(ctx, apply); res.IsError || res.Metadata["applied"] != true {
		t.Fatalf("apply = %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "app.txt")); string(b) != "colour = blue\n" {
		t.Fatalf("after apply: %q", b)
	}
	// A used token is refused when declared, with what to do instead.
	if _, err := reg.Effects(ctx, apply); !errors.Is(err, approval.ErrTokenUsed) || !strings.Contains(err.Error(), PreviewWriteName) {
		t.Errorf("reused token: %v", err)
	}
	if res := reg.Execute(ctx, apply); !res.IsError {
		t.Errorf("reused token applied again: %+v", res)
	}
	if _, err := reg.Effects(ctx, call(ApplyChangeName, map[string]string{"token": ""})); err == nil || !strings.Contains(err.Error(), "metadata.token") {
		t.Errorf("empty token: %v", err)
	}
}
