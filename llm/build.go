package llm

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/badinput"
)

// Spec describes one configured model, as given on the command line or in
// a config file.
type Spec struct {
	Name      string `json:"name,omitempty" yaml:"name,omitempty"` // label for manifests and --judge lists
	Backend   string `json:"backend" yaml:"backend"`               // offline | openai
	Model     string `json:"model,omitempty" yaml:"model,omitempty"`
	BaseURL   string `json:"base_url,omitempty" yaml:"base_url,omitempty"`       // default $OPENAI_BASE_URL, else DefaultBaseURL
	APIKeyEnv string `json:"api_key_env,omitempty" yaml:"api_key_env,omitempty"` // default OPENAI_API_KEY
	RPM       int    `json:"rpm,omitempty" yaml:"rpm,omitempty"`                 // requests per minute, 0 = unlimited
	TPM       int    `json:"tpm,omitempty" yaml:"tpm,omitempty"`                 // tokens per minute, 0 = unlimited
	Retries   int    `json:"retries,omitempty" yaml:"retries,omitempty"`         // 0 = DefaultRetries, < 0 = none
	NoCache   bool   `json:"no_cache,omitempty" yaml:"no_cache,omitempty"`
}

// DefaultRetries is used when Spec.Retries is 0.
const DefaultRetries = 5

// BuildDeps are the shared pieces a built model is wired to; nil fields
// are skipped.
type BuildDeps struct {
	Cache *Cache
	Meter *Meter
	Role  string // meter role, e.g. "answer" or "judge:gpt4o"
	// Tape records every reply of a paid model (outside its cache, so
	// hits are recorded too), for `membench bundle`.
	Tape *Tape
	// Replay serves a paid model's replies from a bundle instead of its
	// server; with ReplayFallback a call the bundle lacks goes to the
	// server, else it is an error.
	Replay         *Tape
	ReplayFallback bool
	// ReplayBaseURL is the server a replay's fallback calls for a spec that
	// names none ("" = $OPENAI_BASE_URL, else the default). Specs read from
	// a bundle name none: they are stripped of it (StripEndpoint).
	ReplayBaseURL string
	// Limit is the run's budget of requests in flight, shared by every
	// model built with it (nil: unbounded).
	Limit *Limiter
	// HTTP is the client for openai backends (nil: one per model with the
	// standard transport); share one sized for the run's concurrency so
	// connections are kept and reused.
	HTTP *http.Client
	// Dry builds a paid model as a stand-in answered by the offline
	// heuristics under the paid model's ID (an estimate's dry run): no
	// key, no server, no cache.
	Dry bool
}

// Build makes the model a spec describes, wrapped as
// meter → cache → retry → rate limit → backend: the meter sees every call
// including cache hits; retries sit outside the rate limiter so each retry
// waits its turn. The offline backend is neither cached nor retried: it is
// deterministic, local and cheaper than a cache lookup.
func Build(spec Spec, deps BuildDeps) (Model, error) {
	var m Model
	switch spec.Backend {
	case "offline":
		o := NewOffline()
		o.Name = cmp.Or(spec.Model, o.Name)
		m = o
	case "openai":
		if deps.Dry {
			m = newDry(spec)
			break
		}
		if deps.Replay != nil {
			spec.BaseURL = cmp.Or(spec.BaseURL, deps.ReplayBaseURL)
			var fb Model
			if deps.ReplayFallback {
				live := deps
				live.Replay, live.Meter = nil, nil
				var err error
				if fb, err = Build(spec, live); err != nil {
					return nil, err
				}
			}
			m = deps.Replay.Play(membench.ModelID{Backend: "openai", Model: spec.Model, BaseURL: shownBaseURL(spec)}, fb)
			break
		}
		o, err := openAIFromSpec(spec, deps.HTTP)
		if err != nil {
			return nil, err
		}
		m = WithRateLimit(WithLimit(o, deps.Limit), spec.RPM, spec.TPM)
		if retries := cmp.Or(spec.Retries, DefaultRetries); retries > 0 {
			m = WithRetry(m, ModelRetryPolicy(retries))
		}
		if deps.Cache != nil && !spec.NoCache {
			m = deps.Cache.Wrap(m)
		}
		if deps.Tape != nil {
			m = deps.Tape.Record(m)
		}
	case "":
		return nil, specErrorf("model spec %s: no backend; set backend=offline or backend=openai", spec.label())
	default:
		return nil, specErrorf("model spec %s: unknown backend %q; use offline or openai", spec.label(), spec.Backend)
	}
	if deps.Meter != nil {
		m = WithMeter(m, deps.Meter, deps.Role)
	}
	return m, nil
}

