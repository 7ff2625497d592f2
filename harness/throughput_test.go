package harness_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm/llmtest"
)

// benchLatency is the fixed reply time of the benchmark's model server:
// 250 ms, or MEMBENCH_BENCH_LATENCY (a Go duration). A short one such as
// 1ms keeps the harness busy, and only then does a CPU profile see all of
// its work: at 250 ms the profiler, sampling a process that runs in short
// bursts, recorded about half of the CPU time getrusage counted.
var benchLatency = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("MEMBENCH_BENCH_LATENCY")); err == nil {
		return d
	}
	return 250 * time.Millisecond
}()

// BenchmarkHarnessThroughput runs full LoCoMo (turns-cosine, hashed
// embedder, answer model and llm judge on an OpenAI-compatible server that
// takes 250 ms per reply, no LLM cache) at --concurrency N, after one
// uncounted run that warms the embedding and token caches, and reports:
//
//	ratio        requests per second over N/latency, the most a budget of
//	             N can carry (1 = the server was kept busy the whole run)
//	cpu-ms/req   this process's CPU time (getrusage) per model request
//	inflight     mean requests in flight (ratio × N)
//	gcs/run      garbage collections during a measured run
//	alloc-KB/req heap allocated per model request (KB)
//
// The server runs in this process by default, so cpu-ms/req includes its
// work too; with MEMBENCH_BENCH_SERVER=child it runs in a child process and
// cpu-ms/req is the harness's alone. Without the real LoCoMo file a
// synthetic LoCoMo-shaped file of 2,000 questions stands in (logged).
// scripts/bench-harness.sh runs it at N = 16, 64, 256.
func BenchmarkHarnessThroughput(b *testing.B) {
	data, ok := testutil.SharedPath("datasets", "locomo10.json")
	missing := data
	if !ok {
		data = synthLoCoMo(b, 2000)
	}
	for _, n := range benchConcurrencies(b) {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			if !ok {
				// Logged here: a parent benchmark's log never reaches the
				// output once it has sub-benchmarks.
				b.Logf("LoCoMo not found at %s: using a synthetic LoCoMo-shaped file (2,000 questions)", missing)
			}
			url := benchServer(b)
			b.Setenv("OPENAI_API_KEY", "")
			cache := b.TempDir() // embeddings and token counts cached across runs; LLM replies never
			config := func() membench.Config {
				return membench.Config{
					System: "turns-cosine", Dataset: "locomo", Data: data,
					Model: "backend=openai,model=m,base-url=" + url, Embedder: "hashed", Judges: []string{"llm", "f1"},
					ResultsDir: b.TempDir(), CacheDir: cache, NoCache: true, Quiet: true, Concurrency: n,
				}
			}
			// One uncounted run first, so every N is measured in the same
			// state: embedding and token caches warm, every request sent.
			b.StopTimer()
			if _, err := harness.Run(context.Background(), config(), io.Discard); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			defer profileMeasured(b, n)()
			var ratio, cpu, gcs, alloc, faults, sysShare float64
			for i := 0; i < b.N; i++ {
				cfg := config()
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				usr0, sys0 := cpuTimes()
				flt0 := minorFaults()
				start := time.Now()
				sum, err := harness.Run(context.Background(), cfg, io.Discard)
				wall := time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				usr1, sys1 := cpuTimes()
				used := usr1 - usr0 + sys1 - sys0
				sysShare += float64(sys1-sys0) / float64(used)
				faults += float64(minorFaults() - flt0)
				runtime.ReadMemStats(&m1)
				req := 0
				for _, st := range []string{"answer", "judge"} {
					req += sum.Stages[st].Calls - sum.Stages[st].CachedCalls
				}
				if req == 0 {
					b.Fatal("no model requests")
				}
				ratio += float64(req) / wall.Seconds() / (float64(n) / benchLatency.Seconds())
				cpu += used.Seconds() * 1000 / float64(req)
				gcs += float64(m1.NumGC - m0.NumGC)
				alloc += float64(m1.TotalAlloc-m0.TotalAlloc) / 1024 / float64(req)
			}
			ratio /= float64(b.N)
			b.ReportMetric(ratio, "ratio")
			b.ReportMetric(cpu/float64(b.N), "cpu-ms/req")
			b.ReportMetric(ratio*float64(n), "inflight")
			// Load-independent figures next to the CPU time, which moves
			// with the neighbours: collections per run, and heap bytes
			// allocated per request.
			b.ReportMetric(gcs/float64(b.N), "gcs/run")
			b.ReportMetric(alloc/float64(b.N), "alloc-KB/req")
			// Minor page faults: on a VM a page touched for the first
			// time can cost tens of µs of system time, which is part of
			// cpu-ms/req.
			b.ReportMetric(faults/float64(b.N), "faults/run")
			// The kernel's share of cpu-ms/req: syscalls, loopback TCP
			// (a sender's write runs the receiver's path too) and faults.
			b.ReportMetric(sysShare/float64(b.N), "sys-share")
		})
	}
}

