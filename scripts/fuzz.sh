#!/usr/bin/env bash
# Runs every fuzz target for a short time (FUZZTIME, default 3s each).
# Seeds come from testdata, the embedded sample and templates; failing
# inputs are written to the package's testdata/fuzz/ and then replay as
# ordinary test cases in `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
t="${FUZZTIME:-3s}"
targets=(
  ./datasets:FuzzLoCoMo
  ./datasets:FuzzLoCoMoFast
  ./datasets:FuzzLongMemEval
  ./datasets:FuzzParseByteSize
  ./datasets/datasettest:FuzzTinyQA
  ./datasets/locomoplus:FuzzParseGap
  ./judge:FuzzParseReply
  ./judge:FuzzNegatedCorrect
  ./judge:FuzzMetrics
  ./judge:FuzzStem
  ./audit:FuzzNegatedSupported
  ./audit:FuzzParseWrong
  ./datasets/answerkey:FuzzParseKey
  ./datasets/imagemarks:FuzzMarks
  ./audit:FuzzParseRates
  ./systems/structmem:FuzzParseEntries
  ./systems/structmem:FuzzParseNarrative
  ./systems/flat:FuzzFlatReplies
  ./peers:FuzzPeersParsers
  ./peers:FuzzScoredMeta
  ./bundle:FuzzOpenBundle
  ./llm:FuzzParseSpec
  ./llm:FuzzRetryAfter
  ./llm:FuzzRedactURL
  ./llm/prices:FuzzPricesFile
  ./internal/tokens:FuzzCutsAreExact
  ./internal/names:FuzzCheck
  ./cmd/membench/cliflag:FuzzBoundedFlags
  ./prompts:FuzzPromptFile
  ./systems/adapter:FuzzLineReader
  ./systems/adapter:FuzzParseMemories
  ./systems/adapter:FuzzReadAtMost
)
# Every Fuzz function in the tree must be listed above.
listed=$(printf '%s\n' "${targets[@]}" | sed 's/.*://' | sort)
found=$(grep -rhoE '^func (Fuzz[A-Za-z0-9_]+)\(' --include='*_test.go' . | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/' | sort)
if [ "$listed" != "$found" ]; then
  echo "!! fuzz targets in the tree differ from scripts/fuzz.sh:"; diff <(echo "$listed") <(echo "$found") || true; exit 1
fi
for tg in "${targets[@]}"; do
  pkg="${tg%%:*}"; fn="${tg##*:}"
  echo "   fuzz $pkg $fn ($t)"
  for try in 1 2; do
    if go test "$pkg" -run '^$' -fuzz "^${fn}\$" -fuzztime "$t" -parallel 2 >/tmp/fuzz-$$.log 2>&1; then
      break
    fi
    # Go 1.26's fuzz coordinator can report a bare "context deadline
    # exceeded" when -fuzztime ends while a worker is mid-call on a busy
    # machine (go.dev/issue/75804, fixed in Go 1.27). A real finding
    # writes a failing input; only the bare deadline is tried once more.
    if [ "$try" = 1 ] && grep -q 'context deadline exceeded' /tmp/fuzz-$$.log \
        && ! grep -q 'Failing input written' /tmp/fuzz-$$.log; then
      echo "   $fn: fuzztime deadline with no failing input (go.dev/issue/75804); once more"
      continue
    fi
    tail -20 /tmp/fuzz-$$.log; rm -f /tmp/fuzz-$$.log; exit 1
  done
done
rm -f /tmp/fuzz-$$.log
