package progress

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/runlog"
)

// fakeClock is the time a test says it is: seconds after a fixed start.
type fakeClock struct{ t time.Time }

var clock0 = time.Unix(1_700_000_000, 0)

func newFakeClock() *fakeClock                 { return &fakeClock{t: clock0} }
func (c *fakeClock) now() time.Time            { return c.t }
func (c *fakeClock) set(d time.Duration)       { c.t = clock0.Add(d) }
func (c *fakeClock) at(secs float64) time.Time { return clock0.Add(secs2d(secs)) }
func secs2d(s float64) time.Duration           { return time.Duration(s * float64(time.Second)) }

// fixedModel replies with a fixed usage, so the meters count known tokens.
type fixedModel struct{ in, out int }

func (m fixedModel) ID() membench.ModelID { return membench.ModelID{Backend: "test", Model: "fixed"} }
func (m fixedModel) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{Text: "ok", Usage: membench.Usage{InputTokens: m.in, OutputTokens: m.out}}, nil
}
func (m fixedModel) Decide(context.Context, llm.DecideRequest) (llm.DecideResponse, error) {
	return llm.DecideResponse{}, nil
}

func call(t *testing.T, m llm.Model, n int) {
	t.Helper()
	for range n {
		if _, err := m.Chat(context.Background(), llm.Request{Stage: membench.StageAnswer}); err != nil {
			t.Fatal(err)
		}
	}
}

var etaRe = regexp.MustCompile(`· eta (\S+)`)

// lastETA is the ETA on the live line drawn last ("" when none shows).
func lastETA(t *testing.T, out string) (string, time.Duration) {
	t.Helper()
	lines := strings.Split(out, "\r")
	line := lines[len(lines)-1]
	m := etaRe.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no eta on the line %q", line)
	}
	if m[1] == "?" {
		return line, -1
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatalf("eta %q on %q: %v", m[1], line, err)
	}
	return line, d
}

