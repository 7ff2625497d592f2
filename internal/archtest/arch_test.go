package archtest

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/membench/membench"

type pkg struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	Imports      []string
	Deps         []string
	TestImports  []string
	XTestImports []string
}

// listPackages runs `go list -json ./...` from the module root.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found only %d packages; is the test running inside the module?", len(pkgs))
	}
	return pkgs
}

func rel(importPath string) string {
	return strings.TrimPrefix(strings.TrimPrefix(importPath, module), "/")
}

func under(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// cliImports lists the cmd/membench packages p imports (tests included)
// when p is neither a command nor part of the CLI.
func cliImports(p pkg) []string {
	r := rel(p.ImportPath)
	if under(r, "cmd") || under(r, "cmd/membench") {
		return nil
	}
	var bad []string
	for _, list := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
		for _, imp := range list {
			if under(rel(imp), "cmd/membench") && strings.HasPrefix(imp, module) {
				bad = append(bad, imp)
			}
		}
	}
	return bad
}

// readers are the packages that only read finished runs (through runlog):
// they must not depend on the engine, even transitively.
var readers = []string{"analysis", "audit", "peers", "plot", "prereg", "rejudge"}

func TestOnlyTheCommandLineImportsInternalCLI(t *testing.T) {
	for _, p := range listPackages(t) {
		bad := cliImports(p)
		if len(bad) > 0 {
			t.Errorf("%s imports %s: only cmd/ and cmd/membench may; return a badinput error or move the code into a library package", rel(p.ImportPath), strings.Join(bad, ", "))
		}
	}
}

func TestReadersDoNotDependOnTheEngine(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range listPackages(t) {
		r := rel(p.ImportPath)
		for _, reader := range readers {
			if !under(r, reader) {
				continue
			}
			seen[reader] = true
			for _, d := range p.Deps {
				if d == module+"/harness" || strings.HasPrefix(d, module+"/harness/") {
					t.Errorf("%s depends on %s (via its imports %v); readers read runs through runlog", r, rel(d), p.Imports)
				}
				if sys := rel(d); under(sys, "systems") && sys != "systems" && sys != "systems/selector" {
					t.Errorf("%s depends on the memory system %s (via its imports %v); readers read what a system wrote from the run's files (the audits read memory.jsonl themselves)", r, sys, p.Imports)
				}
			}
		}
	}
	for _, reader := range readers {
		if !seen[reader] {
			t.Errorf("reader package %s not found; update the list in this test", reader)
		}
	}
}

// leafUtilities are the membench packages the bottom layers (the root
// package membench and the run log) may depend on, directly or not: each
// depends on none but others of this list. This list only shrinks.
var leafUtilities = []string{"internal/badinput", "internal/jsonl", "internal/names", "internal/redact"}

// root is the root package membench, the run's vocabulary, as rel gives it.
const root = ""

// show names a package for a message: the root package is "membench".
func show(r string) string {
	if r == root {
		return "membench"
	}
	return r
}

// violations lists the membench packages p depends on (as go list -deps
// shows them) beyond allowed, saying whether p imports each itself.
func violations(p pkg, allowed []string) []string {
	var bad []string
	for _, d := range p.Deps {
		r := rel(d)
		if (d != module && !strings.HasPrefix(d, module+"/")) || slices.Contains(allowed, r) {
			continue
		}
		if slices.Contains(p.Imports, d) {
			bad = append(bad, "imports "+show(r))
		} else {
			bad = append(bad, "depends on "+show(r))
		}
	}
	return bad
}

