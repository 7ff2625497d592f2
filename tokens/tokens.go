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

// perMessage is the chat format's overhead per message (role and
// separators), as OpenAI documents it for the gpt-4o family.
const perMessage = 3

// CountMessages counts a chat prompt the way the API bills it, approximately:
// content tokens plus a fixed overhead per message and for the reply primer.
func CountMessages(contents ...string) int {
	n := 3
	for _, c := range contents {
		n += perMessage + Count(c)
	}
	return n
}