// StripEndpoint removes the server and key-variable keys (base-url,
// api-key-env) from a model or judge spec string, keeping the rest as
// written. A bundle is someone else's file: the specs it recorded must not
// choose where calls, and the user's key, go.
func StripEndpoint(spec string) string {
	if !strings.Contains(spec, "=") {
		return spec // backend:model, or a bare judge kind: names no server
	}
	parts := strings.Split(spec, ",")
	kept := parts[:0]
	for _, p := range parts {
		k, _, _ := strings.Cut(p, "=")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "base-url", "base_url", "api-key-env", "api_key_env":
			continue
		}
		kept = append(kept, p)
	}
	return strings.Join(kept, ",")
}

// BuildEmbedder makes an OpenAI-compatible embedder from a spec (the spec's
// Model is the embedding model); the offline backend has no embedder here
// (use package embed). hc may be nil (see BuildDeps.HTTP).
func BuildEmbedder(spec Spec, hc *http.Client) (*OpenAI, error) {
	if spec.Backend != "openai" {
		return nil, specErrorf("embedder spec %s: backend %q has no embedder; use backend=openai", spec.label(), spec.Backend)
	}
	return openAIFromSpec(spec, hc)
}

func openAIFromSpec(spec Spec, hc *http.Client) (*OpenAI, error) {
	if spec.Model == "" {
		return nil, specErrorf("model spec %s: backend openai needs a model, e.g. openai:gpt-4o-mini", spec.label())
	}
	base := specBaseURL(spec)
	env := cmp.Or(spec.APIKeyEnv, "OPENAI_API_KEY")
	o, err := NewOpenAI(OpenAIConfig{Model: spec.Model, BaseURL: base, APIKey: os.Getenv(env), APIKeyEnv: env, EmbeddingModel: spec.Model, HTTPClient: hc})
	if err != nil {
		return nil, fmt.Errorf("model spec %s: %w", spec.label(), err)
	}
	return o, nil
}

// EmbedderName is the name an OpenAI-compatible embedder built from spec
// reports, without building it (a replay needs no key).
func EmbedderName(spec Spec) string {
	return "openai:" + spec.Model + "@" + shownBaseURL(spec)
}

// shownBaseURL is the spec's server as a built model shows it (OpenAI.ID,
// Name): without a trailing slash or credentials.
func shownBaseURL(spec Spec) string {
	return RedactText(strings.TrimRight(specBaseURL(spec), "/"))
}

// specBaseURL is the server a spec names: its base URL, else
// $OPENAI_BASE_URL, else OpenAI's.
func specBaseURL(spec Spec) string {
	return cmp.Or(spec.BaseURL, os.Getenv("OPENAI_BASE_URL"), DefaultBaseURL)
}

func (s Spec) label() string {
	if s.Name != "" {
		return strconv.Quote(s.Name)
	}
	return strconv.Quote(s.Backend + ":" + s.Model)
}

// specKeys are the keys ParseSpec accepts in key=value form.
var specKeys = []string{"name", "backend", "model", "base-url", "api-key-env", "rpm", "tpm", "retries", "no-cache"}

// ParseSpec reads a model spec in one of three forms:
//
//	offline                        the offline backend
//	openai:gpt-4o-mini             backend:model (the model may contain ':')
//	name=gpt4o,backend=openai,model=gpt-4o-mini,base-url=http://localhost:8000/v1,rpm=500
//
// Keys: name, backend, model, base-url, api-key-env, rpm, tpm, retries,
// no-cache. Values may not contain commas.
func ParseSpec(s string) (Spec, error) {
	sp, err := parseSpec(s)
	return sp, RedactErr(err)
}

// RedactErr rewrites an error whose text holds a URL with credentials (a
// spec quoted back to the user); other errors pass unchanged. The
// rewritten error keeps its kind (bad input or not) but not its chain,
// whose messages still hold the credentials.
func RedactErr(err error) error {
	if err == nil {
		return nil
	}
	msg := RedactText(err.Error())
	if msg == err.Error() {
		return err
	}
	if badinput.Is(err) {
		return badinput.Wrap(errors.New(msg))
	}
	return errors.New(msg)
}