// The root package is the bottom layer: the run's types and vocabulary,
// below the run log and every package that speaks them (llm, systems,
// judge, datasets), importing leaf utilities only.
func TestTheRootPackageIsTheBottom(t *testing.T) {
	checked := map[string]bool{}
	for _, p := range listPackages(t) {
		r := rel(p.ImportPath)
		if r != root && !slices.Contains(leafUtilities, r) {
			continue
		}
		checked[r] = true
		for _, v := range violations(p, leafUtilities) {
			if r == root {
				t.Errorf("membench (the root package) %s: it holds the run's vocabulary below every other package; move the code that needs %s to that package, or the type it needs here", v, v[strings.LastIndex(v, " ")+1:])
			} else {
				t.Errorf("%s %s: the bottom layers use it as a leaf utility, which depends on no membench package but the others of leafUtilities", r, v)
			}
		}
	}
	if !checked[root] {
		t.Error("the root package membench not found; update this test")
	}
	for _, u := range leafUtilities {
		if !checked[u] {
			t.Errorf("leaf utility %s not found; drop it from leafUtilities", u)
		}
	}
}

// storeImports is what the store itself imports of the module: the
// vocabulary it records, the JSON-lines scanner it reads with, and the
// bad-input error for a manifest of a newer schema.
var storeImports = []string{root, "internal/jsonl", "internal/badinput"}

// The run log is the store, on the root package: it records the run's
// types, depends on nothing above them, and imports only storeImports.
func TestRunlogSitsOnTheRootPackage(t *testing.T) {
	found := false
	for _, p := range listPackages(t) {
		if rel(p.ImportPath) != "runlog" {
			continue
		}
		found = true
		for _, v := range violations(p, append([]string{root}, leafUtilities...)) {
			t.Errorf("runlog %s: the run log is the store, below every package that writes or reads runs; define the type in the root package membench, move the code that needs %s to its user (bundle, summary, harness, analysis), or record what readers need in the manifest", v, v[strings.LastIndex(v, " ")+1:])
		}
		for _, imp := range p.Imports {
			if r := rel(imp); (imp == module || strings.HasPrefix(imp, module+"/")) && !slices.Contains(storeImports, r) {
				t.Errorf("runlog imports %s: the store appends, locks, reads and writes records; the computation that needs %s belongs to its user (summary, analysis, harness)", show(r), show(r))
			}
		}
	}
	if !found {
		t.Error("package runlog not found; update this test")
	}
}

// The packages that used to live in harness: the engine depends on none
// of those that do work of their own (estimate, replay, scoring and shards
// build on it or beside it), and those it uses or that read finished runs
// (progress, shards, stamp) depend on nothing of the engine.
var (
	notTheEngine     = []string{"estimate", "replay", "scoring", "shards"}
	withoutTheEngine = []string{"progress", "shards", "internal/stamp"}
)

// The engine is only the engine: it runs a plan, and what estimates,
// replays, scores, merges or shows progress lives in packages named for it.
func TestTheEngineIsOnlyTheEngine(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range listPackages(t) {
		r := rel(p.ImportPath)
		seen[r] = true
		for _, d := range p.Deps {
			dep := rel(d)
			if !strings.HasPrefix(d, module+"/") {
				continue
			}
			if r == "harness" && slices.Contains(notTheEngine, dep) {
				t.Errorf("harness depends on %s: the engine runs a plan; %s builds on it, not the other way round", dep, dep)
			}
			if slices.Contains(withoutTheEngine, r) && under(dep, "harness") {
				t.Errorf("%s depends on %s (via its imports %v): it needs nothing of the engine; pass it what it uses", r, dep, p.Imports)
			}
		}
	}
	for _, want := range slices.Concat([]string{"harness"}, notTheEngine, withoutTheEngine) {
		if !seen[want] {
			t.Errorf("package %s not found; update the lists in this test", want)
		}
	}
}

// envCalls returns "file:line os.Func(arg)" for each call in src that reads
// or writes a MEMBENCH_* variable: a literal name, or a constant whose
// name is in envConsts (constants declared anywhere as "MEMBENCH_...").
// os.Setenv and os.Unsetenv are reported whatever the name: nothing outside
// tests may change the process environment.
func envCalls(fset *token.FileSet, file *ast.File, envConsts map[string]bool) []string {
	osName := ""
	for _, imp := range file.Imports {
		if imp.Path.Value == `"os"` {
			osName = "os"
			if imp.Name != nil {
				osName = imp.Name.Name
			}
		}
	}
	if osName == "" {
		return nil
	}
	var found []string
	ast.Inspect(file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != osName {
			return true
		}
		fn := sel.Sel.Name
		switch fn {
		case "Setenv", "Unsetenv", "Clearenv":
			found = append(found, fset.Position(call.Pos()).String()+" os."+fn)
		case "Getenv", "LookupEnv":
			if len(call.Args) == 1 && namesMembenchVar(call.Args[0], envConsts) {
				arg := "…"
				if lit, ok := call.Args[0].(*ast.BasicLit); ok {
					arg = lit.Value
				}
				found = append(found, fset.Position(call.Pos()).String()+" os."+fn+"("+arg+")")
			}
		}
		return true
	})
	return found
}

