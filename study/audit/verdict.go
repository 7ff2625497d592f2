package audit

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/membench/membench/llm"
)

// Verdict labels the audit prompts ask for.
const (
	Supported   = "SUPPORTED"
	Unsupported = "UNSUPPORTED"
)

// Verdict is a parsed judge reply.
type Verdict struct {
	Supported bool
	Reason    string
}

var verdictRe = regexp.MustCompile(`(?i)\b(not\s+supported|unsupported|supported)\b`)

// ParseVerdict reads a reply: a JSON object with "verdict" (or "label"),
// possibly fenced or inside text, else plain text naming exactly one of
// SUPPORTED / UNSUPPORTED ("not supported" counts as UNSUPPORTED).
func ParseVerdict(text string) (Verdict, error) {
	if body := llm.ExtractJSON(text); strings.HasPrefix(body, "{") {
		var obj map[string]any
		if json.Unmarshal([]byte(body), &obj) == nil {
			var v Verdict
			label := ""
			for key, val := range obj {
				s, _ := val.(string)
				switch strings.ToLower(key) {
				case "verdict", "label", "judgment", "judgement":
					label = labelOf(s)
				case "reason", "reasoning", "explanation":
					v.Reason = s
				}
			}
			if label != "" {
				v.Supported = label == Supported
				return v, nil
			}
		}
	}
	kinds := map[string]bool{}
	for _, m := range verdictRe.FindAllString(text, -1) {
		kinds[labelOf(m)] = true
	}
	if len(kinds) == 1 {
		return Verdict{Supported: kinds[Supported], Reason: strings.TrimSpace(text)}, nil
	}
	return Verdict{}, fmt.Errorf("no single SUPPORTED/UNSUPPORTED verdict in %q", clip(text, 300))
}

func labelOf(s string) string {
	s = strings.ToUpper(strings.Join(strings.Fields(strings.Trim(s, " .!\"'*")), " "))
	switch s {
	case Supported, "YES", "TRUE":
		return Supported
	case Unsupported, "NOT SUPPORTED", "NO", "FALSE":
		return Unsupported
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