// A terminal run driven through the build, a stage change, then answers
// coming in bursts of 8 (N in flight finishing together) at 2/s, 80 at
// once (from the LLM cache), then one by one at 1/s: the ETA shown is
// labelled, starts afresh with the stage, tracks each rate, and once 10%
// of the stage is done never moves by more than 4x from one redraw to
// the next.
func TestProgressETAOnTerminalIsSmoothAcrossStageAndRateChange(t *testing.T) {
	clk := newFakeClock()
	var out bytes.Buffer
	const total = 200
	p := start(&out, Work{Conversations: 2, Questions: total}, options{Terminal: true, Manual: true, Now: clk.now})
	meter := llm.NewMeter()
	untrack := p.Track(meter)
	model := llm.WithMeter(fixedModel{in: 1000, out: 20}, meter, "answer")

	// Events: conversation builds at 8 s and 15 s; then answers.
	type event struct {
		at    float64
		built bool
	}
	events := []event{{8, true}, {15, true}}
	const stage2 = 15.0
	at := stage2
	for range 5 { // bursts of 8 every 4 s: 2/s
		at += 4
		for range 8 {
			events = append(events, event{at: at})
		}
	}
	at += 4
	for range 80 { // answers the LLM cache had: 80 at once
		events = append(events, event{at: at})
	}
	slowFrom := at
	for range total - 120 { // one a second from then on
		at++
		events = append(events, event{at: at})
	}

	const step = 0.25 // seconds between redraws
	var prev time.Duration
	var prevLine string
	done, built := 0, 0
	checkedFirst, checkedFast, checkedSlow := false, false, false
	for tick, ev := 0, 0; ; tick++ {
		now := float64(tick) * step
		for ; ev < len(events) && events[ev].at <= now; ev++ {
			clk.t = clk.at(events[ev].at)
			if events[ev].built {
				p.Built()
				built++
			} else {
				call(t, model, 2)
				p.Add(1)
				done++
			}
		}
		if done == total {
			break
		}
		clk.t = clk.at(now)
		p.tick(clk.now())
		line, eta := lastETA(t, out.String())
		switch {
		case built < 2:
			if !strings.Contains(line, fmt.Sprintf("build %d/2 conversations · elapsed ", built)) {
				t.Fatalf("at %.2fs the line does not say the build stage: %q", now, line)
			}
			if built == 1 && eta < 0 {
				t.Fatalf("one of two built and no ETA: %q", line)
			}
		case done == 0:
			// A new stage has no rate yet: its ETA is unknown, not the build's.
			if !strings.Contains(line, "answer+judge 0/200 questions · elapsed ") || eta >= 0 {
				t.Fatalf("at %.2fs, just into answering: %q", now, line)
			}
		case eta < 0:
			t.Fatalf("answers done and no ETA: %q", line)
		}
		if done >= total/10 && prev > 0 {
			if r := float64(eta) / float64(prev); r > 4 || r < 0.25 {
				t.Fatalf("ETA jumped %.1fx at %.2fs (%d/%d done):\n%q\n%q", r, now, done, total, prevLine, line)
			}
		}
		// Each rate, once measured for a while, gives the time left within
		// a factor of 1.5 (the estimate cannot know the rate will change).
		// The stage's first estimate is of this stage's rate alone, not
		// diluted by the build before it.
		if done == 8 && !checkedFirst {
			checkedFirst = true
			if want := secs2d(float64(total-done) / 2); eta < want*2/3 || eta > want*3/2 {
				t.Errorf("first ETA of the stage at 2/s with %d left is %v, want about %v: %q", total-done, eta, want, line)
			}
		}
		if done == 40 && !checkedFast {
			checkedFast = true
			if want := secs2d(float64(total-done) / 2); eta < want*2/3 || eta > want*3/2 {
				t.Errorf("at 2/s with %d left the ETA is %v, want about %v: %q", total-done, eta, want, line)
			}
		}
		if done == 185 && !checkedSlow {
			checkedSlow = true
			if want := secs2d(float64(total - done)); eta < want*2/3 || eta > want*3/2 {
				t.Errorf("at 1/s with %d left (slow since %.0fs) the ETA is %v, want about %v: %q", total-done, slowFrom, eta, want, line)
			}
		}
		if built == 2 && done > 0 {
			prev, prevLine = eta, line
		}
		if !strings.Contains(line, fmt.Sprintf("· %d calls · tokens %s in, %s out", 2*done, fmtCount(2000*done), fmtCount(40*done))) {
			t.Fatalf("the line does not count %d calls: %q", 2*done, line)
		}
	}
	if !checkedFirst || !checkedFast || !checkedSlow {
		t.Fatal("the drive skipped a check")
	}
	untrack()
	p.Summarize()
	p.Finish()
	last := out.String()[strings.LastIndex(out.String(), "\r")+1:]
	if want := "done · 200/200 questions, 2/2 conversations built · elapsed 1m59s · 400 calls · tokens 400.0k in, 8.0k out\x1b[K\n"; last != want {
		t.Errorf("last line %q\nwant      %q", last, want)
	}
}

