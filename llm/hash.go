package llm

import (
	"crypto/sha256"
	"encoding/hex"
)

// HashMessages is the sha256 of a rendered prompt, logged with every sample
// so a reader can tell which exact prompt produced it: the sha256 of
// json.Marshal(msgs), written by hand into the hash (json.Marshal's
// reflection and output buffer cost more than the hashing).
// TestHashMessagesIsMarshalHash and FuzzHashMessages hold it to
// json.Marshal.
func HashMessages(msgs []Message) string {
	w, b := getHasher()
	return w.sum(w.messages(b, msgs))
}

// HashText is the sha256 of a string.
func HashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
