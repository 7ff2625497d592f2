package harness_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
)

func verdicts(t *testing.T, dir string) map[string]string {
	t.Helper()
	js, err := runlog.ReadJSONL[runlog.Judgment](filepath.Join(dir, runlog.JudgmentsFile))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, j := range js {
		out[j.QuestionID+" "+j.Judge] = fmt.Sprintf("%v %.6f", j.Correct, j.Score)
	}
	return out
}

// A run against a server where 20% of chat requests fail, in every way
// the llm layer retries, ends with exactly the verdicts of a clean run.
func TestRunThroughFaultsEqualsCleanRun(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out real backoff")
	}
	t.Setenv("OPENAI_API_KEY", "sk-test-faults")
	run := func(srv *llmtest.Server) (string, map[string]string) {
		cfg := membench.Config{
			System: "turns-rerank", Model: "backend=openai,model=m,base-url=" + srv.URL, Embedder: "hashed",
			Judges: []string{"llm", "f1"}, Limit: 4,
			ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 4,
		}
		if _, err := harness.Run(context.Background(), cfg, &bytes.Buffer{}); err != nil {
			t.Fatalf("run: %v", err)
		}
		dir := harnesstest.Dir(t, cfg)
		return dir, verdicts(t, dir)
	}
	_, clean := run(llmtest.New(t, llmtest.WithChat(llmtest.Plausible)))
	kinds := []llmtest.Fault{llmtest.Fault429, llmtest.Fault500, llmtest.Fault502, llmtest.Fault503, llmtest.FaultDrop,
		llmtest.FaultSlow, llmtest.FaultMalformed, llmtest.FaultEmptyChoices, llmtest.FaultNoLogprobs}
	faulty := llmtest.New(t, llmtest.WithChat(llmtest.Plausible), llmtest.WithFaults(llmtest.Faults{Seed: 7, Rate: 0.2, Kinds: kinds, RetryAfter: "1"}))
	_, got := run(faulty)
	t.Logf("faults injected: %v over %d requests", faulty.Injected(), faulty.Count("/v1/chat/completions"))
	if len(clean) == 0 || len(got) != len(clean) {
		t.Fatalf("%d verdicts through faults, %d clean", len(got), len(clean))
	}
	for k, v := range clean {
		if got[k] != v {
			t.Errorf("%s: %s through faults, %s clean", k, got[k], v)
		}
	}
	n := 0
	for _, c := range faulty.Injected() {
		n += c
	}
	if n == 0 {
		t.Fatal("no faults were injected")
	}
}

// A base URL with credentials: they reach no artifact, cache file or log,
// and a new password neither changes the run id nor misses the cache.
func TestBaseURLCredentialsNeverWritten(t *testing.T) {
	const pw, user = "pw-SECRET-5521", "user-BOB-5521"
	srv := llmtest.New(t, llmtest.WithEmbedDim(32), llmtest.WithChat(llmtest.Plausible))
	withPW := func(p string) string { return strings.Replace(srv.URL, "http://", "http://"+user+":"+p+"@", 1) }
	t.Setenv("OPENAI_API_KEY", "sk-test-cred")
	t.Setenv("OPENAI_BASE_URL", withPW(pw)) // the embedder's server
	cfg := membench.Config{
		System: "turns-cosine", Model: "backend=openai,model=m,base-url=" + withPW(pw), Embedder: "openai:text-embedding-3-small",
		Judges:     []string{"llm", "f1", "name=j2,backend=openai,model=m2,base-url=" + withPW(pw)},
		ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: false, Concurrency: 2,
	}
	var log bytes.Buffer
	sum, err := harness.Run(context.Background(), cfg, &log)
	if err != nil {
		t.Fatal(err)
	}
	var printed bytes.Buffer
	summary.Print(&printed, sum)
	dir := harnesstest.Dir(t, cfg)
	man, _ := os.ReadFile(filepath.Join(dir, runlog.ManifestFile))
	if !strings.Contains(string(man), "http://[redacted]@127.0.0.1") || strings.Contains(string(man), user) {
		t.Errorf("manifest does not show the base URL with its credentials removed whole:\n%s", man)
	}
	for what, s := range map[string]string{"log": log.String(), "summary": printed.String(), "run id": filepath.Base(dir)} {
		if strings.Contains(s, pw) || strings.Contains(s, user) {
			t.Errorf("credentials in the %s", what)
		}
	}
	for _, d := range []string{dir, cfg.CacheDir} {
		filepath.Walk(d, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(pw)) || bytes.Contains(b, []byte(user)) {
					t.Errorf("credentials found in %s", p)
				}
			}
			return nil
		})
	}
	// Another password: same run id, and every chat call is a cache hit.
	chats := srv.Count("/v1/chat/completions")
	cfg2 := cfg
	cfg2.Model = "backend=openai,model=m,base-url=" + withPW("other-pw-123")
	cfg2.Judges = []string{"llm", "f1", "name=j2,backend=openai,model=m2,base-url=" + withPW("other-pw-123")}
	if cfg2.ID() != cfg.ID() {
		t.Errorf("run id changed with the password: %s vs %s", cfg2.ID(), cfg.ID())
	}
	cfg2.RunID = "again"
	if _, err := harness.Run(context.Background(), cfg2, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if after := srv.Count("/v1/chat/completions"); after != chats {
		t.Errorf("a new password sent %d new chat requests; want 0 (same cache keys)", after-chats)
	}
	// A spec error quotes the spec without the password.
	bad := cfg
	bad.Model = "backend=openai,model=m,base-url=" + withPW(pw) + ",rpm=lots"
	bad.RunID = "bad"
	if _, err := harness.Run(context.Background(), bad, &bytes.Buffer{}); err == nil || strings.Contains(err.Error(), pw) || strings.Contains(err.Error(), user) {
		t.Errorf("spec error: %v", err)
	}
}

