// Package redact hides URL credentials in text. It is a leaf: the run log
// (config hashes, manifests) and the model layer (ids, errors) both use it.
package redact

import (
	"regexp"
	"strings"
)

// Placeholder stands in for a credential wherever one would be written.
const Placeholder = "[redacted]"

// secretParam names query parameters that carry credentials: Azure's
// api-key, signed URLs' sig, S3's X-Amz-Signature, X-Amz-Credential and
// X-Amz-Security-Token, GCS's X-Goog-Signature, OAuth's client_secret.
var secretParam = regexp.MustCompile(`(?i)(^|[-_.])(api[-_]?key|key|token|secret|password|passwd|sig|signature|credential)$`)

var (
	// userinfoInText is a URL's scheme and user information: everything
	// from "://" to the last "@" before the host ends (at "/", "?", "#",
	// space, quote or angle bracket), so a password holding "@" or ":"
	// goes whole.
	userinfoInText = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s"<>]*@`)
	queryInText    = regexp.MustCompile(`([?&][A-Za-z0-9_.-]+=)([^&#\s,"'<>]*)`)
)

// Text hides URL credentials wherever text holds a URL: a base URL, a
// model or judge spec ("backend=openai,base-url=http://u:p@h/v1"), a
// system's options, an error message. The user information goes whole,
// user name and password ("http://[redacted]@host/v1": a user name alone is
// often a token), and so do the values of credential query parameters;
// what says which server was used stays.
func Text(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	s = userinfoInText.ReplaceAllString(s, "${1}"+Placeholder+"@")
	return queryInText.ReplaceAllStringFunc(s, func(m string) string {
		sub := queryInText.FindStringSubmatch(m)
		if secretParam.MatchString(strings.TrimSuffix(sub[1][1:], "=")) {
			return sub[1] + Placeholder
		}
		return m
	})
}
