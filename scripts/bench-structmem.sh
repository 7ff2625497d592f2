#!/usr/bin/env bash
# Benchmark of the offline StructMem build on full LoCoMo (10 conversations):
# model calls and tokens by stage, memory counts, wall time and peak RSS,
# next to the paper's Table 2 build cost (1,056 calls on the authors' counter,
# 1.501 M input tokens, gpt-4o-mini; docs/structmem.md says how the counters
# differ). The offline backend counts the tokens of the real rendered
# prompts, so calls and input tokens are comparable in shape; output tokens
# are the heuristics' answers, not a model's.
#
# Usage: bash scripts/bench-structmem.sh [extra membench run flags]
# Env: DATA (default ../shared/datasets/locomo10.json), CONCURRENCY
# (default 2), KEEP=1 keeps the temp results dir. Every question is also
# answered and judged offline (run's --limit caps questions over the whole
# dataset, which would cut conversations), so wall time covers the whole
# run; build seconds are reported apart.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-../shared/datasets/locomo10.json}
CONCURRENCY=${CONCURRENCY:-2}
if [ ! -f "$DATA" ]; then
	echo "bench-structmem: $DATA not found; skipping (set DATA=path/to/locomo10.json)"
	exit 0
fi
for tool in jq /usr/bin/time go; do
	command -v "$tool" >/dev/null || { echo "bench-structmem: needs $tool" >&2; exit 1; }
done
tmp=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/membench" ./cmd/membench
# A fresh cache dir, so no embedding or model answer is reused from earlier
# runs (the embedder model itself still comes from $MEMBENCH_HOME).
/usr/bin/time -v -o "$tmp/time.txt" "$tmp/membench" run --system structmem --dataset locomo --data "$DATA" \
	--results "$tmp/results" --cache-dir "$tmp/cache" --run-id bench \
	--concurrency "$CONCURRENCY" --quiet "$@" >"$tmp/run.out" 2>"$tmp/run.err" || {
	echo "bench-structmem: membench run failed:" >&2
	cat "$tmp/run.err" >&2
	exit 1
}
dir="$tmp/results/bench"
b="$dir/build.jsonl"
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time.txt")
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time.txt")
echo "StructMem offline build, full LoCoMo ($(jq -s length "$b") conversations, $(jq -s 'map(.turns)|add' "$b") turns)"
echo "embedder: $(jq -r .embedder "$dir/manifest.json")"
jq -rs '
  def stage($l): [.[].stages[] | select(.label == $l)] | {calls: (map(.calls)|add // 0), in: (map(.input_tokens)|add // 0), out: (map(.output_tokens)|add // 0)};
  (map(.calls)|add) as $calls | (map(.input_tokens)|add) as $in | (map(.output_tokens)|add) as $out |
  "total: \($calls) calls, \($in) input + \($out) output tokens",
  "on the authors counter (one per extraction batch, factual and relational together, one per window): \(map(.stats.counts.authors_counter_calls // 0)|add) calls (\(map(.stats.counts.batches // 0)|add) batches)",
  "paper (Table 2, gpt-4o-mini): 1056 calls, 1501000 input + 436000 output tokens",
  "ratio to paper: calls \($calls/1056*100|round/100)x, input tokens \($in/1501000*100|round/100)x, output tokens \($out/436000*100|round/100)x",
  "by stage:",
  (["extract_fact","extract_rel","consolidate"][] as $l | stage($l) | "  \($l): \(.calls) calls, \(.in) in, \(.out) out"),
  "build seconds (sum of per-conversation Ingest wall time): \(map(.seconds)|add*10|round/10)",
  "memory: entries \(map(.stats.counts.entries // 0)|add) (factual \(map(.stats.counts.entries_factual // 0)|add), relational \(map(.stats.counts.entries_relational // 0)|add)), syntheses \(map(.stats.counts.syntheses // 0)|add), dropped entries \(map(.stats.counts.dropped_entries // 0)|add), foreign citations \(map(.stats.counts.foreign_citations // 0)|add), failed extractions \(map(.stats.counts.failed_extractions // 0)|add), windows \(map(.stats.counts.windows // 0)|add)"
' "$b"
# Embeddings are metered per conversation (build and retrieval together:
# the embedder cannot tell which) in costs.jsonl.
jq -rs '[.[].tallies[] | select(.stage == "embed")] | "  embedding (build + questions): \(map(.calls)|add // 0) texts, \(map(.input_tokens)|add // 0) tokens, \(map(.seconds)|add // 0 | .*10|round/10) s"' "$dir/costs.jsonl"
echo "wall time (whole run: build, retrieval, offline answers and judgments): $wall"
echo "peak RSS: $((rss / 1024)) MiB"