// The fault matrix: for each fault kind of llm/llmtest at a 20% rate, a
// turns-rerank run with every role and the llm judge on the faulty server
// ends with exactly the verdicts of a clean run after at most one rerun
// (a rerun retries the questions that failed and re-asks invalid verdicts).
// Unparseable verdicts are served on judge requests only: on an answer
// request such a reply is a (wrong) answer, not a fault the harness can see.
func TestFaultMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out real backoff")
	}
	t.Setenv("OPENAI_API_KEY", "sk-test-matrix")
	cfgFor := func(srv *llmtest.Server) membench.Config {
		return membench.Config{
			System: "turns-rerank", Model: "backend=openai,model=m,base-url=" + srv.URL, Embedder: "hashed",
			Judges: []string{"llm", "f1"}, Limit: 6,
			ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 4,
		}
	}
	clean := llmtest.New(t, llmtest.WithChat(llmtest.Plausible))
	ccfg := cfgFor(clean)
	if _, err := harness.Run(context.Background(), ccfg, &bytes.Buffer{}); err != nil {
		t.Fatalf("clean run: %v", err)
	}
	want := verdicts(t, harnesstest.Dir(t, ccfg))
	if len(want) != 12 {
		t.Fatalf("clean run: %d verdicts, want 6 questions x 2 judges", len(want))
	}
	const rate = 0.2
	type row struct{ fault, injected, outcome, equal string }
	rows := make([]row, len(llmtest.AllFaults))
	t.Run("kinds", func(t *testing.T) {
		for i, f := range llmtest.AllFaults {
			i, f := i, f
			t.Run(string(f), func(t *testing.T) {
				t.Parallel()
				fl := llmtest.Faults{Seed: 11, Rate: rate, Kinds: []llmtest.Fault{f}, RetryAfter: "1"}
				var eligible atomic.Int64 // judge requests, for bad-verdict
				if f == llmtest.FaultBadVerdict {
					fl.Only = func(r llmtest.ChatRequest) bool {
						if strings.Contains(r.LastUser(), "Verdict as JSON") {
							eligible.Add(1)
							return true
						}
						return false
					}
				}
				srv := llmtest.New(t, llmtest.WithChat(llmtest.Plausible), llmtest.WithFaults(fl))
				cfg := cfgFor(srv)
				// attempt runs once and says how it ended.
				attempt := func() (string, bool) {
					sum, err := harness.Run(context.Background(), cfg, &bytes.Buffer{})
					var qf *runlog.QuestionsFailedError
					switch {
					case errors.As(err, &qf):
						return fmt.Sprintf("%d question(s) failed", len(qf.Failed)), false
					case err != nil:
						t.Fatalf("run stopped: %v", err)
					case sum.Invalid["llm"] > 0:
						return fmt.Sprintf("%d invalid verdict(s)", sum.Invalid["llm"]), false
					}
					return "ok", true
				}
				outcome, ok := attempt()
				if !ok {
					second, ok2 := attempt()
					outcome += "; rerun " + second
					if !ok2 {
						t.Errorf("%s: not finished after one rerun: %s", f, outcome)
					}
				}
				got := verdicts(t, harnesstest.Dir(t, cfg))
				equal := "yes"
				if fmt.Sprint(got) != fmt.Sprint(want) {
					equal = "no"
					t.Errorf("%s: verdicts differ from the clean run's:\n got %v\nwant %v", f, got, want)
				}
				n := srv.Injected()[f]
				if n == 0 {
					t.Errorf("%s: no fault injected", f)
				}
				of := fmt.Sprintf("%d of %d", n, srv.Count("/v1/chat/completions"))
				if f == llmtest.FaultBadVerdict {
					of = fmt.Sprintf("%d of %d judge requests", n, eligible.Load())
				}
				rows[i] = row{string(f), of, outcome, equal}
			})
		}
	})
	var b strings.Builder
	fmt.Fprintf(&b, "\n| fault | rate | injected (of chat requests) | outcome | verdicts equal to a clean run |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %.0f%% | %s | %s | %s |\n", r.fault, 100*rate, r.injected, r.outcome, r.equal)
	}
	t.Logf("fault matrix (turns-rerank, 6 questions, judges llm + f1, every role on the fake server):%s", b.String())
}
