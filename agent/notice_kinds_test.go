package agent

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every Notice the agent emits names a documented NoticeKind constant, so
// a UI can switch on Kind knowing the whole set: the package's source is
// read, each Notice{Kind: …} literal and each r.note(…) call is checked.
func TestEmittedNoticeKindsAreDocumentedConstants(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{} // constant name → documented
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "NoticeKind" {
					for _, n := range vs.Names {
						declared[n.Name] = vs.Doc != nil || vs.Comment != nil
					}
				}
			}
		}
	}
	if len(declared) == 0 {
		t.Fatal("no NoticeKind constants found")
	}
	emitted := 0
	check := func(pos token.Pos, e ast.Expr) {
		emitted++
		id, ok := e.(*ast.Ident)
		switch {
		case ok && id.Name == "kind": // note's own parameter, checked at its callers
		case !ok:
			t.Errorf("%s: a Notice kind written as %T, not a NoticeKind constant", fset.Position(pos), e)
		case !strings.HasPrefix(id.Name, "Notice"):
			t.Errorf("%s: Notice kind %s is not a NoticeKind constant", fset.Position(pos), id.Name)
		default:
			documented, ok := declared[id.Name]
			if !ok {
				t.Errorf("%s: %s is not declared as a NoticeKind", fset.Position(pos), id.Name)
			} else if !documented {
				t.Errorf("NoticeKind %s has no comment saying what it reports", id.Name)
			}
		}
	}
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "Notice" {
					for _, el := range n.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok && kv.Key.(*ast.Ident).Name == "Kind" {
							check(kv.Pos(), kv.Value)
						}
					}
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "note" && len(n.Args) == 2 {
					check(n.Pos(), n.Args[0])
				}
			}
			return true
		})
	}
	if emitted < len(declared) {
		t.Errorf("found %d places that emit a Notice for %d kinds; the scan misses some", emitted, len(declared))
	}
}
