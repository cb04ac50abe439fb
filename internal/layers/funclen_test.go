package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the codebase's limit on a function's length.
const maxFuncLines = 100

// tooLong are the functions over maxFuncLines still to be split, with
// their length: the list may only shrink (a new long function, or one
// that grew, fails; one split below the limit must be removed).
var tooLong = map[string]int{}

// TestNoFunctionOverLimit: no function (tests excepted) is longer than
// maxFuncLines lines, but those of tooLong.
func TestNoFunctionOverLimit(t *testing.T) {
	found := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "../.." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../..", p)
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
				if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
					found[filepath.ToSlash(rel)+" "+fd.Name.Name] = n
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range found {
		if was, ok := tooLong[name]; !ok || n > was {
			t.Errorf("%s is %d lines, over %d: split it", name, n, maxFuncLines)
		}
	}
	for name := range tooLong {
		if _, ok := found[name]; !ok {
			t.Errorf("%s is no longer over %d lines (or moved): remove it from tooLong", name, maxFuncLines)
		}
	}
}
