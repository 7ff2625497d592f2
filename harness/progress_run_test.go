package harness_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
)

// A real run with its log going to a file (not a terminal) writes a start
// line, a line when answering starts, one for the summary and an end line
// whose call count is the server's and whose dollars are unknown (model
// m has no price).
func TestRunLogsProgressToAFile(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(llmtest.Plausible))
	t.Setenv("OPENAI_API_KEY", "sk-test-progress")
	cfg := harnesstest.Config(t, "fullcontext")
	cfg.Quiet = false
	cfg.Model = "backend=openai,model=m,base-url=" + srv.URL
	cfg.Judges = []string{"llm", "f1"}
	logPath := filepath.Join(t.TempDir(), "run.log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := harness.Run(context.Background(), cfg, f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(l, "progress: ") {
			lines = append(lines, l)
		}
	}
	n, calls := sum.Questions, srv.Count("/v1/chat/completions")
	if len(lines) < 4 || calls == 0 {
		t.Fatalf("%d progress lines, %d calls; log:\n%s", len(lines), calls, b)
	}
	for i, want := range []string{
		fmt.Sprintf("progress: started · 1 conversation to build, %d questions to answer and judge · a line every 30s and at each stage", n),
		fmt.Sprintf("progress: answer+judge 0/%d questions · elapsed ", n),
	} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d = %q, want it to start %q", i+1, lines[i], want)
		}
	}
	if want := fmt.Sprintf("progress: summary · %d/%d questions · elapsed ", n, n); !strings.HasPrefix(lines[len(lines)-2], want) {
		t.Errorf("next to last line = %q, want it to start %q", lines[len(lines)-2], want)
	}
	end := regexp.MustCompile(fmt.Sprintf(`^progress: done · %d/%d questions, 1/1 conversations built · elapsed \d+s · %d calls · tokens \S+ in, \S+ out · \$ unknown \(no price for openai:m\)$`, n, n, calls))
	if !end.MatchString(lines[len(lines)-1]) {
		t.Errorf("last line = %q, want %v", lines[len(lines)-1], end)
	}
	// The calls counted live are the calls the run's costs record.
	costs, err := runlog.ReadJSONL[runlog.CostRecord](filepath.Join(harnesstest.Dir(t, cfg), runlog.CostsFile))
	if err != nil {
		t.Fatal(err)
	}
	recorded := 0
	for _, c := range costs {
		for _, tl := range c.Tallies {
			if tl.Label != "embedding" {
				recorded += tl.Calls
			}
		}
	}
	if recorded != calls {
		t.Errorf("costs.jsonl records %d calls, the server had %d", recorded, calls)
	}
}

// A paid run's progress line says $0, not "$0 (offline)", until its first
// priced call, though its offline embedder has worked already; an offline
// run's says "$0 (offline)" once it has worked.
func TestPaidRunProgressIsNotCalledOffline(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(llmtest.Plausible))
	t.Setenv("OPENAI_API_KEY", "sk-test-progress-paid")
	for _, tc := range []struct {
		name, model string
		judges      []string
		first, last *regexp.Regexp
	}{
		{"paid", "backend=openai,model=gpt-4o-mini,base-url=" + srv.URL, []string{"llm", "f1"}, regexp.MustCompile(` · 0 calls · tokens 0 in, 0 out · \$0$`), regexp.MustCompile(` · \$0\.\d{4}$`)},
		{"offline", "", []string{"lexical", "f1"}, regexp.MustCompile(` · 0 calls · tokens 0 in, 0 out · \$0 \(offline\)$`), regexp.MustCompile(` · \$0 \(offline\)$`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := harnesstest.Config(t, "turns-cosine") // builds with the offline embedder before any answer
			cfg.Quiet = false
			cfg.Model, cfg.Judges = tc.model, tc.judges
			logPath := filepath.Join(t.TempDir(), "run.log")
			f, err := os.Create(logPath)
			if err != nil {
				t.Fatal(err)
			}
			_, err = harness.Run(context.Background(), cfg, f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if strings.HasPrefix(l, "progress: ") && strings.Contains(l, "$") {
					lines = append(lines, l)
				}
			}
			if len(lines) < 2 || !strings.HasPrefix(lines[0], "progress: answer+judge 0/") {
				t.Fatalf("progress lines with dollars:\n%s", b)
			}
			if !tc.first.MatchString(lines[0]) || !tc.last.MatchString(lines[len(lines)-1]) {
				t.Errorf("first line %q, want it to match %v; last %q, want %v", lines[0], tc.first, lines[len(lines)-1], tc.last)
			}
			t.Logf("%s: %s", tc.name, lines[0])
		})
	}
}
