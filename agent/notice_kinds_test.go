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
	parse := func(pattern string) []*ast.File {
		names, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		var out []*ast.File
		for _, name := range names {
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
			out = append(out, f)
		}
		return out
	}
	constSpecs := func(files []*ast.File, visit func(*ast.ValueSpec)) {
		for _, f := range files {
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
					for _, s := range g.Specs {
						visit(s.(*ast.ValueSpec))
					}
				}
			}
		}
	}
	// The kinds are declared, typed and documented, in package event;
	// agent names them as event.NoticeX.
	declared := map[string]bool{} // constant name → documented
	constSpecs(parse("event/*.go"), func(vs *ast.ValueSpec) {
		if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "NoticeKind" {
			for _, n := range vs.Names {
				declared[n.Name] = vs.Doc != nil || vs.Comment != nil
			}
		}
	})
	parsed := parse("*.go")
	if len(declared) == 0 {
		t.Fatal("no NoticeKind constants found")
	}
	emitted := 0
	check := func(pos token.Pos, e ast.Expr) {
		emitted++
		if id, ok := e.(*ast.Ident); ok && id.Name == "kind" {
			return // note's own parameter, checked at its callers
		}
		name, ok := eventName(e)
		switch {
		case !ok:
			t.Errorf("%s: a Notice kind written as %T, not an event.NoticeKind constant", fset.Position(pos), e)
		case !strings.HasPrefix(name, "Notice"):
			t.Errorf("%s: Notice kind event.%s is not a NoticeKind constant", fset.Position(pos), name)
		default:
			documented, ok := declared[name]
			if !ok {
				t.Errorf("%s: event.%s is not declared as a NoticeKind", fset.Position(pos), name)
			} else if !documented {
				t.Errorf("NoticeKind %s has no comment saying what it reports", name)
			}
		}
	}
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if name, ok := eventName(n.Type); ok && name == "Notice" {
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

// eventName returns X for an expression written event.X.
func eventName(e ast.Expr) (string, bool) {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || pkg.Name != "event" {
		return "", false
	}
	return sel.Sel.Name, true
}
