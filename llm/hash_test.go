package llm_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench/answer"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/prompts"
	"github.com/membench/membench/systems"
)

// marshalSHA is how prompt hashes were made before: the sha256 of
// json.Marshal(msgs).
func marshalSHA(t testing.TB, msgs []llm.Message) string {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// The prompt hashes logged in answers.jsonl do not change: for the answer
// prompt rendered on every real LoCoMo question (ten real turns as its
// memories), HashMessages is the sha256 of json.Marshal's bytes.
func TestHashMessagesIsMarshalHashOnLoCoMo(t *testing.T) {
	path, ok := testutil.SharedPath("datasets", "locomo10.json")
	if !ok {
		t.Skipf("LoCoMo not found at %s: this test needs the real file", path)
	}
	d, err := datasets.LoadLoCoMo(path, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := prompts.Embedded(answer.Prompt)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range d.Conversations {
		turns := c.AllTurns()
		for qi, q := range c.Questions {
			in := answer.Input{Question: q.Text, Speakers: c.Speakers}
			for i := range 10 {
				tn := turns[(qi*13+i*7)%len(turns)]
				in.Items = append(in.Items, systems.Item{ID: tn.ID, Kind: "turn", Text: tn.Text, Time: tn.Time, Speaker: tn.Speaker})
				in.Context += "[" + tn.Time.Format("2006-01-02 15:04") + "] " + tn.Speaker + ": " + tn.Text + "\n"
			}
			msgs, err := tmpl.Render(in)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := llm.HashMessages(msgs), marshalSHA(t, msgs); got != want {
				t.Fatalf("%s: HashMessages %s, sha256 of json.Marshal %s", q.ID, got, want)
			}
			n++
		}
	}
	for _, msgs := range [][]llm.Message{nil, {}, {{}}} {
		if got, want := llm.HashMessages(msgs), marshalSHA(t, msgs); got != want {
			t.Fatalf("%#v: HashMessages %s, sha256 of json.Marshal %s", msgs, got, want)
		}
	}
	t.Logf("%d real answer prompts hash as json.Marshal's bytes", n)
}

func FuzzHashMessages(f *testing.F) {
	f.Add("system", "You answer <b>questions</b> & \"more\"", "user", "q \u2028 \xff\n\t", 3)
	f.Add("", "", "", "", 0)
	f.Fuzz(func(t *testing.T, r1, c1, r2, c2 string, rep int) {
		msgs := []llm.Message{{Role: r1, Content: c1}, {Role: r2, Content: c2}}
		for range rep % 300 { // long prompts cross the hasher's 4 KB flushes
			msgs = append(msgs, llm.Message{Role: r2, Content: c1 + c2})
		}
		if got, want := llm.HashMessages(msgs), marshalSHA(t, msgs); got != want {
			t.Fatalf("HashMessages %s, sha256 of json.Marshal %s", got, want)
		}
	})
}

// BenchmarkHashMessages: an answer-sized prompt (about 2.5 KB) hashed by
// HashMessages against the sha256 of json.Marshal's bytes (as before).
func BenchmarkHashMessages(b *testing.B) {
	var lines []string
	for i := range 10 {
		lines = append(lines, fmt.Sprintf("[2023-05-08 13:%02d] Caroline: I went to the LGBTQ support group yesterday and it was so powerful, thanks for asking (%d).", i, i))
	}
	prompt := "Memories:\n" + strings.Join(lines, "\n") + "\n\nQuestion: When did Caroline go to the LGBTQ support group?\nAnswer in a short phrase."
	msgs := []llm.Message{{Role: "system", Content: "You answer questions about a long conversation from retrieved memories."}, {Role: "user", Content: prompt + prompt}}
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			llm.HashMessages(msgs)
		}
	})
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			marshalSHA(b, msgs)
		}
	})
}

// HashText is the sha256 of the string's bytes at every length around its
// chunk size, for ASCII and multibyte text, and from several goroutines at
// once (the hashers are pooled).
func TestHashTextIsSum256(t *testing.T) {
	base := strings.Repeat("Caroline: the lake at dawn — ünïcödé 日本語. ", 400) // 19 KB
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, n := range []int{0, 1, 63, 4095, 4096, 4097, 8192, 8193, 12000 + g, len(base)} {
				s := base[:n]
				sum := sha256.Sum256([]byte(s))
				if got, want := llm.HashText(s), hex.EncodeToString(sum[:]); got != want {
					t.Errorf("length %d: HashText = %s, sha256 %s", n, got, want)
				}
			}
		}()
	}
	wg.Wait()
}
