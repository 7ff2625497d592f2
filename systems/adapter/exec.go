package adapter

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// ExecDefaults are the exec adapter's options; cmd is required.
var ExecDefaults = systems.Options{"cmd": "", "timeout": "60s", "k": "10", "order": "score"}

func init() {
	systems.Register(systems.Spec{
		Name: "exec",
		Description: "any memory program speaking membench's JSON protocol as JSON lines on stdin/stdout, one child per " +
			"conversation (docs/adapter.md); --opt cmd=\"python3 my_memory.py\" required",
		Defaults: ExecDefaults,
		New:      NewExec,
	})
}

// maxLine bounds one response line.
const maxLine = 64 << 20

type execTransport struct {
	cmdline string
	timeout time.Duration

	mu      sync.Mutex // one request at a time: the child reads one line, answers one line
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan []byte   // stdout lines; closed at EOF
	readErr error         // why lines closed (set before closing)
	dead    chan struct{} // closed by kill: nobody reads lines any more
	stderr  *tail
	broken  error // set once the child cannot be talked to any more
	exited  chan struct{}
	waitErr error
}

// NewExec makes the exec adapter from env.Options; the child starts at Ingest.
func NewExec(env systems.Env) (systems.System, error) {
	o := env.Options
	if err := o.Check("exec", ExecDefaults); err != nil {
		return nil, err
	}
	o = o.Merge(ExecDefaults)
	cmd := strings.TrimSpace(o["cmd"])
	if cmd == "" {
		return nil, errors.New(`needs the command to run: --opt cmd="python3 my_memory.py"`)
	}
	d, err := timeout(o)
	if err != nil {
		return nil, err
	}
	return common("exec", env, &execTransport{cmdline: cmd, timeout: d}, ExecDefaults)
}

// describe is the command on one line (errors are one line), cut at 120 bytes.
func (t *execTransport) describe() string {
	c := strings.Join(strings.Fields(llm.RedactText(t.cmdline)), " ")
	if len(c) > 120 {
		c = c[:120] + "…"
	}
	return "exec " + strconv.Quote(c)
}

// The protocol has no info message for children; the command is recorded.
func (t *execTransport) info(context.Context) map[string]any { return nil }

func (t *execTransport) start() error {
	// Through the shell, so cmd is written as on a command line.
	c := exec.Command("sh", "-c", t.cmdline)
	in, err := c.StdinPipe()
	if err != nil {
		return err
	}
	out, err := c.StdoutPipe()
	if err != nil {
		return err
	}
	t.stderr = &tail{max: 2048}
	c.Stderr = t.stderr
	ownGroup(c)
	if err := c.Start(); err != nil {
		return fmt.Errorf("%s: cannot start: %w", t.describe(), err)
	}
	t.cmd, t.stdin, t.lines, t.exited, t.dead = c, in, make(chan []byte), make(chan struct{}), make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		r := bufio.NewReaderSize(out, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case t.lines <- line:
				case <-t.dead:
					return
				}
			}
			if len(line) > maxLine {
				t.readErr = fmt.Errorf("a response line longer than %d bytes", maxLine)
				break
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.readErr = err
				}
				break
			}
		}
		close(t.lines)
	}()
	go func() {
		// Wait closes stdout: only after everything written was read.
		select {
		case <-read:
		case <-t.dead:
		}
		t.waitErr = c.Wait()
		close(t.exited)
	}()
	return nil
}

// call writes {"method": m, "params": p} and reads one line back:
// {"result": ...} or {"error": "..."}.
func (t *execTransport) call(ctx context.Context, method string, params any, what string) ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.broken != nil {
		return nil, t.broken
	}
	if t.cmd == nil {
		if err := t.start(); err != nil {
			t.broken = err
			return nil, err
		}
	}
	fail := func(format string, a ...any) ([]byte, error) {
		msg := fmt.Sprintf("%s: %s for %s: ", t.describe(), method, what) + fmt.Sprintf(format, a...)
		if s := t.stderr.String(); s != "" {
			msg += "; its stderr ends: " + quote([]byte(s))
		}
		t.broken = errors.New(msg)
		t.kill()
		return nil, t.broken
	}
	req, err := json.Marshal(map[string]any{"method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if _, err := t.stdin.Write(append(req, '\n')); err != nil {
		return fail("%s before answering", t.exitReason()) // the write failed: why matters, not the broken pipe
	}
	timer := time.NewTimer(t.timeout)
	defer timer.Stop()
	var line []byte
	select {
	case l, ok := <-t.lines:
		if !ok {
			return fail("%s before answering", t.exitReason())
		}
		line = l
	case <-timer.C:
		return fail("no answer within %s (option timeout)", t.timeout)
	case <-ctx.Done():
		return fail("cancelled (%v)", ctx.Err())
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(line, &env); err != nil {
		return fail("the child wrote a line that is not a JSON object: %s (write logs to stderr, not stdout)", quote(line))
	}
	if e, ok := env["error"]; ok && !isNull(e) {
		var s string
		if json.Unmarshal(e, &s) != nil {
			s = string(e)
		}
		// The child said no: this message fails, the child stays usable.
		msg := fmt.Sprintf("%s: %s for %s: the child answered with an error: %s", t.describe(), method, what, quote([]byte(s)))
		return nil, errors.New(msg)
	}
	res, ok := env["result"]
	if !ok {
		return fail("%v", bad("result", "missing (want {\"result\": ...} or {\"error\": \"...\"}), got %s", quote(line)))
	}
	return res, nil
}

// exitReason says why the child stopped talking, waiting briefly for it to exit.
func (t *execTransport) exitReason() string {
	select {
	case <-t.exited:
	case <-time.After(2 * time.Second):
		return "the child closed its stdout"
	}
	switch {
	case t.waitErr != nil:
		return "the child exited (" + t.waitErr.Error() + ")"
	case t.readErr != nil:
		return "reading its stdout failed: " + t.readErr.Error()
	}
	return "the child exited"
}

func (t *execTransport) kill() {
	if t.cmd == nil || t.cmd.Process == nil {
		return
	}
	select {
	case <-t.dead:
		return
	default:
		close(t.dead)
	}
	select {
	case <-t.exited: // reaped: its pid may belong to someone else now
	default:
		killGroup(t.cmd)
	}
}

// close ends the child: stdin closed (a well-behaved child exits at EOF),
// killed if it has not exited within 5 s.
func (t *execTransport) close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cmd == nil {
		return nil
	}
	t.stdin.Close()
	select {
	case <-t.exited:
	case <-time.After(5 * time.Second):
		t.kill()
	}
	<-t.exited
	if t.broken == nil {
		t.broken = errors.New(t.describe() + ": closed")
	}
	return nil
}

// tail keeps the last max bytes written (the child's stderr, for errors).
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
