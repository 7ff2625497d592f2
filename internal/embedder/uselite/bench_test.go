package uselite

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
)

// locomoUtterances reads up to n real utterances from ../shared/datasets/
// locomo10.json, falling back to the golden sentences.
func locomoUtterances(b *testing.B, n int) []string {
	path, _ := testutil.SharedPath("datasets", "locomo10.json")
	var out []string
	if raw, err := os.ReadFile(path); err == nil {
		var convs []struct {
			Conversation map[string]json.RawMessage `json:"conversation"`
		}
		if err := json.Unmarshal(raw, &convs); err == nil {
			for _, c := range convs {
				for k, v := range c.Conversation {
					if !strings.HasPrefix(k, "session_") || strings.HasSuffix(k, "date_time") {
						continue
					}
					var turns []struct {
						Text string `json:"text"`
					}
					if json.Unmarshal(v, &turns) == nil {
						for _, t := range turns {
							out = append(out, t.Text)
						}
					}
				}
			}
		}
	}
	if len(out) == 0 {
		out = loadGolden(b).Sentences
	}
	for len(out) < n {
		out = append(out, out...)
	}
	return out[:n]
}

// BenchmarkEmbedLoCoMo embeds 1,000 LoCoMo utterances per iteration and
// reports utterances/second.
func BenchmarkEmbedLoCoMo(b *testing.B) {
	m := loadModel(b)
	texts := locomoUtterances(b, 1000)
	ctx := context.Background()
	tokens := 0
	for _, t := range texts {
		tokens += min(len(m.Tokenize(t)), m.MaxTokens())
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "utt/s")
	b.ReportMetric(float64(tokens)/float64(len(texts)), "tok/utt")
}

// BenchmarkTokenize measures the tokenizer alone.
func BenchmarkTokenize(b *testing.B) {
	m := loadModel(b)
	texts := locomoUtterances(b, 1000)
	b.ResetTimer()
	for b.Loop() {
		for _, t := range texts {
			m.Tokenize(t)
		}
	}
	b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "utt/s")
}
