package llm

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

// HashText is the sha256 of a string. The string goes through a pooled
// hasher's buffer a few KB at a time, because sha256.Sum256([]byte(s))
// would copy every context to the heap first.
func HashText(s string) string {
	w, b := getHasher()
	const chunk = 4 << 10
	for len(s) > chunk {
		b = append(b[:0], s[:chunk]...)
		w.h.Write(b)
		s = s[chunk:]
	}
	return w.sum(append(b[:0], s...))
}
