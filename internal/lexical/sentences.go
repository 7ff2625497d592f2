package lexical

import (
	"regexp"
	"strings"
)

var imageRe = regexp.MustCompile(`\[image:\s*([^\]]*)\]`)

// Sentences splits text into trimmed sentences: at line breaks and after a
// run of . ! ? (and closing quotes or brackets) that a space or the end of
// the line follows, so "3.5" stays whole; the punctuation stays with its
// sentence.
// LoCoMo image captions ("[image: a dog on a beach]") become a sentence of
// their own in that form; Caption reads them back.
func Sentences(text string) []string {
	var out []string
	text = imageRe.ReplaceAllString(text, "\n[image: $1]\n")
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[image:") {
			out = append(out, line)
			continue
		}
		start := 0
		for i := 0; i < len(line); i++ {
			if !isEnd(line[i]) {
				continue
			}
			for i+1 < len(line) && (isEnd(line[i+1]) || strings.IndexByte(`"')]`, line[i+1]) >= 0) {
				i++
			}
			if i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t' {
				out = appendTrimmed(out, line[start:i+1])
				start = i + 1
			}
		}
		out = appendTrimmed(out, line[start:])
	}
	return out
}

func isEnd(b byte) bool { return b == '.' || b == '!' || b == '?' }

func appendTrimmed(out []string, s string) []string {
	if s = strings.TrimSpace(s); s != "" && strings.Trim(s, ".!?") != "" {
		out = append(out, s)
	}
	return out
}

// Caption returns the caption of a sentence that Sentences made from an
// image tag, and whether it was one.
func Caption(sentence string) (string, bool) {
	if !strings.HasPrefix(sentence, "[image:") || !strings.HasSuffix(sentence, "]") {
		return "", false
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(sentence, "[image:"), "]")), true
}
