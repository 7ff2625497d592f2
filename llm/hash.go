package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// HashMessages is the sha256 of a rendered prompt, logged with every sample
// so a reader can tell which exact prompt produced it.
func HashMessages(msgs []Message) string {
	b, _ := json.Marshal(msgs)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// HashText is the sha256 of a string.
func HashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
