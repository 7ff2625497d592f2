// Package tokens is the program's one token counter (o200k_base, the
// gpt-4o family's encoding), so every reported token count agrees.
package tokens

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

var (
	once sync.Once
	enc  tokenizer.Codec
	err  error
)

func codec() tokenizer.Codec {
	once.Do(func() {
		enc, err = tokenizer.Get(tokenizer.O200kBase)
		if err != nil {
			panic("tokens: o200k_base unavailable: " + err.Error())
		}
	})
	return enc
}

// Count returns the o200k_base token count of s.
func Count(s string) int {
	if s == "" {
		return 0
	}
	n, err := codec().Count(s)
	if err != nil {
		return len(s) / 4
	}
	return n
}

// perMessage is the chat format's overhead per message for the gpt-4o
// family: 3 separator tokens plus the role name, which is one token for
// system, user and assistant (OpenAI's cookbook counts the role's tokens on
// top of the 3).
const perMessage = 3 + 1

// CountMessages counts a chat prompt the way the API bills it, approximately:
// content tokens plus a fixed overhead per message and for the reply primer.
func CountMessages(contents ...string) int {
	n := 3
	for _, c := range contents {
		n += perMessage + Count(c)
	}
	return n
}

// Truncate returns the longest prefix of s that has at most n tokens,
// cut at a token boundary.
func Truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	ids, _, err := codec().Encode(s)
	if err != nil || len(ids) <= n {
		return s
	}
	out, err := codec().Decode(ids[:n])
	if err != nil {
		return s
	}
	return out
}
