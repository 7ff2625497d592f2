#!/usr/bin/env bash
# Harness throughput against an OpenAI-compatible server with a fixed 250 ms
# reply latency (llm/llmtest, in this process), issue 12: full LoCoMo with
# turns-cosine, the hashed embedder, an answer model and the llm judge on
# the server (two requests per question), LLM cache off, measured after one
# uncounted run that warms the embedding and token caches. For each
# --concurrency N it prints
#   ratio       requests/s over the ideal N / 250 ms (1 = the server was
#               never short of requests); targets 0.9 at N=64, 0.8 at N=256
#   cpu ms/req  process CPU time (getrusage) per model request; target 0.3
#   in flight   mean requests in flight (ratio x N)
#   gcs         garbage collections per measured run, and KB heap
#   alloc KB    allocated per request (neither moves with the load)
#   faults      minor page faults per measured run (each costs system
#               time, inside cpu ms/req)
# then the cold/warm ratio at N=64 with the LLM cache on (all requests sent,
# then the same run served from the cache).
# These are measurements, not assertions: on a shared machine they move with
# the neighbours (the load average is printed), so quote them with it.
#
# Usage: bash scripts/bench-harness.sh [--child] [--floor] [--runs R] [--vs REV [--pairs P]] [--series R] [N[,N...]]
#   --child   run the server in a child process, so cpu ms/req is the
#             harness's alone (by default the in-process server's CPU is
#             included)
#   --floor   also measure the floor under cpu ms/req (BenchmarkHTTPFloor):
#             as many requests, N at a time, to the same server from a bare
#             HTTP client that does nothing else, and print harness/floor.
#             The floor itself moves a lot between runs at low N (the
#             runtime's and the kernel's idle path), which is why it is
#             measured beside the harness rather than quoted once. Not
#             with --vs.
#   --runs R  runs per N (default 1; the benchmark reports their mean)
#   --vs REV  compare with git revision REV instead: both builds run in
#             turn (REV first) P times (--pairs, default 3), each with the
#             server in a child process, and the script prints every run,
#             then per N the medians and the median of the pairs' CPU
#             ratios (this tree / REV), which holds up on a shared machine
#             better than any single figure; beside the medians, the least
#             CPU figure of each build (the run its neighbours disturbed
#             least: they only ever add time) and the allocation per
#             request (which they do not move at all). No cold/warm figure.
#   --series R  run this tree R times, each run its own process with the
#             server in a child (one warm-up and one measured run, as
#             --vs does), and print every run, then per N the median, least
#             and most of ratio and cpu ms/req and how many runs were over
#             the CPU target. Single runs of one build move with the
#             host's noise, so a target is judged on a series, not on one
#             run. Not with --vs, --pairs, --floor
#             or --runs; no cold/warm figure.
#   N,...     concurrencies (default 16,64,256)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=inproc ns=16,64,256 runs=1 vs="" pairs=3 floor="" series="" given_series="" given_pairs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --child) mode=child ;;
    --floor) floor=1 ;;
    --runs) runs="$2"; shift ;;
    --vs) vs="$2"; shift ;;
    --pairs) pairs="$2" given_pairs=1; shift ;;
    --series) series="${2-}" given_series=1; [ $# -lt 2 ] || shift ;;
    [0-9]*) ns="$1" ;;
    *) echo "bench-harness: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
  shift