// profileMeasured starts a CPU profile of the measured runs alone (not the
// warm-up) when MEMBENCH_BENCH_CPUPROFILE names a file; N is put before its
// extension. It returns the function that stops it.
func profileMeasured(b *testing.B, n int) func() {
	path := os.Getenv("MEMBENCH_BENCH_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	ext := filepath.Ext(path)
	f, err := os.Create(fmt.Sprintf("%s-N%d%s", strings.TrimSuffix(path, ext), n, ext))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// minorFaults is this process's minor page faults so far.
func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return ru.Minflt
}

// benchConcurrencies reads MEMBENCH_BENCH_N ("16,64,256" by default).
func benchConcurrencies(b *testing.B) []int {
	s := os.Getenv("MEMBENCH_BENCH_N")
	if s == "" {
		s = "16,64,256"
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("MEMBENCH_BENCH_N=%q: want a comma-separated list of positive integers", s)
		}
		out = append(out, n)
	}
	return out
}

// cpuTime is this process's user+system CPU time so far.
func cpuTime() time.Duration {
	u, s := cpuTimes()
	return u + s
}

// cpuTimes is this process's user and system CPU time so far.
func cpuTimes() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// benchServer starts the latency server in this process, or with
// MEMBENCH_BENCH_SERVER=child in a child process (this test binary running
// TestLatencyServerProcess), and returns its base URL.
func benchServer(b *testing.B) string {
	switch mode := os.Getenv("MEMBENCH_BENCH_SERVER"); mode {
	case "", "inproc":
		return llmtest.New(b, llmtest.WithLatency(benchLatency), llmtest.WithChat(harnesstest.Replies), llmtest.WithoutBodies()).URL
	case "child":
		return llmtest.InChild(b, "TestLatencyServerProcess", "MEMBENCH_LATENCY_SERVER")
	default:
		b.Fatalf("MEMBENCH_BENCH_SERVER=%q: want inproc or child", mode)
	}
	return ""
}

// TestLatencyServerProcess is the child side of MEMBENCH_BENCH_SERVER=child:
// it serves until its stdin closes.
func TestLatencyServerProcess(t *testing.T) {
	if os.Getenv("MEMBENCH_LATENCY_SERVER") == "" {
		t.Skip("the benchmark's child server (MEMBENCH_BENCH_SERVER=child)")
	}
	srv := llmtest.New(t, llmtest.WithLatency(benchLatency), llmtest.WithChat(harnesstest.Replies), llmtest.WithoutBodies())
	llmtest.Serve(srv)
}

// BenchmarkHarnessColdWarm is the cold/warm ratio at --concurrency 64 on
// the same setup with the LLM cache on: a run that sends every request
// (embedding and token caches already warm) against the same run under a
// new run id, served entirely from the cache. Reports cold-s, warm-s and
// cold/warm.
func BenchmarkHarnessColdWarm(b *testing.B) {
	data, ok := testutil.SharedPath("datasets", "locomo10.json")
	if !ok {
		b.Logf("LoCoMo not found at %s: using a synthetic LoCoMo-shaped file (2,000 questions)", data)
		data = synthLoCoMo(b, 2000)
	}
	url := benchServer(b)
	b.Setenv("OPENAI_API_KEY", "")
	var cold, warm float64
	for i := 0; i < b.N; i++ {
		cache := b.TempDir()
		cfg := membench.Config{
			System: "turns-cosine", Dataset: "locomo", Data: data,
			Model: "backend=openai,model=m,base-url=" + url, Embedder: "hashed", Judges: []string{"llm", "f1"},
			ResultsDir: b.TempDir(), CacheDir: cache, Quiet: true, Concurrency: 64,
		}
		// Warm the embedding and token caches without touching the LLM cache.
		pre := cfg
		pre.NoCache, pre.ResultsDir = true, b.TempDir()
		if _, err := harness.Run(context.Background(), pre, io.Discard); err != nil {
			b.Fatal(err)
		}
		for j, out := range []*float64{&cold, &warm} {
			c := cfg
			c.RunID = fmt.Sprint("pass-", j)
			start := time.Now()
			sum, err := harness.Run(context.Background(), c, io.Discard)
			if err != nil {
				b.Fatal(err)
			}
			*out += time.Since(start).Seconds()
			if j == 1 && sum.Stages["answer"].CachedCalls != sum.Stages["answer"].Calls {
				b.Fatalf("warm run: %d of %d answers cached", sum.Stages["answer"].CachedCalls, sum.Stages["answer"].Calls)
			}
		}
	}
	b.ReportMetric(cold/float64(b.N), "cold-s")
	b.ReportMetric(warm/float64(b.N), "warm-s")
	b.ReportMetric(cold/warm, "cold/warm")
}
