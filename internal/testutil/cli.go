package testutil

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
)

// WriteJSONL writes records as JSON lines, for hand-made run directories.
func WriteJSONL(tb testing.TB, path string, recs ...any) {
	tb.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// ReadJSON decodes the JSON file at path into v, failing the test with the
// path if it cannot.
func ReadJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
}

// Execute runs a command with args and returns its stdout and stderr
// together, as a user would see them.
func Execute(c *cobra.Command, args ...string) (string, error) {
	var out bytes.Buffer
	c.SetOut(&out)
	c.SetErr(&out)
	c.SetArgs(args)
	err := c.Execute()
	return out.String(), err
}

// Writer returns a function that writes body to the file name in dir and
// returns its path, failing the test on error: the bad-input tests' way to
// lay out config, prompt and data files.
func Writer(tb testing.TB, dir string) func(name, body string) string {
	return func(name, body string) string {
		tb.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
		return p
	}
}

// ExitCode runs cmd, whose output the caller has pointed where it wants,
// and returns its exit code; a command that could not run at all fails
// the test.
func ExitCode(tb testing.TB, cmd *exec.Cmd) int {
	tb.Helper()
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		tb.Fatal(err)
	}
	return 0
}