done
# bench BIN BENCHTIME runs one built throughput benchmark from this tree's
# harness folder (so any build finds ../shared beside this checkout), the
# server in a child process: what --vs and --series measure.
bench() {
  (cd harness && MEMBENCH_BENCH_N="$ns" MEMBENCH_BENCH_SERVER=child \
    "$1" -test.run '^$' -test.bench '^BenchmarkHarnessThroughput$' -test.benchtime "$2" -test.timeout 60m)
}
# median, least and most of a space-separated list, for the awk summaries
# of --vs and --series.
stats_awk='
  function sorted(list, a,   k, i, j, t) {
    k = split(list, a, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k
  }
  function median(list,   a, k) { k = sorted(list, a); return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
  function least(list,   a) { sorted(list, a); return a[1] }
  function most(list,   a, k) { k = sorted(list, a); return a[k] }
'
if [ -n "$vs" ] && [ -n "$floor" ]; then
  echo "bench-harness: --floor is not for --vs (measure the floor with --child --floor, without --vs)" >&2; exit 2
fi
if [ -n "$given_series" ]; then
  case "$series" in ''|*[!0-9]*) series=0 ;; esac
  if [ "$((10#$series))" -lt 1 ]; then echo "bench-harness: --series: want a positive number of runs, e.g. --series 9" >&2; exit 2; fi
  if [ -n "$vs" ] || [ -n "$floor" ] || [ "$runs" != 1 ] || [ -n "$given_pairs" ]; then
    echo "bench-harness: --series is not for --vs, --pairs, --floor or --runs (it runs this tree, one measured run per process, the server in a child)" >&2; exit 2
  fi
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  go test -c -o "$tmp/h.test" ./harness
  echo "== machine: $(nproc) cores, $(uptime | sed 's/.*load/load/'); this tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ', with uncommitted changes')); server: child; $series runs"
  for r in $(seq "$series"); do
    load="$(cut -d' ' -f1 /proc/loadavg)"
    bench "$tmp/h.test" 1x >"$tmp/out" 2>&1 && rc=0 || rc=$?
    [ "$r" != 1 ] || grep -m1 'LoCoMo not found' "$tmp/out" >&2 || true
    awk -v r="$r" -v l="$load" '/^BenchmarkHarnessThroughput\/N=/ {
        split($1, a, "="); n = a[2]; sub(/-[0-9]+$/, "", n)
        q = c = y = f = ""
        for (i = 2; i <= NF; i++) { if ($i == "ratio") q = $(i-1); if ($i == "cpu-ms/req") c = $(i-1); if ($i == "sys-share") y = $(i-1); if ($i == "faults/run") f = $(i-1) }
        if (q == "" || c == "") next
        printf "run %s N=%-4s ratio %.3f  cpu ms/req %.4f  sys-share %.2f  faults %d  load before %s\n", r, n, q, c, y, f, l }' "$tmp/out" | tee -a "$tmp/runs"
    got="$(grep -c "^run $r " "$tmp/runs" || true)"
    if [ "$rc" != 0 ] || [ "$got" != "$(echo "$ns" | tr ',' '\n' | grep -c .)" ]; then
      tail -20 "$tmp/out" >&2
      echo "bench-harness: run $r failed or measured only $got of the concurrencies $ns (its output is above; the runs before it are printed above too)" >&2; exit 1
    fi
  done
  awk -v order="$ns" "$stats_awk"'
    { n = $3; sub(/N=/, "", n); rat[n] = rat[n] " " $5; cpu[n] = cpu[n] " " $8; runs[n]++; if ($8 + 0 > 0.3) over[n]++ }
    END {
      printf "%-6s %-30s %-8s %-30s %-8s %s\n", "N", "ratio: median (least-most)", "target", "cpu ms/req: median (least-most)", "target", "runs over 0.3"
      k = split(order, ns, ",")
      for (j = 1; j <= k; j++) {
        n = ns[j]
        t = (n == 64) ? "0.9" : (n == 256) ? "0.8" : "-"
        printf "%-6s %-30s %-8s %-30s %-8s %d of %d\n", n, sprintf("%.3f (%.3f-%.3f)", median(rat[n]), least(rat[n]), most(rat[n])), t,
          sprintf("%.3f (%.3f-%.3f)", median(cpu[n]), least(cpu[n]), most(cpu[n])), "0.3", over[n] + 0, runs[n]
      }
    }' "$tmp/runs"
  echo "== load after: $(uptime | sed 's/.*load/load/')"
  exit 0
fi
if [ -n "$vs" ]; then
  git rev-parse --verify -q "$vs^{commit}" >/dev/null || { echo "bench-harness: --vs $vs: not a git revision here (try a commit hash or branch)" >&2; exit 2; }
  tmp="$(mktemp -d)"
  trap 'git worktree remove --force "$tmp/src" 2>/dev/null || true; rm -rf "$tmp"' EXIT
  git worktree add -q --detach "$tmp/src" "$vs"
  (cd "$tmp/src" && go test -c -o "$tmp/before.test" ./harness)
  git worktree remove --force "$tmp/src"
  go test -c -o "$tmp/after.test" ./harness
  echo "== machine: $(nproc) cores, $(uptime | sed 's/.*load/load/'); before: $vs ($(git rev-parse --short "$vs")), after: this tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ', with uncommitted changes')); server: child"
  for p in $(seq "$pairs"); do
    for which in before after; do
      bench "$tmp/$which.test" "${runs}x" |
        awk -v p="$p" -v w="$which" '/^BenchmarkHarnessThroughput\/N=/ {
          split($1, a, "="); n = a[2]; sub(/-[0-9]+$/, "", n)
          k = "-" # a revision older than the alloc-KB/req metric has none
          for (i = 2; i <= NF; i++) { if ($i == "ratio") r = $(i-1); if ($i == "cpu-ms/req") c = $(i-1); if ($i == "alloc-KB/req") k = sprintf("%.1f", $(i-1)) }
          printf "pair %s %-6s N=%-4s ratio %.3f  cpu ms/req %.3f  alloc KB/req %s\n", p, w, n, r, c, k }' | tee -a "$tmp/runs"
    done
  done
  awk "$stats_awk"'
    function kbs(list) { return (list ~ /-/) ? "-" : sprintf("%.1f", median(list)) }
    { n = $4; sub(/N=/, "", n); ns[n] = 1; key = n SUBSEP $3
      cpu[key] = cpu[key] " " $9; rat[key] = rat[key] " " $6; kb[key] = kb[key] " " $12
      if ($3 == "before") b[n, $2] = $9; else a[n, $2] = $9 }
    END {
      printf "%-6s %-32s %-32s %-20s %s\n", "N", "before: ratio / cpu (least)", "after: ratio / cpu (least)", "alloc KB/req b / a", "cpu after/before (median of pairs)"
      for (n in ns) {
        pr = ""
        for (k in a) { split(k, kk, SUBSEP); if (kk[1] == n && b[n, kk[2]] > 0) pr = pr " " a[k] / b[n, kk[2]] }
        printf "%-6s %-32s %-32s %-20s %.2f\n", n, sprintf("%.3f / %.3f (%.3f)", median(rat[n, "before"]), median(cpu[n, "before"]), least(cpu[n, "before"])),
          sprintf("%.3f / %.3f (%.3f)", median(rat[n, "after"]), median(cpu[n, "after"]), least(cpu[n, "after"])),
          sprintf("%s / %s", kbs(kb[n, "before"]), kbs(kb[n, "after"])), median(pr)
      }
    }' "$tmp/runs"
  echo "== load after: $(uptime | sed 's/.*load/load/')"
  exit 0
