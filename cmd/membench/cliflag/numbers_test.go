package cliflag

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// The ends of each range are accepted; the values Outside lists are not,
// and a refusal leaves the value as it was.
func TestBoundedFlags(t *testing.T) {
	c := &cobra.Command{Use: "x"}
	var f float64
	var n int
	var u uint64
	var d time.Duration
	Float64(c, &f, "share", 0.05, 0, 1, "")
	Int(c, &n, "count", 4, 1, 10, "")
	Uint64(c, &u, "seed", 1, "")
	Duration(c, &d, "step", 30*time.Second, 0, time.Hour, "")
	var z int64
	Size(c, &z, "size", 4<<30, 1<<10, 1<<40, "")
	if c.Flags().Lookup("size").DefValue != "4GiB" {
		t.Errorf("size default shows as %q", c.Flags().Lookup("size").DefValue)
	}
	if f != 0.05 || n != 4 || u != 1 || d != 30*time.Second {
		t.Fatalf("defaults not applied: %v %v %v %v", f, n, u, d)
	}
	ok := map[string][]string{
		"share": {"0", "1", "0.5", " 0.25"},
		"count": {"1", "10", "0x5"},
		"seed":  {"0", "18446744073709551615"},
		"step":  {"0s", "1h", "59m"},
		"size":  {"1KiB", "1024", "8GiB", "1TiB", "500MB"},
	}
	for name, vals := range ok {
		fl := c.Flags().Lookup(name)
		for _, v := range vals {
			if err := fl.Value.Set(v); err != nil {
				t.Errorf("--%s %q refused: %v", name, v, err)
			}
		}
		before := fl.Value.String()
		for _, v := range fl.Value.(Bounded).Outside() {
			err := fl.Value.Set(v)
			if err == nil {
				t.Errorf("--%s %q accepted", name, v)
				continue
			}
			if !strings.Contains(err.Error(), "give ") {
				t.Errorf("--%s %q: %q does not say what to give", name, v, err)
			}
			if fl.Value.String() != before {
				t.Errorf("--%s %q: refused but the value changed from %s to %s", name, v, before, fl.Value.String())
			}
		}
	}
}

func TestOutsideCoversBothEnds(t *testing.T) {
	v := &bounded[float64]{new(float64), 0, 1}
	out := strings.Join(v.Outside(), " ")
	for _, want := range []string{"NaN", "Inf", "-Inf", "1e999"} {
		if !strings.Contains(out, want) {
			t.Errorf("Outside misses %s: %s", want, out)
		}
	}
	full := &bounded[int]{new(int), math.MinInt, math.MaxInt}
	if err := full.Set("9223372036854775807"); err != nil {
		t.Errorf("MaxInt refused on a full-range flag: %v", err)
	}
}

// FuzzBoundedFlags: whatever is typed, a value is either refused or ends
// up finite and in range.
func FuzzBoundedFlags(f *testing.F) {
	for _, s := range []string{"0.5", "NaN", "-Inf", "1e999", "0x10", "3", "-1", "30s", "", " 1 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var fl float64
		if (&bounded[float64]{&fl, -2, 3}).Set(s) == nil && (math.IsNaN(fl) || fl < -2 || fl > 3) {
			t.Fatalf("float %q accepted as %v", s, fl)
		}
		var n int
		if (&bounded[int]{&n, -2, 3}).Set(s) == nil && (n < -2 || n > 3) {
			t.Fatalf("int %q accepted as %v", s, n)
		}
		var d time.Duration
		if (&bounded[time.Duration]{&d, 0, time.Minute}).Set(s) == nil && (d < 0 || d > time.Minute) {
			t.Fatalf("duration %q accepted as %v", s, d)
		}
	})
}