func namesMembenchVar(e ast.Expr, envConsts map[string]bool) bool {
	switch a := e.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(a.Value)
		return err == nil && strings.HasPrefix(s, "MEMBENCH_")
	case *ast.Ident:
		return envConsts[a.Name]
	case *ast.SelectorExpr:
		return envConsts[a.Sel.Name]
	case *ast.BinaryExpr: // "MEMBENCH_" + name
		return namesMembenchVar(a.X, envConsts)
	}
	return false
}

// membenchConsts collects the names of constants whose value is a
// "MEMBENCH_..." string literal.
func membenchConsts(file *ast.File, into map[string]bool) {
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING && i < len(vs.Names) {
					if s, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(s, "MEMBENCH_") {
						into[vs.Names[i].Name] = true
					}
				}
			}
		}
	}
}

// knownEnvReads are reads left in a library on purpose, keyed by file (from
// the module root) and call. TODO: pass the kernel choice down from the
// edge like the embedder; it is read once at init and only picks between
// matrix kernels that are tested to agree (cosine >= 0.99999).
var knownEnvReads = map[string]string{
	`embedder/uselite/gemm.go os.Getenv("MEMBENCH_USELITE_GEMM")`: "benchmark switch to the gonum kernel (MEMBENCH_USELITE_GEMM=gonum)",
}

// knownKey turns "/abs/path/file.go:12:3 os.Getenv(...)" into the key
// of knownEnvReads whose file the path ends with ("" when none), so the
// list holds paths from the repository root.
func knownKey(call string) string {
	pos, fn, _ := strings.Cut(call, " ")
	file := pos
	if i := strings.Index(pos, ".go:"); i >= 0 {
		file = pos[:i+3]
	}
	for k := range knownEnvReads {
		kf, kfn, _ := strings.Cut(k, " ")
		if kfn == fn && strings.HasSuffix(file, "/"+kf) {
			return k
		}
	}
	return ""
}

func TestMembenchEnvOnlyAtTheEdge(t *testing.T) {
	fset := token.NewFileSet()
	type parsed struct {
		pkg  string
		file *ast.File
	}
	var files []parsed
	envConsts := map[string]bool{}
	for _, p := range listPackages(t) {
		for _, name := range p.GoFiles { // non-test files only
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			membenchConsts(f, envConsts)
			files = append(files, parsed{rel(p.ImportPath), f})
		}
	}
	if !envConsts["Home"] || !envConsts["EnvEmbedder"] {
		t.Fatalf("expected the MEMBENCH_HOME and MEMBENCH_EMBEDDER constants, found %v", envConsts)
	}
	for _, f := range files {
		calls := envCalls(fset, f.file, envConsts)
		if f.pkg == "cmd/membench/clienv" {
			// The edge may read, never write.
			var writes []string
			for _, c := range calls {
				if strings.Contains(c, " os.Getenv(") || strings.Contains(c, " os.LookupEnv(") {
					continue
				}
				writes = append(writes, c)
			}
			calls = writes
		}
		for _, c := range calls {
			if why, ok := knownEnvReads[knownKey(c)]; ok {
				t.Logf("known exception %s: %s", c, why)
				continue
			}
			t.Errorf("%s: MEMBENCH_* variables are read only in cmd/membench/clienv and set nowhere outside tests; pass the value down (membench.Host)", c)
		}
	}
}