fi
echo "== machine: $(nproc) cores, $(uptime | sed 's/.*load/load/'); server: $mode"
out="$(mktemp)"
trap 'rm -f "$out" "$out.cpu"' EXIT
MEMBENCH_BENCH_N="$ns" MEMBENCH_BENCH_SERVER="$mode" \
  go test -run '^$' -bench '^BenchmarkHarnessThroughput$' -benchtime "${runs}x" -timeout 60m ./harness >"$out"
grep -E '^(BenchmarkHarness|.*LoCoMo not found)' "$out" >&2 || true
awk '
  BEGIN { printf "%-6s %-8s %-8s %-12s %-8s %-13s %-5s %-13s %s\n", "N", "ratio", "target", "cpu ms/req", "target", "in flight", "gcs", "alloc KB/req", "faults" }
  /^BenchmarkHarnessThroughput\/N=/ {
    split($1, a, "="); n = a[2]; sub(/-[0-9]+$/, "", n)
    for (i = 2; i <= NF; i++) {
      if ($i == "ratio") r = $(i-1)
      if ($i == "cpu-ms/req") c = $(i-1)
      if ($i == "inflight") f = $(i-1)
      if ($i == "gcs/run") g = $(i-1)
      if ($i == "alloc-KB/req") k = $(i-1)
      if ($i == "faults/run") pf = $(i-1)
    }
    t = (n == 64) ? "0.9" : (n == 256) ? "0.8" : "-"
    printf "%-6s %-8.3f %-8s %-12.3f %-8s %-13s %-5.1f %-13.1f %.0f\n", n, r, t, c, "0.3", sprintf("%.1f of %s", f, n), g, k, pf
    print n, c > "/dev/stderr"
  }' "$out" 2>"$out.cpu"
if [ -n "$floor" ]; then
  MEMBENCH_BENCH_N="$ns" MEMBENCH_BENCH_SERVER="$mode" \
    go test -run '^$' -bench '^BenchmarkHTTPFloor$' -benchtime "${runs}x" -timeout 60m ./harness >"$out"
  awk 'NR == FNR { h[$1] = $2; next }
    /^BenchmarkHTTPFloor\/N=/ {
      split($1, a, "="); n = a[2]; sub(/-[0-9]+$/, "", n)
      for (i = 2; i <= NF; i++) if ($i == "cpu-ms/req") c = $(i-1)
      printf "floor at N=%s (bare HTTP client, same server): cpu ms/req %.3f; harness/floor %.1f\n", n, c, (c > 0) ? h[n] / c : 0
    }' "$out.cpu" "$out"
fi
rm -f "$out.cpu"
# Cold/warm at N=64 with the LLM cache on: every request sent, then the
# same run under a new run id served from the cache.
MEMBENCH_BENCH_SERVER="$mode" \
  go test -run '^$' -bench '^BenchmarkHarnessColdWarm$' -benchtime "${runs}x" -timeout 30m ./harness >"$out"
awk '/^BenchmarkHarnessColdWarm/ {
    for (i = 2; i <= NF; i++) {
      if ($i == "cold-s") c = $(i-1)
      if ($i == "warm-s") w = $(i-1)
      if ($i == "cold/warm") r = $(i-1)
    }
    printf "cold/warm at N=64, LLM cache on: cold %.2f s, warm %.2f s, ratio %.1f\n", c, w, r
  }' "$out"
echo "== load after: $(uptime | sed 's/.*load/load/')"
