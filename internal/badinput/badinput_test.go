package badinput

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestIs(t *testing.T) {
	plain := errors.New("disk full")
	bad := Errorf("--k %q: want a positive integer", "x")
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain", plain, false},
		{"bad", bad, true},
		{"wrapped", fmt.Errorf("run: %w", bad), true},
		{"joined", errors.Join(plain, bad), true},
		{"wrapped plain", fmt.Errorf("run: %w", plain), false},
		{"text only", fmt.Errorf("run: %v", bad), false},
	}
	for _, c := range cases {
		if got := Is(c.err); got != c.want {
			t.Errorf("%s: Is = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestErrorfKeepsCause(t *testing.T) {
	err := Errorf("config %s: %w", "a.yaml", fs.ErrNotExist)
	if err.Error() != "config a.yaml: file does not exist" || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Errorf = %q, cause reachable %v", err, errors.Is(err, fs.ErrNotExist))
	}
}

func TestWrap(t *testing.T) {
	if Wrap(nil) != nil {
		t.Fatal("Wrap(nil) != nil")
	}
	cause := errors.New("no such dataset")
	once := Wrap(cause)
	if !Is(once) || once.Error() != cause.Error() || !errors.Is(once, cause) {
		t.Fatalf("Wrap(cause) = %#v", once)
	}
	if Wrap(once) != once {
		t.Fatal("Wrap re-wrapped an input error")
	}
	wrapped := fmt.Errorf("load: %w", once)
	if Wrap(wrapped) != wrapped {
		t.Fatal("Wrap re-wrapped a wrapped input error")
	}
}
