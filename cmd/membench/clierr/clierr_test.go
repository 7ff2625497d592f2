package clierr

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/membench/membench/internal/badinput"
)

func TestCode(t *testing.T) {
	plain := errors.New("disk full")
	bad := Bad("--k %q: want a positive integer", "x")
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, 0},
		{"plain", plain, 1},
		{"bad", bad, 2},
		{"wrapped bad", fmt.Errorf("run: %w", bad), 2},
		{"twice wrapped bad", fmt.Errorf("cmd: %w", fmt.Errorf("run: %w", bad)), 2},
		{"joined", errors.Join(plain, bad), 2},
		{"wrapped plain", fmt.Errorf("run: %w", plain), 1},
		{"bad text but not wrapped", fmt.Errorf("run: %v", bad), 1},
	}
	for _, c := range cases {
		if got := Code(c.err); got != c.want {
			t.Errorf("%s: Code = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestBadFormatsAndUnwraps(t *testing.T) {
	err := Bad("config %s: %w", "a.yaml", fs.ErrNotExist)
	if err.Error() != "config a.yaml: file does not exist" {
		t.Fatalf("message = %q", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("Bad does not unwrap to the %w cause")
	}
	var b *badinput.Error
	if !errors.As(fmt.Errorf("outer: %w", err), &b) || b.Error() != err.Error() {
		t.Fatalf("errors.As through wrapping failed: %v", b)
	}
}

func TestAsBad(t *testing.T) {
	if AsBad(nil) != nil {
		t.Fatal("AsBad(nil) != nil")
	}
	cause := errors.New("no such dataset")
	once := AsBad(cause)
	if Code(once) != 2 || once.Error() != cause.Error() || !errors.Is(once, cause) {
		t.Fatalf("AsBad(cause) = %v (code %d)", once, Code(once))
	}
	// Idempotent: already-bad errors, wrapped or not, come back unchanged.
	if twice := AsBad(once); twice != once {
		t.Fatalf("AsBad re-wrapped a bad-input error: %#v", twice)
	}
	wrapped := fmt.Errorf("load: %w", once)
	if got := AsBad(wrapped); got != wrapped {
		t.Fatalf("AsBad re-wrapped a wrapped bad-input error: %#v", got)
	}
	var b *badinput.Error
	if !errors.As(AsBad(AsBad(cause)), &b) || b.Err != cause {
		t.Fatalf("double AsBad nests: %#v", b)
	}
}
