package rules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRulesDeclareWhatTheyQuote: the catalogue quotes captured values only
// through rule.Quote, rule.QuoteJSON, rule.As and rule.Shown (which declare them
// for redaction), never with a %q verb or the quote package directly, and
// every cannot-judge reason is one of reasons.go's names.
func TestRulesDeclareWhatTheyQuote(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/mcpsleuth/mcpsleuth/pkg/quote" {
				t.Errorf("%s imports pkg/quote: quote values with rule.Quote/QuoteJSON/As, which declare them", name)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); n.Kind == token.STRING && err == nil && strings.Contains(strings.ReplaceAll(s, "%%", ""), "%q") {
					t.Errorf("%s: a %%q verb quotes a value without declaring it: %s", fset.Position(n.Pos()), n.Value)
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "CannotJudge" || len(n.Args) != 1 {
					return true
				}
				switch arg := n.Args[0].(type) {
				case *ast.Ident:
					if strings.HasPrefix(arg.Name, "reason") {
						return true
					}
				case *ast.CallExpr:
					if fn, ok := arg.Fun.(*ast.Ident); ok && fn.Name == "because" {
						return true
					}
				}
				t.Errorf("%s: CannotJudge with a reason not named in reasons.go", fset.Position(n.Pos()))
			}
			return true
		})
	}
}
