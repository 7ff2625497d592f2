package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	_ "github.com/membench/membench/datasets/all"

	"github.com/membench/membench"
	"github.com/membench/membench/examples/bm25memory"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/systems/adapter"
	_ "github.com/membench/membench/systems/all"
)

// faulty wraps the example service: the first retrieve answers 500, and a
// retrieve for the question named in malformed gets a bad item.
type faulty struct {
	next      http.Handler
	malformed string
	mu        sync.Mutex
	failed    bool
	calls     map[string]int
	retried   string // question id that got the 500
}

func (f *faulty) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls[r.Method+" "+r.URL.Path]++
	f.mu.Unlock()
	if r.URL.Path == "/retrieve" {
		body, _ := io.ReadAll(r.Body)
		var p adapter.RetrieveParams
		json.Unmarshal(body, &p)
		f.mu.Lock()
		first := !f.failed
		f.failed = true
		if first {
			f.retried = p.QuestionID
		}
		f.mu.Unlock()
		if first {
			http.Error(w, "overloaded, try again", http.StatusInternalServerError)
			return
		}
		if p.QuestionID == f.malformed {
			w.Write([]byte(`{"items": [{"id": "x", "text": "t", "sources": "D1:3"}]}`))
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
	}
	f.next.ServeHTTP(w, r)
}

func config(t *testing.T, system string, opts membench.Options) membench.Config {
	t.Helper()
	// Hashed: the adapters embed nothing, so no model needs loading.
	return membench.Config{System: system, Options: opts, ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
		Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
}

// checkRun asserts what a finished adapter run must show: every question
// answered, evidence recall from the items' sources, the service's usage
// in the build costs (one call per session from the example).
func checkRun(t *testing.T, cfg membench.Config, sum *runlog.Summary, wantQuestions int) {
	t.Helper()
	dir := harnesstest.Dir(t, cfg)
	answers, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(answers) != wantQuestions || sum.Questions != wantQuestions {
		t.Fatalf("%d answers, summary %d questions, want all %d", len(answers), sum.Questions, wantQuestions)
	}
	rets, err := runlog.ReadJSONL[runlog.RetrievalRecord](filepath.Join(dir, runlog.RetrievalsFile))
	if err != nil {
		t.Fatal(err)
	}
	hits := 0
	for _, r := range rets {
		hits += r.EvidenceHit
		for _, it := range r.Items {
			if len(it.Sources) != 1 || it.Sources[0] != it.ID {
				t.Fatalf("item %+v: the example's sources are its turn id", it)
			}
		}
	}
	if hits == 0 || sum.EvidenceRecall <= 0 {
		t.Fatalf("evidence hits %d, recall %v: want recall computed from sources", hits, sum.EvidenceRecall)
	}
	builds, err := runlog.ReadJSONL[runlog.BuildRecord](filepath.Join(dir, runlog.BuildFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range builds {
		sessions := b.Stats.Counts["sessions"]
		if sessions == 0 || b.Calls != sessions || b.InputTokens == 0 {
			t.Fatalf("build %s: %d calls, %d input tokens for %d sessions: want the service's usage (one call a session)", b.ConversationID, b.Calls, b.InputTokens, sessions)
		}
	}
}

func TestHTTPAdapterEndToEnd(t *testing.T) {
	f := &faulty{next: bm25memory.New().Handler(), calls: map[string]int{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	// Credentials in the URL reach the server but never the artifacts.
	url := strings.Replace(srv.URL, "http://", "http://alice:s3cret@", 1)
	cfg := config(t, "http", membench.Options{"url": url})
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, cfg, sum, 19)
	if f.retried == "" || f.calls["POST /retrieve"] != 19+1 || f.calls["POST /reset"] != 1 || f.calls["POST /ingest"] != 4 || f.calls["GET /info"] != 1 {
		t.Fatalf("server saw %v (500 for %q): want one reset, 4 ingests, one info and 19 retrieves plus the retried one", f.calls, f.retried)
	}
	dir := harnesstest.Dir(t, cfg)
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "s3cret") {
			t.Errorf("%s holds the URL's password", p)
		}
		return nil
	})
	builds, _ := runlog.ReadJSONL[runlog.BuildRecord](filepath.Join(dir, runlog.BuildFile))
	if info, _ := builds[0].Stats.Notes["service_info"].(map[string]any); info["name"] != "bm25memory" {
		t.Errorf("GET /info not recorded: notes %v", builds[0].Stats.Notes)
	}
}

func TestHTTPAdapterLoCoMo(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	path := testutil.Shared(t, "datasets", "locomo10.json")
	srv := httptest.NewServer(bm25memory.New().Handler())
	defer srv.Close()
	cfg := config(t, "http", membench.Options{"url": srv.URL})
	cfg.Dataset, cfg.Data, cfg.Conversations = "locomo", path, []string{"conv-26"}
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, cfg, sum, 199) // conv-26 has 199 questions
}

func TestHTTPAdapterMalformedResponse(t *testing.T) {
	f := &faulty{next: bm25memory.New().Handler(), calls: map[string]int{}, malformed: "sample-1:0", failed: true}
	srv := httptest.NewServer(f)
	defer srv.Close()
	cfg := config(t, "http", membench.Options{"url": srv.URL})
	_, err := harness.Run(context.Background(), cfg, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "response field items[0].sources") || !strings.Contains(err.Error(), "question sample-1:0") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v: want one line naming the question and items[0].sources", err)
	}
}

func TestHTTPAdapterClientErrorQuotesBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such tenant", http.StatusNotFound)
	}))
	defer srv.Close()
	cfg := config(t, "http", membench.Options{"url": srv.URL + "/v1"})
	_, err := harness.Run(context.Background(), cfg, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "/v1/reset for conversation sample-1") || !strings.Contains(err.Error(), `status 404: "no such tenant"`) || strings.Contains(err.Error(), "tries") {
		t.Fatalf("error %v: want the 404 at once with its body quoted", err)
	}
}

// buildExample compiles the example service for the exec adapter.
func buildExample(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bm25memory")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/membench/membench/examples/bm25memory/cmd/bm25memory")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the example: %v\n%s", err, out)
	}
	return bin
}

func TestExecAdapterEndToEnd(t *testing.T) {
	bin := buildExample(t)
	cfg := config(t, "exec", membench.Options{"cmd": bin + " -stdio"})
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, cfg, sum, 19)
}

func TestExecAdapterMalformedAndErrors(t *testing.T) {
	// A child that answers reset and ingest, then returns a bad item.
	script := `while read -r line; do case "$line" in
  *'"method":"retrieve"'*) echo '{"result": {"items": [{"id": "D1:1", "text": "hi", "time": "last tuesday"}]}}' ;;
  *) echo '{"result": {}}' ;;
esac; done`
	cfg := config(t, "exec", membench.Options{"cmd": script})
	_, err := harness.Run(context.Background(), cfg, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "response field items[0].time") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v: want one line naming items[0].time", err)
	}
	// A child that says no, and one that writes logs to stdout.
	for script, want := range map[string]string{
		`read -r line; echo '{"error": "database locked"}'`: `answered with an error: "database locked"`,
		`read -r line; echo 'loading model...'`:             "not a JSON object",
		`echo oops >&2; exit 3`:                             "exited (exit status 3) before answering; its stderr ends: \"oops\"",
	} {
		cfg := config(t, "exec", membench.Options{"cmd": script})
		_, err := harness.Run(context.Background(), cfg, io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", script, err, want)
		}
	}
}

func TestBadOptionsAreBadInput(t *testing.T) {
	for _, c := range []struct {
		system string
		opts   membench.Options
		want   string
	}{
		{"http", nil, "--opt url=http://localhost:8080"},
		{"http", membench.Options{"url": "ftp://u:pw@host"}, `option url="ftp://[redacted]@host"`},
		{"http", membench.Options{"url": "http://h", "timeout": "soon"}, `option timeout="soon"`},
		{"exec", nil, `--opt cmd="python3 my_memory.py"`},
		{"exec", membench.Options{"cmd": "true", "k": "0"}, "option k=0"},
	} {
		_, err := harness.Run(context.Background(), config(t, c.system, c.opts), io.Discard)
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "pw@") {
			t.Errorf("%s %v: error %v (bad input %v), want a bad-input error naming %q", c.system, c.opts, err, badinput.Is(err), c.want)
		}
	}
}

// The Python example in docs/adapter.md runs as printed.
func TestDocsPythonExample(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed: the docs' Python example is not run")
	}
	doc, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "docs", "adapter.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```python\n")
	code, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/adapter.md has no ```python block")
	}
	file := filepath.Join(t.TempDir(), "my_memory.py")
	if err := os.WriteFile(file, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config(t, "exec", membench.Options{"cmd": py + " " + file})
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Questions != 19 || sum.EvidenceRecall <= 0 {
		t.Fatalf("%d questions, evidence recall %v", sum.Questions, sum.EvidenceRecall)
	}
}

// A service that reports "memories" is judged by it: 0 after the last
// session stops the run as degraded (exit 1, naming the count); a
// positive count is recorded as the build's entries.
func TestHTTPAdapterReportsItsMemory(t *testing.T) {
	for _, held := range []int{0, 7} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/ingest":
				w.Write([]byte(`{"memories": ` + strconv.Itoa(held) + `}`))
			case "/retrieve":
				w.Write([]byte(`{"items": []}`))
			default:
				w.Write([]byte(`{}`))
			}
		}))
		cfg := config(t, "http", membench.Options{"url": srv.URL})
		cfg.Judges = []string{"f1"}
		sum, err := harness.Run(context.Background(), cfg, io.Discard)
		srv.Close()
		var em *harness.EmptyMemoryError
		if held == 0 {
			if !errors.As(err, &em) || !strings.Contains(err.Error(), "0 memory entries") || sum == nil || !sum.Degraded {
				t.Fatalf("memories 0: %v, summary %+v", err, sum)
			}
			continue
		}
		if err != nil || sum.Degraded {
			t.Fatalf("memories %d: %v", held, err)
		}
		builds, _ := runlog.ReadJSONL[runlog.BuildRecord](filepath.Join(harnesstest.Dir(t, cfg), runlog.BuildFile))
		if len(builds) != 1 || builds[0].Stats.Entries == nil || *builds[0].Stats.Entries != held {
			t.Fatalf("build records %+v: want entries %d", builds, held)
		}
	}
}
