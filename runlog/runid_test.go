package runlog

import (
	"math"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/badinput"
)

func TestCheckRunID(t *testing.T) {
	for _, id := range []string{"..", ".", "../x", "a/b", "/abs", `a\b`, "x/..", ""} {
		if membench.CheckRunID(id) == nil {
			t.Errorf("run id %q accepted", id)
		}
	}
	for _, id := range []string{"my-run", "locomo-flat-0123456789", "a..b", ".hidden"} {
		if err := membench.CheckRunID(id); err != nil {
			t.Errorf("run id %q refused: %v", id, err)
		}
	}
}

// Ids that are one path element but make folders a shell or terminal
// mangles, or that no file system takes, are refused as bad input.
func TestCheckRunIDRefusesUnsafeNames(t *testing.T) {
	long := strings.Repeat("x", 101)
	for _, id := range []string{"a\nb", "a\tb", "a\x1b[31m", "a b", "é", long, "a:b"} {
		err := membench.CheckRunID(id)
		if err == nil {
			t.Errorf("run id %q accepted", id)
			continue
		}
		if !badinput.Is(err) || !strings.Contains(err.Error(), "--run-id") || strings.ContainsAny(err.Error(), "\n\t\x1b") {
			t.Errorf("run id %q: %v (want a one-line input error naming --run-id)", id, err)
		}
	}
	if err := membench.CheckRunID(strings.Repeat("x", 100)); err != nil {
		t.Errorf("a 100-character id refused: %v", err)
	}
	if err := (membench.Config{Dataset: "locomo\n"}).Validate(); err == nil || !strings.Contains(err.Error(), "--dataset") {
		t.Errorf("dataset name with a newline: %v", err)
	}
}

// Numbers from a YAML config get the flags' checks: NaN and values past
// the bounds are refused, not defaulted or overflowed.
func TestValidateRefusesNumbersOutOfRange(t *testing.T) {
	for name, c := range map[string]membench.Config{
		"NaN share":        {MaxBuildFailures: math.NaN()},
		"share above 1":    {MaxBuildFailures: 1.5},
		"infinite share":   {MaxBuildFailures: math.Inf(1)},
		"long turn step":   {TurnStep: membench.MaxTurnStep + 1},
		"huge k":           {K: membench.MaxK + 1},
		"huge concurrency": {Concurrency: membench.MaxConcurrency + 1},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if err := (membench.Config{MaxBuildFailures: 1, TurnStep: membench.MaxTurnStep, K: membench.MaxK, Concurrency: membench.MaxConcurrency}).Validate(); err != nil {
		t.Errorf("the bounds themselves refused: %v", err)
	}
}
