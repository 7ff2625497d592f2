package datasets

import (
	"errors"
	"strings"
	"testing"
)

func TestUTF8ReaderLineAndSplitRunes(t *testing.T) {
	// A valid multi-byte rune split across reads passes; a bad byte is
	// reported on its line.
	good := strings.Repeat("é", 5000) + "\n"
	if _, err := readAllSmall(NewUTF8Reader(strings.NewReader(good), "f")); err != nil {
		t.Fatalf("valid UTF-8 refused: %v", err)
	}
	_, err := readAllSmall(NewUTF8Reader(strings.NewReader("a\nb\n\xe2\x82"), "f"))
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "f line 3") {
		t.Fatalf("truncated rune at EOF: %v", err)
	}
}

// readAllSmall reads in 7-byte pieces so runes straddle reads.
func readAllSmall(r interface{ Read([]byte) (int, error) }) ([]byte, error) {
	var out []byte
	buf := make([]byte, 7)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			if err.Error() == "EOF" {
				return out, nil
			}
			return out, err
		}
	}
}
