package llm

import "github.com/membench/membench/internal/redact"

// redacted stands in for a credential wherever one would be written.
const redacted = redact.Placeholder

// RedactText hides URL credentials wherever text holds a URL (redact.Text):
// the one redaction every writer uses: manifests, configs, model ids and
// cache keys, logs, errors, adapters and the viewer.
func RedactText(s string) string { return redact.Text(s) }
