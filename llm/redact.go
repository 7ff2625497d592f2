package llm

import (
	"net/url"
	"regexp"
	"strings"
)

// redacted stands in for a credential, as net/url's URL.Redacted does.
const redacted = "xxxxx"

// secretParam names query parameters that carry credentials (Azure's
// api-key, signed URLs' sig, ...).
var secretParam = regexp.MustCompile(`(?i)^(api[-_]?key|key|token|access[-_]?token|secret|password|passwd|sig|signature)$`)

// RedactURL hides the credentials in a base URL, leaving what says which
// server was used: the password of user:password@ (a user name given alone
// is often a token, so it goes too) and the values of credential query
// parameters. Every place a base URL is recorded or printed (manifest,
// model ids, cache keys, logs, errors) goes through it.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return RedactText(raw)
	}
	changed := false
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), redacted)
		} else {
			u.User = url.User(redacted)
		}
		changed = true
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if secretParam.MatchString(k) {
				q.Set(k, redacted)
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	if !changed {
		return raw
	}
	return u.String()
}

var (
	userinfoInText = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)([^/@\s,"'<>]*)@`)
	queryInText    = regexp.MustCompile(`([?&][A-Za-z_-]+=)([^&\s,"'<>]*)`)
)

// RedactText applies RedactURL to every URL inside free text: model specs
// ("backend=openai,base-url=http://u:p@h/v1"), judge specs, error messages.
func RedactText(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	s = userinfoInText.ReplaceAllStringFunc(s, func(m string) string {
		sub := userinfoInText.FindStringSubmatch(m)
		if user, _, has := strings.Cut(sub[2], ":"); has {
			return sub[1] + user + ":" + redacted + "@"
		}
		return sub[1] + redacted + "@"
	})
	return queryInText.ReplaceAllStringFunc(s, func(m string) string {
		sub := queryInText.FindStringSubmatch(m)
		if secretParam.MatchString(strings.TrimRight(sub[1][1:], "=")) {
			return sub[1] + redacted
		}
		return m
	})
}
