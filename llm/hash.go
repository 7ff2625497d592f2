package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/membench/membench"
)

// HashMessages is the sha256 of a rendered prompt, logged with every sample
// so a reader can tell which exact prompt produced it: the sha256 of
// json.Marshal(msgs).
func HashMessages(msgs []membench.Message) string {
	b, err := json.Marshal(msgs)
	if err != nil {
		panic("llm: messages not marshalable: " + err.Error()) // two strings always are
	}
	return HashText(string(b))
}

// HashText is the sha256 of a string.
func HashText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