func parseSpec(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Spec{}, specErrorf("empty model spec; use e.g. offline, openai:gpt-4o-mini or backend=openai,model=gpt-4o-mini")
	}
	if !strings.Contains(s, "=") {
		backend, model, _ := strings.Cut(s, ":")
		sp := Spec{Backend: strings.TrimSpace(backend), Model: strings.TrimSpace(model)}
		return sp, sp.check(s)
	}
	var sp Spec
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return Spec{}, specErrorf("model spec %q: %q is not key=value (keys: %s)", s, part, strings.Join(specKeys, ", "))
		}
		if seen[k] {
			return Spec{}, specErrorf("model spec %q: key %q given twice", s, k)
		}
		seen[k] = true
		var err error
		switch k {
		case "name":
			sp.Name = v
		case "backend":
			sp.Backend = v
		case "model":
			sp.Model = v
		case "base-url", "base_url":
			sp.BaseURL = v
		case "api-key-env", "api_key_env":
			sp.APIKeyEnv = v
		case "rpm":
			sp.RPM, err = nonNegInt(v)
		case "tpm":
			sp.TPM, err = nonNegInt(v)
		case "retries":
			sp.Retries, err = strconv.Atoi(v)
		case "no-cache", "no_cache":
			sp.NoCache, err = strconv.ParseBool(v)
		default:
			return Spec{}, specErrorf("model spec %q: unknown key %q (known: %s)", s, k, strings.Join(slices.Sorted(slices.Values(specKeys)), ", "))
		}
		if err != nil {
			return Spec{}, specErrorf("model spec %q: bad value for key %q: %v", s, k, err)
		}
	}
	if sp.Backend == "" && sp.Model != "" {
		sp.Backend = "openai" // a model name alone means an API model
	}
	return sp, sp.check(s)
}

// SpecError is a model spec or model flag the user got wrong. It wraps a
// badinput error, so the CLI exits 2 on it without knowing this type.
type SpecError struct{ Err error }

func (e *SpecError) Error() string { return e.Err.Error() }
func (e *SpecError) Unwrap() error { return e.Err }

// specErrorf quotes flag values back with any URL credentials redacted; the
// error is bad input (exit 2 at the CLI).
func specErrorf(format string, a ...any) error {
	return &SpecError{badinput.Wrap(errors.New(RedactText(fmt.Sprintf(format, a...))))}
}

// FlagSpec turns the --llm/--model/--base-url flags (run, score, judge,
// sweep) into a spec string in ParseSpec's syntax; "" means no flag was
// given, so the config's spec stands. The string goes into the run config
// (and so the run id), so the same flags must keep giving the same string.
func FlagSpec(backend, model, baseURL string) (string, error) {
	if backend == "" && model == "" && baseURL == "" {
		return "", nil
	}
	if backend == "" {
		backend = "openai"
		if model == "" && baseURL == "" {
			backend = "offline"
		}
	}
	// "openai:gpt-4o-mini" is the role-spec form; accept it here too rather
	// than sending the model name "openai:gpt-4o-mini" to the server.
	if backend == "openai" {
		model = strings.TrimPrefix(model, "openai:")
	}
	switch backend {
	case "offline":
		if model != "" || baseURL != "" {
			return "", specErrorf("--model/--base-url go with --llm openai, not --llm offline")
		}
		return "offline", nil
	case "openai":
		if model == "" {
			return "", specErrorf("--llm openai needs --model, e.g. --model gpt-4o-mini")
		}
		if strings.Contains(model, ",") || strings.Contains(baseURL, ",") {
			return "", specErrorf("--model %q / --base-url %q: a model spec value may not contain a comma", model, baseURL)
		}
		s := "backend=openai,model=" + model
		if baseURL != "" {
			s += ",base-url=" + baseURL
		}
		return s, nil
	}
	return "", specErrorf("--llm %q: want offline or openai", backend)
}

func nonNegInt(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err == nil && n < 0 {
		err = fmt.Errorf("%d is negative; use 0 for unlimited", n)
	}
	return n, err
}

func (s Spec) check(src string) error {
	switch s.Backend {
	case "offline":
		return nil
	case "openai":
		if s.Model == "" {
			return specErrorf("model spec %q: backend openai needs a model (key model, or openai:<model>)", src)
		}
		return nil
	case "":
		return specErrorf("model spec %q: key backend missing; use backend=offline or backend=openai", src)
	default:
		return specErrorf("model spec %q: unknown backend %q (key backend); use offline or openai", src, s.Backend)
	}
}
