package llm

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		"offline", "openai:gpt-4o-mini", "openai:org/model:tag",
		"name=gpt4o,backend=openai,model=gpt-4o-mini,base-url=http://localhost:8000/v1,rpm=500",
		"backend=openai,model=qwen2.5-7b,base-url=http://user:pw-1234@localhost:8000/v1,tpm=9000,retries=-1,no-cache=true",
		"model=m", "backend=,model=x", "rpm=-3,backend=offline", "a=b=c", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		if err != nil {
			if RedactText(err.Error()) != err.Error() {
				t.Fatalf("error quotes a credential: %v", err)
			}
			return
		}
		if sp.Backend != "offline" && sp.Backend != "openai" {
			t.Fatalf("ParseSpec(%q) accepted backend %q", s, sp.Backend)
		}
		if sp.Backend == "openai" && sp.Model == "" {
			t.Fatalf("ParseSpec(%q): openai without a model", s)
		}
		if sp.RPM < 0 || sp.TPM < 0 {
			t.Fatalf("ParseSpec(%q): negative limits %+v", s, sp)
		}
	})
}

func FuzzRetryAfter(f *testing.F) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for _, s := range []string{"1", "120", "0", "-5", "86401", " 7 ", now.Add(30 * time.Second).Format(http.TimeFormat),
		"Wed, 21 Oct 2015 07:28:00 GMT", "Monday, 30-Nov-26 09:00:10 GMT", "soon", "1e3", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d := parseRetryAfter(v, now)
		if d < 0 {
			t.Fatalf("parseRetryAfter(%q) = %v", v, d)
		}
		if n := strings.TrimSpace(v); n != "" && n[0] >= '0' && n[0] <= '9' && d > 24*time.Hour {
			t.Fatalf("parseRetryAfter(%q) = %v, over the 24 h cap for delay-seconds", v, d)
		}
		if got := (RetryPolicy{Base: time.Second, MaxDelay: time.Minute}).delay(0, &HTTPError{StatusCode: 429, RetryAfter: d}); got > maxRetryAfter || got < 0 {
			t.Fatalf("delay from Retry-After %q = %v", v, got)
		}
	})
}

func FuzzRedactURL(f *testing.F) {
	f.Add("http", "alice", "pw-SECRET-7731", "localhost:8000", "/v1")
	f.Add("https", "", "", "api.openai.com", "/v1?api-key=abcdef")
	f.Fuzz(func(t *testing.T, scheme, user, pw, host, path string) {
		raw := scheme + "://" + user + ":" + pw + "@" + host + path
		for _, out := range []string{RedactURL(raw), RedactText("base-url=" + raw + ",rpm=1")} {
			// A password of plain characters must be gone, unless the rest
			// of the URL happens to contain it.
			if len(pw) >= 4 && strings.Trim(pw, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == "" &&
				strings.Trim(user, "abcdefghijklmnopqrstuvwxyz") == "" && strings.Trim(scheme, "abcdefghijklmnopqrstuvwxyz") == "" && scheme != "" &&
				!strings.Contains(scheme+user+host+path+"xxxxx", pw) && strings.Contains(out, pw) {
				t.Fatalf("password %q survives in %q", pw, out)
			}
		}
	})
}