// Off a terminal: a line at the start, at each stage change, every logEvery
// since the last line, and at the end; nothing with --quiet. With one
// answer 8 s into the stage and none since, the ETA holds for one such
// gap and then grows with the wait (3 left at 1 per 8 s, then 1 per 22 s
// at 42 s, 1 per 52 s at 72 s).
func TestProgressLogLinesOffTerminal(t *testing.T) {
	drive := func(quiet bool) string {
		clk := newFakeClock()
		var out bytes.Buffer
		p := start(&out, Work{Conversations: 1, Questions: 4}, options{Quiet: quiet, Manual: true, Now: clk.now})
		build := llm.NewMeter()
		untrackBuild := p.Track(build)
		call(t, llm.WithMeter(fixedModel{in: 100, out: 10}, build, "build"), 3)
		tick := func(s float64) { clk.set(secs2d(s)); p.tick(clk.now()) }
		tick(10)
		clk.set(12 * time.Second)
		p.Built()
		untrackBuild()
		q := llm.NewMeter()
		untrackQ := p.Track(q)
		call(t, llm.WithMeter(fixedModel{in: 100, out: 10}, q, "answer"), 1)
		clk.set(20 * time.Second)
		p.Add(1)
		for _, s := range []float64{20, 30, 40, 42, 50} {
			tick(s)
		}
		// A meter still in use counts on the next line.
		call(t, llm.WithMeter(fixedModel{in: 1000, out: 1}, q, "judge"), 1)
		tick(60)
		tick(72)
		untrackQ()
		clk.set(75 * time.Second)
		p.Add(3)
		tick(75.5)
		clk.set(76 * time.Second)
		p.Summarize()
		clk.set(77 * time.Second)
		p.Finish()
		p.Finish() // once only
		return out.String()
	}
	got := drive(false)
	want := `progress: started · 1 conversation to build, 4 questions to answer and judge · a line every 30s and at each stage
progress: answer+judge 0/4 questions · elapsed 12s · eta ? · 3 calls · tokens 300 in, 30 out
progress: answer+judge 1/4 questions · elapsed 42s · eta 1m06s · 4 calls · tokens 400 in, 40 out
progress: answer+judge 1/4 questions · elapsed 1m12s · eta 2m36s · 5 calls · tokens 1.4k in, 41 out
progress: summary · 4/4 questions · elapsed 1m16s · 5 calls · tokens 1.4k in, 41 out
progress: done · 4/4 questions, 1/1 conversations built · elapsed 1m17s · 5 calls · tokens 1.4k in, 41 out
`
	if got != want {
		t.Errorf("log:\n%s\nwant:\n%s", got, want)
	}
	if got := drive(true); got != "" {
		t.Errorf("--quiet printed %q", got)
	}
}

// A run stopped part way says so at the end, not "done".
func TestProgressEndSaysStopped(t *testing.T) {
	clk := newFakeClock()
	var out bytes.Buffer
	p := start(&out, Work{Conversations: 2, Questions: 10}, options{Manual: true, Now: clk.now})
	clk.set(5 * time.Second)
	p.Built()
	p.Finish()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if want := "progress: stopped · 0/10 questions, 1/2 conversations built · elapsed 5s · 0 calls · tokens 0 in, 0 out"; lines[len(lines)-1] != want {
		t.Errorf("last line %q\nwant      %q", lines[len(lines)-1], want)
	}
}

func TestFmtDurReadsBack(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0s", 45 * time.Second: "45s", 80 * time.Second: "1m20s", 2*time.Hour + 5*time.Minute + 40*time.Second: "2h05m", -time.Second: "0s"} {
		got := fmtDur(d)
		if got != want {
			t.Errorf("fmtDur(%v) = %q, want %q", d, got, want)
		}
		if _, err := time.ParseDuration(got); err != nil {
			t.Errorf("%q does not parse: %v", got, err)
		}
	}
}

// pricedModel is fixedModel under a priced model's name.
type pricedModel struct{ fixedModel }

func (pricedModel) ID() membench.ModelID {
	return membench.ModelID{Backend: "openai", Model: "gpt-4o-mini"}
}

// On a terminal the live line and the end line carry the dollars so far,
// priced by the run's table: $0 before any call, then the spend.
func TestProgressLineShowsDollarsOnTerminal(t *testing.T) {
	clk := newFakeClock()
	var out bytes.Buffer
	p := start(&out, Work{Questions: 2}, options{Terminal: true, Manual: true, Now: clk.now, Dollars: Priced(prices.Default(), runlog.Manifest{})})
	meter := llm.NewMeter()
	untrack := p.Track(meter)
	p.tick(clk.now())
	if !strings.HasSuffix(out.String(), "· 0 calls · tokens 0 in, 0 out · $0\x1b[K") {
		t.Errorf("before any call: %q", out.String())
	}
	// 1M input and 100k output tokens of gpt-4o-mini: $0.15 + $0.06.
	call(t, llm.WithMeter(pricedModel{fixedModel{in: 500_000, out: 50_000}}, meter, "answer"), 2)
	clk.set(2 * time.Second)
	p.Add(2)
	untrack()
	p.Summarize()
	p.Finish()
	if !strings.HasSuffix(out.String(), "· 2 calls · tokens 1.00M in, 100.0k out · $0.2100\x1b[K\n") {
		t.Errorf("end line: %q", out.String()[strings.LastIndex(out.String(), "\r"):])
	}
}
