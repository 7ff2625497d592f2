package summary

import (
	"math"
	"testing"
	"time"

	"github.com/membench/membench/runlog"
)

func TestBuildWallSeconds(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	cases := []struct {
		name   string
		builds []runlog.BuildRecord
		want   float64
	}{
		// Two conversations of 10 s built side by side take 10 s, not 20.
		{"parallel", []runlog.BuildRecord{{Started: at(0), Seconds: 10}, {Started: at(0), Seconds: 10}}, 10},
		// Overlapping [0,10] and [5,12], then [20,23] after a gap (a resumed session).
		{"overlap and gap", []runlog.BuildRecord{{Started: at(20), Seconds: 3}, {Started: at(5), Seconds: 7}, {Started: at(0), Seconds: 10}}, 15},
		{"one inside another", []runlog.BuildRecord{{Started: at(0), Seconds: 30}, {Started: at(4), Seconds: 2}}, 30},
		{"none", nil, 0},
	}
	for _, c := range cases {
		got, ok := buildWallSeconds(c.builds)
		if !ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %v %v, want %v", c.name, got, ok, c.want)
		}
	}
	if _, ok := buildWallSeconds([]runlog.BuildRecord{{Started: t0, Seconds: 1}, {Seconds: 2}}); ok {
		t.Error("a record without a start time should make the wall time unknown")
	}
}
