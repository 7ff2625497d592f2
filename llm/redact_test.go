package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/membench/membench/llm/llmtest"
)

func TestRedactText(t *testing.T) {
	cases := map[string]string{
		"http://user:s3cret-pw@host:8000/v1":    "http://[redacted]@host:8000/v1",
		"https://tok3n-only@host/v1":            "https://[redacted]@host/v1",
		"https://host/v1?api-key=k3y-value&x=1": "https://host/v1?api-key=[redacted]&x=1",
		"http://localhost:8000/v1":              "http://localhost:8000/v1",
		"https://api.openai.com/v1":             "https://api.openai.com/v1",
		"see http://u:p4ssw0rd@h in it":         "see http://[redacted]@h in it",
		"http://user:s3cret-pw@[::1:bad/v1":     "http://[redacted]@[::1:bad/v1",
		// A password holding "@" or ":" goes whole, and so does one ending
		// the text without a path.
		"http://al:p@ss:w@rd@host/v1":       "http://[redacted]@host/v1",
		"postgres://u:pw@db":                "postgres://[redacted]@db",
		`Get "http://u:pw@h:1/v1": refused`: `Get "http://[redacted]@h:1/v1": refused`,
		// Two URLs in one text; an e-mail address after the path is left.
		"a http://x:1@h/p?token=t0k&k=v and https://y@g/ mail me@example.com": "a http://[redacted]@h/p?token=[redacted]&k=v and https://[redacted]@g/ mail me@example.com",
		// Credentials written by an earlier redaction lose the user name.
		"http://alice:xxxxx@h/v1": "http://[redacted]@h/v1",
		"no url, user:pw@host":    "no url, user:pw@host",
		// Signed URLs: S3, GCS, OAuth; a parameter merely ending in the
		// letters (monkey, sigma) stays.
		"https://b.s3.amazonaws.com/x.json?X-Amz-Credential=AKIA1/20261201&X-Amz-Signature=abc123&X-Amz-Security-Token=tok9": "https://b.s3.amazonaws.com/x.json?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]&X-Amz-Security-Token=[redacted]",
		"https://g.example/o?X-Goog-Signature=ff00&client_secret=zzz&monkey=1&sigma=2":                                       "https://g.example/o?X-Goog-Signature=[redacted]&client_secret=[redacted]&monkey=1&sigma=2",
	}
	for in, want := range cases {
		if got := RedactText(in); got != want {
			t.Errorf("RedactText(%q) = %q, want %q", in, got, want)
		}
	}
	spec := "backend=openai,model=m,base-url=http://bob:s3cret-pw@h:1/v1,rpm=5"
	if got := RedactText(spec); got != "backend=openai,model=m,base-url=http://[redacted]@h:1/v1,rpm=5" {
		t.Errorf("RedactText(spec) = %q", got)
	}
}

func TestParseSpecErrorsHideBaseURLPasswords(t *testing.T) {
	_, err := ParseSpec("backend=openai,model=m,base-url=http://bob:s3cret-pw@h/v1,rpm=lots")
	if err == nil || strings.Contains(err.Error(), "s3cret-pw") || !strings.Contains(err.Error(), "rpm") {
		t.Fatalf("err = %v", err)
	}
}

// The base URL's password never reaches the model id (manifests, cache
// keys), the embedder name, or any error, even from a server that echoes
// the request URL back.
func TestBaseURLCredentialsRedacted(t *testing.T) {
	const pw = "pw-SECRET-7731"
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Status: http.StatusBadRequest, ErrorMessage: "bad request to http://alice:" + pw + "@somewhere/v1 (" + pw + ")"}
	}))
	base := strings.Replace(srv.URL, "http://", "http://alice:"+pw+"@", 1)
	o, err := NewOpenAI(OpenAIConfig{Model: "m", BaseURL: base, APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"id": o.ID().BaseURL, "name": o.Name()} {
		if strings.Contains(s, pw) || strings.Contains(s, "alice") || !strings.Contains(s, "http://[redacted]@") {
			t.Errorf("%s = %q", what, s)
		}
	}
	// Names and ids made from the spec without building the model (a
	// replay) are the same.
	spec := Spec{Backend: "openai", Model: "m", BaseURL: base + "/"}
	if got := EmbedderName(spec); got != "openai:m@"+o.ID().BaseURL {
		t.Errorf("EmbedderName = %q, want the built embedder's %q", got, "openai:m@"+o.ID().BaseURL)
	}
	played, err := Build(spec, BuildDeps{Replay: NewPlayer(nil)})
	if err != nil || played.ID() != o.ID() {
		t.Errorf("a played model's id = %+v (%v), want the built one's %+v", played.ID(), err, o.ID())
	}
	_, err = o.Chat(context.Background(), Request{Messages: msgs("q")})
	if err == nil {
		t.Fatal("want the scripted 400")
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), pw) {
			t.Fatalf("password in error %T: %v", e, e)
		}
	}
	// A refused connection's error names the URL too.
	o2, _ := NewOpenAI(OpenAIConfig{Model: "m", BaseURL: "http://alice:" + pw + "@127.0.0.1:1/v1", APIKey: testKey})
	_, err = o2.Chat(context.Background(), Request{Messages: msgs("q")})
	if err == nil || strings.Contains(err.Error(), pw) {
		t.Fatalf("connection error: %v", err)
	}
	if _, err := NewOpenAI(OpenAIConfig{Model: "m", BaseURL: "ftp://alice:" + pw + "@h/v1"}); err == nil || strings.Contains(err.Error(), pw) {
		t.Fatalf("bad scheme error: %v", err)
	}
	// Two passwords for one server are one cache key: the password does not
	// change what the model says.
	o3, _ := NewOpenAI(OpenAIConfig{Model: "m", BaseURL: strings.Replace(base, pw, "another-pw-99", 1), APIKey: testKey})
	req := Request{Messages: msgs("q")}
	if chatKey(o.ID(), req) != chatKey(o3.ID(), req) {
		t.Error("cache key depends on the base URL's password")
	}
}

func TestFlagSpecErrorsHideURLCredentials(t *testing.T) {
	_, err := FlagSpec("openai", "m,x", "http://bob:hunter2pw@h/v1")
	if err == nil || strings.Contains(err.Error(), "hunter2pw") {
		t.Fatalf("FlagSpec error leaks the password: %v", err)
	}
	var se *SpecError
	if !errors.As(err, &se) {
		t.Fatalf("FlagSpec error lost its type: %T", err)
	}
}
