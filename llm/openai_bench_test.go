package llm

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/llm/llmtest"
)

// BenchmarkChatClient is the client side of a chat request alone: 64
// requests in flight through one backend (NewHTTPClient's transport) to an
// OpenAI-compatible server with a 20 ms reply latency in a child process,
// answer-sized prompts (about 2.5 KB). It reports cpu-us/req, this
// process's CPU time (getrusage) per request: request encoding, net/http,
// the reply's decoding, the runtime's scheduling. Quote it with the load
// average; compare builds side by side.
func BenchmarkChatClient(b *testing.B) {
	url := chatBenchServer(b)
	o, err := NewOpenAI(OpenAIConfig{Model: "m", BaseURL: url, APIKey: "none", HTTPClient: NewHTTPClient(64, time.Minute)})
	if err != nil {
		b.Fatal(err)
	}
	var ctxLines []string
	for i := range 10 {
		ctxLines = append(ctxLines, fmt.Sprintf("[2023-05-08 13:%02d] Caroline: I went to the LGBTQ support group yesterday and it was so powerful, thanks for asking (%d).", i, i))
	}
	prompt := "Memories:\n" + strings.Join(ctxLines, "\n") + "\n\nQuestion: When did Caroline go to the LGBTQ support group?\nAnswer in a short phrase."
	req := Request{Messages: []membench.Message{{Role: "system", Content: "You answer questions about a long conversation from retrieved memories."}, {Role: "user", Content: prompt + prompt}}, MaxTokens: 64}
	send := func(n int) {
		work := make(chan struct{}, n)
		for range n {
			work <- struct{}{}
		}
		close(work)
		var wg sync.WaitGroup
		for range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range work {
					if _, err := o.Chat(context.Background(), req); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	send(256) // connections opened, pools warm
	b.ResetTimer()
	cpu0 := processCPU()
	send(b.N)
	b.ReportMetric(float64(processCPU()-cpu0)/1e3/float64(b.N), "cpu-us/req")
}

// chatBenchServer starts BenchmarkChatClient's server in a child process.
func chatBenchServer(b *testing.B) string {
	return llmtest.InChild(b, "TestChatBenchServerProcess", "MEMBENCH_CHAT_BENCH_SERVER")
}

// TestChatBenchServerProcess is BenchmarkChatClient's server: it serves
// until its stdin closes.
func TestChatBenchServerProcess(t *testing.T) {
	if os.Getenv("MEMBENCH_CHAT_BENCH_SERVER") == "" {
		t.Skip("BenchmarkChatClient's child server")
	}
	srv := llmtest.New(t, llmtest.WithLatency(20*time.Millisecond), llmtest.WithoutBodies(),
		llmtest.WithChat(func(n int, _ llmtest.ChatRequest) llmtest.Reply {
			return llmtest.Reply{Text: fmt.Sprint("7 May 2023, answer ", n)}
		}))
	llmtest.Serve(srv)
}