// The checks must be able to fail: feed them sources that break each rule.
func TestChecksCatchViolations(t *testing.T) {
	if got := cliImports(pkg{ImportPath: module + "/harness", Imports: []string{module + "/cmd/membench/clierr"}}); len(got) != 1 {
		t.Errorf("harness importing clierr not caught: %v", got)
	}
	if got := cliImports(pkg{ImportPath: module + "/systems/adapter", XTestImports: []string{module + "/cmd/membench/clierr"}}); len(got) != 1 {
		t.Errorf("a test importing clierr not caught: %v", got)
	}
	if got := cliImports(pkg{ImportPath: module + "/cmd/membench/run", Imports: []string{module + "/cmd/membench/clierr"}}); len(got) != 0 {
		t.Errorf("cmd/membench importing itself flagged: %v", got)
	}
	if got := cliImports(pkg{ImportPath: module + "/internal/client", Imports: []string{module + "/internal/clix"}}); len(got) != 0 {
		t.Errorf("a name merely starting with cli flagged: %v", got)
	}
	runlogMay := append([]string{root}, leafUtilities...)
	if got := violations(pkg{ImportPath: module + "/runlog", Imports: []string{module + "/llm", "fmt", module + "/internal/jsonl", module},
		Deps: []string{"fmt", module + "/llm", module + "/internal/tokens", module + "/internal/jsonl", module}}, runlogMay); !slices.Equal(got, []string{"imports llm", "depends on internal/tokens"}) {
		t.Errorf("runlog importing llm (and through it internal/tokens): %v, want those two violations and none for internal/jsonl or the root package", got)
	}
	if got := violations(pkg{ImportPath: module, Imports: []string{module + "/runlog", module + "/internal/names"},
		Deps: []string{module + "/runlog", module + "/internal/names", module + "/internal/jsonl"}}, leafUtilities); !slices.Equal(got, []string{"imports runlog"}) {
		t.Errorf("the root package importing runlog: %v, want that one violation", got)
	}
	if got := violations(pkg{ImportPath: module + "/internal/jsonl", Imports: []string{module}, Deps: []string{module}}, leafUtilities); !slices.Equal(got, []string{"imports membench"}) {
		t.Errorf("a leaf utility importing the root package: %v, want that one violation", got)
	}
	if got := violations(pkg{ImportPath: module + "/internal/names", Imports: []string{module + "/internal/badinput"}, Deps: []string{module + "/internal/badinput"}}, leafUtilities); len(got) != 0 {
		t.Errorf("a leaf utility importing another flagged: %v", got)
	}
	if got := violations(pkg{ImportPath: module + "/internal/jsonl", Imports: []string{module + "/datasets"}, Deps: []string{module + "/datasets", module + "/internal/badinput"}}, leafUtilities); len(got) != 1 {
		t.Errorf("a leaf utility importing datasets: %v, want 1 violation", got)
	}
	src := `package x

import (
	"os"
	e "github.com/membench/membench/embedder"
)

const home = "MEMBENCH_HOME"

func f() {
	os.Setenv("PATH", "x")
	_ = os.Getenv("MEMBENCH_EMBEDDER")
	_ = os.Getenv(home)
	_, _ = os.LookupEnv(e.EnvEmbedder)
	_ = os.Getenv("HOME")
	_ = os.Getenv("MEMBENCH_" + "X")
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]bool{"EnvEmbedder": true}
	membenchConsts(f, consts)
	got := envCalls(fset, f, consts)
	if len(got) != 5 {
		t.Errorf("envCalls found %d calls, want 5 (Setenv, two Getenv, LookupEnv, concatenation): %v", len(got), got)
	}
	if k := knownKey("/work/x/embedder/uselite/gemm.go:43:21 os.Getenv(\"MEMBENCH_USELITE_GEMM\")"); knownEnvReads[k] == "" {
		t.Errorf("the gemm switch's read is not matched to the exception list (key %q)", k)
	}
	if k := knownKey("/work/x/embedder/default.go:9:2 os.Getenv(\"MEMBENCH_EMBEDDER\")"); knownEnvReads[k] != "" {
		t.Errorf("knownKey(%q) excused a read that is not excused", k)
	}
}
