package harness

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Off a terminal, progress is a periodic log line per stage with counts,
// rate and ETA; --quiet prints nothing.
func TestProgressLogsWhenNotATerminal(t *testing.T) {
	var w syncBuf
	p := newProgressEvery(10, 4, false, &w, 20*time.Millisecond)
	p.Built()
	p.Add(3)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(w.String(), "answer 3/10 questions") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	p.Finish()
	out := w.String()
	for _, want := range []string{"build 1/4 conversations (", "answer 3/10 questions (", "/s, ETA "} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	// A fixed clock gives an exact line: 2 of 4 built in 10 s is 0.2/s, ETA 10 s.
	q := newProgressEvery(8, 4, true, &w, time.Hour)
	q.built, q.done = 2, 8
	got := q.line(q.start.Add(10 * time.Second))
	if want := "progress 10s elapsed: build 2/4 conversations (0.2/s, ETA 10s) · answer 8/8 questions (0.8/s, done)"; got != want {
		t.Errorf("line = %q\nwant   %q", got, want)
	}
	var quiet syncBuf
	r := newProgressEvery(10, 1, true, &quiet, time.Millisecond)
	r.Add(1)
	time.Sleep(20 * time.Millisecond)
	r.Finish()
	if quiet.String() != "" {
		t.Errorf("quiet progress printed %q", quiet.String())
	}
}
