#!/usr/bin/env bash
# bundle-figure.sh: the bundle size and replay time for full LoCoMo,
# turns-rerank with logprob decisions and three judges (llm, f1, bleu1),
# recorded against the in-repository fake OpenAI-compatible server.
# Needs ../shared/datasets/locomo10.json (skips, saying so, without it).
# Usage: bash scripts/bundle-figure.sh [OUT_DIR] [REPLAYS]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/membench-bundle-figure}"
n="${2:-3}"
data="$(cd .. && pwd)/shared/datasets/locomo10.json"
[ -f "$data" ] || { echo "bundle-figure: $data is absent; nothing measured"; exit 0; }
rm -rf "$out" && mkdir -p "$out"
go build -o "$out/membench" ./cmd/membench
MEMBENCH_BUNDLE_FIGURE="$out" go test ./harness -run TestBundleFigureFullLoCoMo -count=1 -v -timeout 60m | grep -v '^=== '
bundle="$out/locomo-turns-rerank.tar.gz"
echo "machine: $(nproc) cores, $(uname -m), load average $(cut -d' ' -f1-3 /proc/loadavg)"
# The replay: no server, no key, a fresh cache and results directory each time.
for i in $(seq "$n"); do
  rm -rf "$out/replayed" "$out/cache"
  /usr/bin/time -f "replay $i: %e s wall, %U s user, %S s sys, %M KB max RSS" \
    env OPENAI_API_KEY= OPENAI_BASE_URL= "$out/membench" run --replay "$bundle" --data "$data" \
    --results "$out/replayed" --cache-dir "$out/cache" --quiet >/dev/null
done
cmp <(jq -S '.groups, .overall' "$out/replayed/locomo-turns-rerank-fake-server/summary.json") \
    <(jq -S '.groups, .overall' "$out/results/locomo-turns-rerank-fake-server/summary.json") \
  && echo "the replayed summary equals the recorded one"
