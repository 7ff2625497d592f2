package harness_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/membench/membench/llm"
)

// floorRequests is as many model requests as a full LoCoMo run of the
// throughput benchmark sends (1,986 questions, an answer and a judgment
// each).
const floorRequests = 3972

// BenchmarkHTTPFloor is the floor under BenchmarkHarnessThroughput's
// cpu-ms/req: the same number of chat requests, N at a time, to the same
// 250 ms server (MEMBENCH_BENCH_N, MEMBENCH_BENCH_SERVER as there), sent
// by nothing but the HTTP client the openai backend uses
// (llm.NewHTTPClient), with bodies of an answer's and a judgment's size
// and the replies read and dropped. What the harness costs above it is
// its own work: retrieval, prompts, records, transcripts, the summary.
// One uncounted pass opens the connections first. Reports cpu-ms/req and
// ratio as the throughput benchmark does.
func BenchmarkHTTPFloor(b *testing.B) {
	bodies := [2][]byte{floorBody(2500), floorBody(900)}
	for _, n := range benchConcurrencies(b) {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			url := benchServer(b) + "/chat/completions"
			client := llm.NewHTTPClient(n, time.Minute)
			pass := func() {
				var wg sync.WaitGroup
				next := make(chan int)
				for range n {
					wg.Go(func() {
						for i := range next {
							if err := floorPost(client, url, bodies[i%2]); err != nil {
								b.Error(err)
							}
						}
					})
				}
				for i := range floorRequests {
					next <- i
				}
				close(next)
				wg.Wait()
			}
			b.StopTimer()
			pass()
			b.StartTimer()
			var ratio, cpu float64
			for i := 0; i < b.N; i++ {
				cpu0, start := cpuTime(), time.Now()
				pass()
				wall, used := time.Since(start), cpuTime()-cpu0
				ratio += floorRequests / wall.Seconds() / (float64(n) / benchLatency.Seconds())
				cpu += used.Seconds() * 1000 / floorRequests
			}
			b.ReportMetric(ratio/float64(b.N), "ratio")
			b.ReportMetric(cpu/float64(b.N), "cpu-ms/req")
		})
	}
}

// floorBody is a chat request whose user message is about size bytes of
// conversation-like text.
func floorBody(size int) []byte {
	line := "[2023-05-08 13:56] Caroline: I went to the LGBTQ support group yesterday and it was so powerful. "
	text := strings.Repeat(line, size/len(line)+1)[:size]
	return fmt.Appendf(nil, `{"model":"m","messages":[{"role":"system","content":"Answer from the memories."},{"role":"user","content":%q}],"temperature":0}`, text)
}

func floorPost(client *http.Client, url string, body []byte) error {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("floor request: %s", resp.Status)
	}
	return nil
}
