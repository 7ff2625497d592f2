package llmtest

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"net/http"
	"time"
)

// Fault is one way the fake server misbehaves on a chat request.
type Fault string

const (
	Fault429          Fault = "429"           // rate limited, with a Retry-After header
	Fault500          Fault = "500"           // internal server error
	Fault502          Fault = "502"           // bad gateway
	Fault503          Fault = "503"           // service unavailable
	FaultDrop         Fault = "drop"          // connection closed without a reply
	FaultSlow         Fault = "slow"          // the right reply, after Faults.Delay
	FaultMalformed    Fault = "malformed"     // 200 with an HTML body (a proxy's error page)
	FaultEmptyChoices Fault = "empty-choices" // 200 with "choices": []
	FaultNoLogprobs   Fault = "no-logprobs"   // 200 with "logprobs": null although they were asked for
	FaultBadVerdict   Fault = "bad-verdict"   // 200 whose text is no verdict (and no answer)
)

// AllFaults lists every fault kind.
var AllFaults = []Fault{Fault429, Fault500, Fault502, Fault503, FaultDrop, FaultSlow, FaultMalformed, FaultEmptyChoices, FaultNoLogprobs, FaultBadVerdict}

// Faults makes a share of chat requests fail. Whether a request fails, and
// how, is drawn from a hash of the seed, the request body and how many
// times that same body arrived before: the same run meets the same faults
// whatever the order its concurrent requests arrive in, and a retry of a
// failed request draws again, so it can succeed.
type Faults struct {
	Seed  uint64
	Rate  float64 // share of requests that fail, in [0, 1]
	Kinds []Fault // drawn uniformly; nil = AllFaults
	// Sequence, when set, replaces the draw: the k-th arrival of each
	// request body gets Sequence[k] ("" = a clean reply; past the end, clean).
	Sequence   []Fault
	RetryAfter string        // Retry-After for Fault429; default "1"
	Delay      time.Duration // FaultSlow's delay; default 200ms
	// Only, when set, limits the faults to the requests it accepts (e.g.
	// unparseable verdicts on judge requests only); others are served clean.
	Only func(ChatRequest) bool
}

// WithFaults turns the fault mode on for chat requests.
func WithFaults(f Faults) Option {
	return func(s *Server) {
		if len(f.Kinds) == 0 {
			f.Kinds = AllFaults
		}
		f.RetryAfter = cmp.Or(f.RetryAfter, "1")
		if f.Delay <= 0 {
			f.Delay = 200 * time.Millisecond
		}
		s.faults = &f
		s.seen = map[[32]byte]int{}
	}
}

// draw picks this request's fault ("" for none) and counts it.
func (s *Server) draw(body []byte, req ChatRequest) Fault {
	if s.faults == nil || (s.faults.Only != nil && !s.faults.Only(req)) {
		return ""
	}
	key := sha256.Sum256(body)
	s.mu.Lock()
	n := s.seen[key]
	s.seen[key]++
	s.mu.Unlock()
	var f Fault
	if s.faults.Sequence != nil {
		if n < len(s.faults.Sequence) {
			f = s.faults.Sequence[n]
		}
	} else if s.faults.Rate > 0 {
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:8], s.faults.Seed)
		binary.LittleEndian.PutUint64(b[8:], uint64(n))
		h := sha256.Sum256(append(key[:], b[:]...))
		if u := float64(binary.LittleEndian.Uint64(h[:8])>>11) / (1 << 53); u < s.faults.Rate {
			f = s.faults.Kinds[binary.LittleEndian.Uint64(h[8:16])%uint64(len(s.faults.Kinds))]
		}
	}
	if f != "" {
		s.mu.Lock()
		s.injected[f]++
		s.mu.Unlock()
	}
	return f
}

// Injected returns how many times each fault was served.
func (s *Server) Injected() map[Fault]int {
	return locked(s, func() map[Fault]int { return maps.Clone(s.injected) })
}

// serveFault answers with fault f; it returns false for faults that only
// change the normal reply (slow, no-logprobs, bad-verdict, empty-choices),
// which handleChat applies itself.
func (s *Server) serveFault(w http.ResponseWriter, f Fault) bool {
	switch f {
	case Fault429:
		writeError(w, http.StatusTooManyRequests, "fake rate limit", s.faults.RetryAfter)
	case Fault500:
		writeError(w, http.StatusInternalServerError, "fake internal error", "")
	case Fault502:
		writeError(w, http.StatusBadGateway, "fake bad gateway", "")
	case Fault503:
		writeError(w, http.StatusServiceUnavailable, "fake overload", "")
	case FaultDrop:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic("llmtest: response writer cannot hijack")
		}
		conn, _, err := hj.Hijack()
		if err == nil {
			conn.Close()
		}
	case FaultMalformed:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, "<html><body><h1>502 Bad Gateway</h1>nginx</body></html>\n")
	default:
		return false
	}
	return true
}
