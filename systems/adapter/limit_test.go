package adapter_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/examples/bm25memory"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/systems/adapter"
)

// childEnv turns the test binary into an exec memory (see runChild).
const childEnv = "ADAPTER_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

// runChild speaks the exec protocol: {} to reset and ingest, no items to
// retrieve, except for the question in mode ("endless:ID" or "long:ID"):
// endless writes stdout without a newline until it is killed, long writes
// one 2 MB answer line and goes on answering.
func runChild(mode string) int {
	kind, target, _ := strings.Cut(mode, ":")
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 16<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var msg struct {
			Method string
			Params struct {
				QuestionID string `json:"question_id"`
			}
		}
		if err := json.Unmarshal(in.Bytes(), &msg); err != nil {
			return 2
		}
		switch {
		case msg.Method != "retrieve":
			out.WriteString(`{"result": {}}` + "\n")
		case msg.Params.QuestionID != target:
			out.WriteString(`{"result": {"items": []}}` + "\n")
		case kind == "endless":
			out.Flush()
			chunk := bytes.Repeat([]byte("x"), 64<<10)
			for {
				if _, err := os.Stdout.Write(chunk); err != nil {
					return 1
				}
			}
		default:
			out.WriteString(`{"result": {"items": [], "context": "` + strings.Repeat("y", 2<<20) + `"}}` + "\n")
		}
		if out.Flush() != nil {
			return 1
		}
	}
	return 0
}

// childCmd is the exec adapter's cmd running this test binary as a child.
func childCmd(t *testing.T, mode string) string {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	return childEnv + "=" + q(mode) + " exec " + q(bin)
}

// failedRun runs cfg, which must end with some questions failed, and
// returns the failures by question and the questions answered.
func failedRun(t *testing.T, cfg membench.Config) (map[string]runlog.Failure, int) {
	t.Helper()
	_, err := harness.Run(context.Background(), cfg, io.Discard)
	var qf *runlog.QuestionsFailedError
	if !errors.As(err, &qf) {
		t.Fatalf("run error %v: want the run to go on and end with failed questions", err)
	}
	dir := harnesstest.Dir(t, cfg)
	fs, err := runlog.ReadJSONL[runlog.Failure](filepath.Join(dir, runlog.FailuresFile))
	if err != nil {
		t.Fatal(err)
	}
	byQ := map[string]runlog.Failure{}
	for _, f := range fs {
		if f.Stage != "retrieve" || strings.Contains(f.Reason, "\n") {
			t.Errorf("failure %+v: want one line at stage retrieve", f)
		}
		byQ[f.QuestionID] = f
	}
	answers, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(answers)+len(byQ) != 19 || len(qf.Failed) != len(byQ) {
		t.Fatalf("%d answered, %d failed (error lists %d): want all 19 questions either", len(answers), len(byQ), len(qf.Failed))
	}
	return byQ, len(answers)
}

func TestExecEndlessStdoutFailsTheQuestion(t *testing.T) {
	const target = "sample-1:2"
	cfg := config(t, "exec", membench.Options{"cmd": childCmd(t, "endless:"+target), "max_reply_mb": "1", "timeout": "2s"})
	cfg.Concurrency = 1 // in question order: some answered before the endless line, some after it
	failed, answered := failedRun(t, cfg)
	f, ok := failed[target]
	if !ok || !strings.Contains(f.Reason, "retrieve for question "+target+": reply larger than 1 MB (option max_reply_mb)") {
		t.Fatalf("failure of %s: %+v, want reply larger than 1 MB naming the question", target, f)
	}
	// The line never ends: the child is stopped, and every later question
	// fails saying why instead of reading the rest of that line.
	stopped := 0
	for q, f := range failed {
		if q == target {
			continue
		}
		if !strings.Contains(f.Reason, "the child was stopped: its answer to retrieve for question "+target+" was larger than 1 MB and did not end within 2s") {
			t.Errorf("failure of %s: %q, want the stopped child named", q, f.Reason)
		}
		stopped++
	}
	if answered == 0 || stopped == 0 {
		t.Fatalf("%d answered, %d failed after the endless line: want questions on both sides of it", answered, stopped)
	}
}

func TestExecLongLineFailsOnlyItsQuestion(t *testing.T) {
	const target = "sample-1:2"
	cfg := config(t, "exec", membench.Options{"cmd": childCmd(t, "long:"+target), "max_reply_mb": "1"})
	failed, _ := failedRun(t, cfg)
	// The line ends: its rest is dropped and the child answers the rest in step.
	if f, ok := failed[target]; len(failed) != 1 || !ok || !strings.Contains(f.Reason, "reply larger than 1 MB") {
		t.Fatalf("failures %+v: want only %s, reply larger than 1 MB", failed, target)
	}
}

// endlessBody serves the example memory, but one question's retrieve gets
// a body that never ends and another's declares a length over the limit.
type endlessBody struct {
	next              http.Handler
	endless, declared string
	mu                sync.Mutex
	calls             map[string]int
}

func (e *endlessBody) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/retrieve" {
		e.next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var p adapter.RetrieveParams
	json.Unmarshal(body, &p)
	e.mu.Lock()
	e.calls[p.QuestionID]++
	e.mu.Unlock()
	switch p.QuestionID {
	case e.endless:
		w.Write([]byte(`{"items": [{"id": "D1:1", "text": "`))
		chunk := bytes.Repeat([]byte("z"), 64<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				return // membench hung up
			}
		}
	case e.declared:
		w.Header().Set("Content-Length", "70000000")
		w.Write([]byte(`{"items": []}`))
	default:
		r.Body = io.NopCloser(bytes.NewReader(body))
		e.next.ServeHTTP(w, r)
	}
}

func TestHTTPEndlessBodyFailsTheQuestion(t *testing.T) {
	e := &endlessBody{next: bm25memory.New().Handler(), endless: "sample-1:2", declared: "sample-1:5", calls: map[string]int{}}
	srv := httptest.NewServer(e)
	defer srv.Close()
	// The default limit, as a user meets it.
	failed, answered := failedRun(t, config(t, "http", membench.Options{"url": srv.URL}))
	for _, q := range []string{e.endless, e.declared} {
		if f := failed[q]; !strings.Contains(f.Reason, "POST "+srv.URL+"/retrieve for question "+q+": reply larger than 64 MB (option max_reply_mb)") {
			t.Errorf("failure of %s: %q, want reply larger than 64 MB naming the request", q, f.Reason)
		}
		if e.calls[q] != 1 {
			t.Errorf("%s asked %d times: a reply over the limit is not retried", q, e.calls[q])
		}
	}
	if len(failed) != 2 || answered != 17 {
		t.Fatalf("%d failed, %d answered: want only the two oversized replies failed", len(failed), answered)
	}
}
