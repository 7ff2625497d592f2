package clienv

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
)

func TestHostReadsTheEnvironment(t *testing.T) {
	t.Setenv(Home, "/mb-home")
	t.Setenv("MEMBENCH_EMBEDDER", "hashed")
	t.Setenv("CI", "true")
	if h := Host(context.Background()); h.Home != "/mb-home" || h.Embedder != "hashed" || !h.CI {
		t.Fatalf("Host(context.Background()) = %+v", h)
	}
	t.Setenv("CI", "")
	if h := Host(context.Background()); h.CI {
		t.Fatalf("CI empty but Host(context.Background()) = %+v", h)
	}
}

// Process-wide state on the run path is what let one run's settings leak
// into another's (issue 8). Outside tests, nothing may change the
// environment, and only the command line (cmd/, cmd/membench/) may read it,
// plus the exceptions below, each for a stated reason.
func TestEnvironmentOnlyAtTheEdge(t *testing.T) {
	root := testutil.RepoRoot(t)
	writes := map[string]bool{"Setenv": true, "Unsetenv": true, "Clearenv": true}
	reads := map[string]bool{"Getenv": true, "LookupEnv": true, "Environ": true, "ExpandEnv": true}
	// file -> the variable it may read ("" = any).
	exceptions := map[string]string{
		// API keys (api-key-env= names the variable) and OPENAI_BASE_URL
		// come from the environment only by design, so they never reach
		// the config, the artifacts or the logs.
		"llm/build.go": "",
		// A kernel switch for benchmarking, read once at start-up and never
		// changed; every kernel is tested against the same golden vectors.
		"embedder/uselite/gemm.go": "MEMBENCH_USELITE_GEMM",
	}
	mayRead := func(rel string, call *ast.CallExpr) bool {
		if strings.HasPrefix(rel, "cmd/") || strings.HasPrefix(rel, "cmd/membench/") {
			return true
		}
		v, ok := exceptions[rel]
		if !ok || v == "" {
			return ok
		}
		if call == nil || len(call.Args) != 1 {
			return false
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		return ok && lit.Value == strconv.Quote(v)
	}
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		osName := ""
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "os" {
				osName = "os"
				if imp.Name != nil {
					osName = imp.Name.Name
				}
			}
		}
		if osName == "" {
			return nil
		}
		var call *ast.CallExpr // the innermost call around the selector
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				call = c
			}
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if call != nil && call.Fun != sel {
				call = nil
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != osName {
				return true
			}
			at := fset.Position(sel.Pos())
			switch fn := sel.Sel.Name; {
			case writes[fn]:
				t.Errorf("%s:%d: os.%s outside a test changes process-wide state; pass the value down instead (see membench.Host)", rel, at.Line, fn)
			case reads[fn] && !mayRead(rel, call):
				t.Errorf("%s:%d: os.%s below the command line; read it in cmd/membench/clienv and pass it down in membench.Host", rel, at.Line, fn)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d Go files under %s; is this the repository root?", checked, root)
	}
}
