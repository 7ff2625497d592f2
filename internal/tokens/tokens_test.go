package tokens

import (
	"strings"
	"sync"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

// samples span ASCII, whitespace runs, digits, punctuation and non-Latin
// scripts, where encodings disagree most.
var samples = []string{
	"hello world",
	"hello   world",
	"Caroline went to the LGBTQ support group on 7 May 2023.",
	"1234567890 3.14159 $1,000,000",
	"What did Melanie paint?\n\nAnswer: a sunrise",
	"こんにちは、世界。今日はいい天気ですね。",
	"नमस्ते दुनिया, आप कैसे हैं?",
	"Привет, как дела? Всё хорошо.",
	"emoji 🎉🎉 and tabs\t\tend",
}

func TestHelloWorldIsTwoTokens(t *testing.T) {
	// Published o200k_base encoding of "hello world": [24912, 2375].
	if n := Count("hello world"); n != 2 {
		t.Fatalf(`Count("hello world") = %d, want 2`, n)
	}
	ids, _, err := codec().Encode("hello world")
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0] != 24912 || ids[1] != 2375 {
		t.Fatalf("o200k ids = %v, want [24912 2375] (is the encoding o200k_base?)", ids)
	}
}

func TestCountMatchesEncodeAndRoundTrips(t *testing.T) {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		ids, _, err := enc.Encode(s)
		if err != nil {
			t.Fatalf("Encode(%q): %v", s, err)
		}
		if got := Count(s); got != len(ids) {
			t.Errorf("Count(%q) = %d, Encode gives %d tokens", s, got, len(ids))
		}
		back, err := enc.Decode(ids)
		if err != nil || back != s {
			t.Errorf("round trip of %q = %q, %v", s, back, err)
		}
	}
	if Count("") != 0 {
		t.Errorf(`Count("") = %d`, Count(""))
	}
}

// The counter must be o200k_base, not another encoding: on some sample the
// older cl100k_base gives a different count, and Count must side with o200k.
func TestCountIsO200kNotCl100k(t *testing.T) {
	cl, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	differs := 0
	for _, s := range samples {
		n, err := cl.Count(s)
		if err != nil {
			t.Fatal(err)
		}
		if n != Count(s) {
			differs++
		}
	}
	if differs == 0 {
		t.Fatal("Count agrees with cl100k_base on every sample; expected o200k_base to differ on non-Latin text")
	}
}

func TestCountGrowsWithText(t *testing.T) {
	one := Count("the quick brown fox. ")
	many := Count(strings.Repeat("the quick brown fox. ", 10))
	if many < 5*one || many > 10*one+1 {
		t.Fatalf("10x text gave %d tokens vs %d for one copy", many, one)
	}
}

func TestCountMessagesOverhead(t *testing.T) {
	// 3 tokens prime the reply; each message adds 3 separators, 1 role token
	// and its content (OpenAI cookbook, num_tokens_from_messages).
	if got := CountMessages(); got != 3 {
		t.Fatalf("CountMessages() = %d, want 3", got)
	}
	if got := CountMessages("hello world"); got != 3+4+2 {
		t.Fatalf("CountMessages(hello world) = %d, want 8", got)
	}
	a, b := samples[2], samples[5]
	want := 3 + (4 + Count(a)) + (4 + Count(b))
	if got := CountMessages(a, b); got != want {
		t.Fatalf("CountMessages(a, b) = %d, want %d", got, want)
	}
	if got := CountMessages("", ""); got != 11 {
		t.Fatalf("two empty messages = %d, want 11", got)
	}
}

func TestCountConcurrent(t *testing.T) {
	want := make([]int, len(samples))
	for i, s := range samples {
		want[i] = Count(s)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 20; r++ {
				for i, s := range samples {
					if n := Count(s); n != want[i] {
						t.Errorf("concurrent Count(%q) = %d, want %d", s, n, want[i])
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestTruncate(t *testing.T) {
	long := strings.Repeat("memory benchmark ", 500)
	cut := Truncate(long, 100)
	if Count(cut) > 100 || !strings.HasPrefix(long, cut) || len(cut) == 0 {
		t.Fatalf("Truncate to 100 tokens gave %d tokens (%q...)", Count(cut), cut[:20])
	}
	if Truncate("hello world", 5) != "hello world" || Truncate("hello world", 0) != "" {
		t.Fatal("short strings must stay whole; n=0 gives empty")
	}
}
