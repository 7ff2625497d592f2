package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// HTTPDefaults are the http adapter's options; url is required.
var HTTPDefaults = membench.Options{
	"url": "", "timeout": "60s", "retries": strconv.Itoa(llm.DefaultRetries), "k": "10", "order": "score",
	"max_reply_mb": strconv.Itoa(defaultReplyMB),
}

func init() {
	systems.Register(systems.Spec{
		Name: "http",
		Description: "any memory service speaking membench's JSON protocol over HTTP POST (url/reset, url/ingest per session, " +
			"url/retrieve per question; docs/adapter.md); --opt url=URL required",
		Defaults: HTTPDefaults,
		New:      NewHTTP,
		Outside:  []string{"url"},
		// The service retrieves on its own; membench embeds nothing.
		NoEmbeddings: true,
		// Judged only when the service reports "memories" (ParseMemories).
		Memory: systems.MemoryRule{Builds: true},
	})
}

// errorBody bounds what is read of a failed request's body: it is only quoted.
const errorBody = 64 << 10

// errTooLarge is a reply body over the limit; not retried, as the same
// request would most likely get the same reply.
var errTooLarge = errors.New("reply too large")

type httpTransport struct {
	base    string // without trailing slash, credentials kept (the client sends them)
	shown   string // base without credentials, for logs and errors
	client  *http.Client
	timeout time.Duration
	policy  llm.RetryPolicy
	limit   int // bytes in one reply body
}

// NewHTTP makes the http adapter from env.Options.
func NewHTTP(env systems.Env) (systems.System, error) {
	o := env.Options.Merge(HTTPDefaults)
	raw := strings.TrimRight(o["url"], "/")
	if raw == "" {
		return nil, errors.New("needs the service's base URL: --opt url=http://localhost:8080")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("option url=%q: want an http:// or https:// base URL such as http://localhost:8080", llm.RedactText(raw))
	}
	r := systems.Read(o)
	d := timeout(r, o)
	retries := r.Int("retries", llm.DefaultRetries)
	if retries < 0 {
		r.Failf("option retries=%d: want 0 or more", retries)
	}
	limit := replyLimit(r)
	t := &httpTransport{base: raw, shown: llm.RedactText(raw), client: &http.Client{Timeout: d}, timeout: d, policy: llm.ModelRetryPolicy(retries), limit: limit}
	return common("http", env, t, r)
}

func (t *httpTransport) describe() string { return t.shown }
func (t *httpTransport) close() error     { return nil }

// call POSTs params to base/method. 429 and 5xx (and timeouts, resets) are
// retried with the model calls' policy; other statuses fail at once with
// the body quoted.
func (t *httpTransport) call(ctx context.Context, method string, params any, what string) ([]byte, error) {
	body, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	op := "POST " + t.shown + "/" + method
	tries := 0
	out, err := llm.RetryDo(ctx, t.policy, func() ([]byte, error) {
		tries++
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.base+"/"+method, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := t.client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			b, err := io.ReadAll(io.LimitReader(resp.Body, errorBody))
			if err != nil {
				return nil, err
			}
			return nil, llm.StatusError(op, resp.StatusCode, resp.Header.Get("Retry-After"),
				fmt.Sprintf("status %d: %s", resp.StatusCode, quote(b)))
		}
		if resp.ContentLength > int64(t.limit) {
			return nil, errTooLarge
		}
		b, over, err := readAtMost(resp.Body, t.limit)
		if over {
			return nil, errTooLarge
		}
		return b, err
	})
	if errors.Is(err, errTooLarge) {
		return nil, tooLarge(fmt.Sprintf("%s for %s", op, what), t.limit)
	}
	if err != nil {
		again := ""
		if tries > 1 {
			again = fmt.Sprintf(" (after %d tries)", tries)
		}
		return nil, fmt.Errorf("%s for %s%s: %s", op, what, again, llm.RedactText(err.Error()))
	}
	return out, nil
}

// info asks GET base/info once; any failure means the service says nothing.
func (t *httpTransport) info(ctx context.Context) map[string]any {
	ctx, cancel := context.WithTimeout(ctx, min(t.timeout, 10*time.Second))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.base+"/info", nil)
	if err != nil {
		return nil
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil
	}
	var m map[string]any
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m); err != nil {
		return nil
	}
	return m
}
