package llm

import (
	"net/http"
	"regexp"
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
	f.Add("https", "bob", "p@ss:w0rd", "h", "")
	f.Add("postgres", "tok3n", "", "db:5432", "?sslmode=require")
	f.Fuzz(func(t *testing.T, scheme, user, pw, host, path string) {
		// A URL as its grammar reads it: the user information holds
		// neither a delimiter of the host nor a character that ends a URL
		// in text; the host holds no "@" (nor "&", which starts a query
		// parameter in text).
		ends := "/?#\"<> \t\n\r\v\f\u0085\u00a0"
		if !urlScheme.MatchString(scheme) || strings.ContainsAny(user+pw, ends) || strings.ContainsAny(host, ends+"@&") ||
			host == "" || (path != "" && !strings.ContainsAny(path[:1], "/?#")) || strings.ContainsAny(path, " \t\n\r\v\f\"<>\u0085\u00a0") {
			t.Skip()
		}
		userinfo := user
		if pw != "" {
			userinfo += ":" + pw
		}
		raw := scheme + "://" + userinfo + "@" + host + path
		want := scheme + "://[redacted]@" + host
		for _, in := range []string{raw, "base-url=" + raw + " ,rpm=1", `Post "` + raw + `": refused`} {
			out := RedactText(in)
			if !strings.Contains(out, want) {
				t.Fatalf("RedactText(%q) = %q; want the user information replaced whole: %q", in, out, want)
			}
			// Neither the user name nor the password is left, unless the
			// rest of the text holds it anyway.
			rest := strings.Replace(in, userinfo+"@", redacted+"@", 1)
			for _, secret := range []string{user, pw} {
				if secret != "" && !strings.Contains(redacted, secret) && strings.Count(out, secret) > strings.Count(rest, secret) {
					t.Fatalf("%q survives in %q", secret, out)
				}
			}
		}
	})
}

var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)
