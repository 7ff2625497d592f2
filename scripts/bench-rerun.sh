#!/usr/bin/env bash
# Whole-process time of fully cached reruns of full LoCoMo (issue 12's
# target: under 0.5 s of wall time). One cold run of turns-cosine with the
# answer model and the llm judge on an OpenAI-compatible server (llm/llmtest
# in a child process, 250 ms per reply) fills the LLM and embedding caches;
# then, R times each, in turn:
#   warm     the same command into a new results folder: every reply from
#            the LLM cache, every record written again
#   nothing  the same command on the finished folder: nothing left to do,
#            the summary recomputed
# It prints the median (and min-max) wall and CPU seconds of each, the
# median wall over the 0.5 s bound, the median peak RSS and minor page
# faults (a page touched for the first time costs system time, so memory
# touched is time), and the load average before and
# after: on a shared machine these move with the neighbours, so quote them
# with it.
# Measurements, not assertions.
#
# Usage: bash scripts/bench-rerun.sh [--runs R] [--embedder NAME] [--keep DIR]
#   --runs R         runs of each kind (default 5)
#   --embedder NAME  hashed (default) or use-lite (its cold run embeds
#                    7,868 texts: minutes)
#   --keep DIR       work in DIR and keep it (binary, caches, runs)
# Needs ../shared/datasets/locomo10.json (skips, saying so, without it).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=5 emb=hashed keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift ;;
    --embedder) emb="$2"; shift ;;
    --keep) keep="$2"; shift ;;
    *) echo "bench-rerun: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
  shift
done
data="$(cd .. && pwd)/shared/datasets/locomo10.json"
[ -f "$data" ] || { echo "bench-rerun: $data is absent; nothing measured"; exit 0; }
if [ -n "$keep" ]; then out="$keep"; mkdir -p "$out"; else out="$(mktemp -d)"; fi
cleanup() {
  if [ -n "${SRV_PID:-}" ]; then kill "$SRV_PID" 2>/dev/null || true; fi
  [ -n "$keep" ] || rm -rf "$out"
}
trap cleanup EXIT
go build -o "$out/membench" ./cmd/membench
go test -c -o "$out/harness.test" ./harness
# The fake server serves until its stdin closes; its first line is its URL.
coproc SRV { MEMBENCH_LATENCY_SERVER=1 exec "$out/harness.test" -test.run '^TestLatencyServerProcess$'; }
read -r _ url <&"${SRV[0]}"
export OPENAI_API_KEY=bench-rerun
args=(run --dataset locomo --data "$data" --system turns-cosine --embedder "$emb" --llm openai --model m
  --base-url "$url" --judge-spec llm --judge-spec f1 --cache-dir "$out/cache" --quiet)
echo "== machine: $(nproc) cores, $(uptime | sed 's/.*load/load/'); embedder $emb"
if [ ! -d "$out/cold" ]; then
  /usr/bin/time -f "cold run (fills the caches): %e s wall, %U s user, %S s sys" \
    "$out/membench" "${args[@]}" --results "$out/cold" --concurrency 64 >/dev/null
fi
: >"$out/warm.t"; : >"$out/nothing.t"
for i in $(seq "$runs"); do
  rm -rf "$out/warm"
  /usr/bin/time -a -o "$out/warm.t" -f "%e %U %S %M %R" "$out/membench" "${args[@]}" --results "$out/warm" >/dev/null
  /usr/bin/time -a -o "$out/nothing.t" -f "%e %U %S %M %R" "$out/membench" "${args[@]}" --results "$out/cold" >/dev/null 2>&1
done
# median and range of wall and of CPU (user + sys) over the runs; median
# peak RSS and minor faults
stats() {
  awk '{ w[NR] = $1; c[NR] = $2 + $3; m[NR] = $4; f[NR] = $5 }
    function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j] < a[j-1]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
      return (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
    END { n = NR; mw = med(w, n); mc = med(c, n); mm = med(m, n); mf = med(f, n)
      printf "%-8s wall %.2f s (%.2f-%.2f)  cpu %.2f s (%.2f-%.2f)  wall/0.5 s = %.1f  peak %.0f MiB  %d minor faults\n", name, mw, w[1], w[n], mc, c[1], c[n], mw / 0.5, mm / 1024, mf }' name="$1" "$2"
}
echo "$runs runs each, medians (min-max):"
stats warm "$out/warm.t"
stats nothing "$out/nothing.t"
echo "== load after: $(uptime | sed 's/.*load/load/')"
