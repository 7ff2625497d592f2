package run

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/llm/prices"
)

// A fullcontext run against a server with a prompt cache: the summary's
// dollars line reports the cached input and prices it, at a price file's
// rates when one is given.
func TestRunPrintsDollarsWithProviderCache(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithPrefixCache(1, 0))
	var out bytes.Buffer
	o := options(t, &out)
	o.Config.System = "fullcontext"
	o.Config.Limit = 3
	o.Config.Judges = []string{"lexical"}
	o.LLM, o.Model, o.BaseURL = "openai", "gpt-4o-mini", srv.URL
	o.Prices = filepath.Join(t.TempDir(), "p.yaml")
	// Round rates so the line can be checked by hand: $1 per million
	// uncached input tokens, $0.10 cached, $2 output.
	os.WriteFile(o.Prices, []byte("as_of: 2030-01-02\nmodels:\n  gpt-4o-mini: {input: 1, cached_input: 0.1, output: 2}\n"), 0o644)
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`dollars: .*answer (\$[0-9.]+) .*total (\$[0-9.]+) \(prices as of 2030-01-02 with .*p\.yaml; (\d+) of (\d+) input tokens from the provider's prompt cache`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no dollars line with cached input in:\n%s", out.String())
	}
	cached, _ := strconv.Atoi(m[3])
	in, _ := strconv.Atoi(m[4])
	// Three questions on one conversation: the second and third share the
	// first's instructions and conversation.
	if cached == 0 || cached >= in {
		t.Errorf("cached %d of %d input tokens", cached, in)
	}
	b, err := prices.ForRun(regexp.MustCompile(`artifacts: (\S+)`).FindStringSubmatch(out.String())[1], prices.Default())
	if err != nil {
		t.Fatal(err)
	}
	if b.CachedInputTokens != cached || b.InputTokens != in {
		t.Errorf("bill read back: %d of %d cached", b.CachedInputTokens, b.InputTokens)
	}
	if m[1] != m[2] {
		t.Errorf("answer %s ≠ total %s with the lexical judge and no build", m[1], m[2])
	}
}

func TestRunBadPricesFileIsBadInput(t *testing.T) {
	var out bytes.Buffer
	o := options(t, &out)
	o.Prices = filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(o.Prices, []byte("models:\n  gpt-4o-mini:\n    input: 0.15\n    output: lots\n"), 0o644)
	err := Run(context.Background(), o)
	if err == nil || clierr.Code(err) != 2 || !strings.Contains(err.Error(), "p.yaml:4:") {
		t.Fatalf("err = %v (code %d), want exit 2 naming p.yaml:4", err, clierr.Code(err))
	}
	if _, serr := os.Stat(o.Config.ResultsDir); serr == nil {
		t.Error("a bad prices file still started the run")
	}
}
