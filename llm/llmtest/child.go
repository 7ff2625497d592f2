package llmtest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// InChild runs a server in a child process, so that a benchmark's CPU
// figures are the client's alone: it starts this test binary running only
// the test named test with env=1 set, reads the "URL …" line that test's
// Serve prints, and returns the URL. The child stops when tb's cleanup
// closes its stdin.
func InChild(tb testing.TB, test, env string) string {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	// The child inherits this process's environment (cmd.Environ: reading
	// it is the child's business, not configuration of this package).
	cmd.Env = append(cmd.Environ(), env+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { stdin.Close(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "URL "); ok {
			go io.Copy(io.Discard, out)
			return u
		}
	}
	tb.Fatalf("the server in a child process (%s) gave no URL (%v)", test, sc.Err())
	return ""
}

// Serve is the child side of InChild: it prints s's URL and serves until
// stdin closes.
func Serve(s *Server) {
	fmt.Printf("URL %s\n", s.URL)
	io.Copy(io.Discard, os.Stdin)
}
