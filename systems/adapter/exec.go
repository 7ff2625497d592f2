package adapter

import (
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

	"github.com/membench/membench"
	"github.com/membench/membench/internal/clip"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// ExecDefaults are the exec adapter's options; cmd is required.
var ExecDefaults = membench.Options{"cmd": "", "timeout": "60s", "k": "10", "order": "score", "max_reply_mb": strconv.Itoa(defaultReplyMB)}

func init() {
	systems.Register(systems.Spec{
		Name: "exec",
		Description: "any memory program speaking membench's JSON protocol as JSON lines on stdin/stdout, one child per " +
			"conversation (docs/adapter.md); --opt cmd=\"python3 my_memory.py\" required",
		Defaults: ExecDefaults,
		New:      NewExec,
		Outside:  []string{"cmd"},
		// The program retrieves on its own; membench embeds nothing.
		NoEmbeddings: true,
		// Judged only when the service reports "memories" (ParseMemories).
		Memory: systems.MemoryRule{Builds: true},
	})
}

type execTransport struct {
	cmdline string
	timeout time.Duration
	limit   int // bytes in one answer line

	mu      sync.Mutex // one request at a time: the child reads one line, answers one line
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan reply    // what stdout says; closed at EOF
	readErr error         // why lines closed (set before closing)
	dead    chan struct{} // closed by kill: nobody reads lines any more
	stderr  *tail
	broken  error // set once the child cannot be talked to any more
	exited  chan struct{}
	waitErr error
}

// NewExec makes the exec adapter from env.Options; the child starts at Ingest.
func NewExec(env systems.Env) (systems.System, error) {
	o := env.Options.Merge(ExecDefaults)
	cmd := strings.TrimSpace(o["cmd"])
	if cmd == "" {
		return nil, errors.New(`needs the command to run: --opt cmd="python3 my_memory.py"`)
	}
	r := systems.Read(o)
	d := timeout(r, o)
	return common("exec", env, &execTransport{cmdline: cmd, timeout: d, limit: replyLimit(r)}, r)
}

// reply is one event on the child's stdout: a line, a line passing the
// limit (long), or the end of that long line (ended).
type reply struct {
	line        []byte
	long, ended bool
}

// describe is the command on one line (errors are one line), cut at 120 bytes.
func (t *execTransport) describe() string {
	c := strings.Join(strings.Fields(llm.RedactText(t.cmdline)), " ")
	return "exec " + strconv.Quote(clip.To(c, 120))
}

// The protocol has no info message for children; the command is recorded.
func (t *execTransport) info(context.Context) map[string]any { return nil }

func (t *execTransport) start() error {
	// Through the shell, so cmd is written as on a command line.
	c := exec.Command("sh", "-c", t.cmdline)
	// A grandchild the child left holding stderr must not keep Wait
	// waiting for ever once the child is gone.
	c.WaitDelay = 5 * time.Second
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
	t.cmd, t.stdin, t.lines, t.exited, t.dead = c, in, make(chan reply), make(chan struct{}), make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		send := func(r reply) bool {
			select {
			case t.lines <- r:
				return true
			case <-t.dead:
				return false
			}
		}
		r := newLineReader(out, t.limit, 64<<10)
		for {
			line, err := r.next()
			if errors.Is(err, errLong) {
				// Said at once, so the request fails without waiting for
				// a line that may never end; the rest is then dropped.
				if !send(reply{long: true}) {
					return
				}
				if err = r.skip(); err == nil {
					if !send(reply{ended: true}) {
						return
					}
					continue
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.readErr = err
				}
				break
			}
			if len(bytes.TrimSpace(line)) > 0 && !send(reply{line: line}) {
				return
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
	case r, ok := <-t.lines:
		if !ok {
			return fail("%s before answering", t.exitReason())
		}
		if r.long {
			return t.overLong(ctx, timer, method, what)
		}
		line = r.line
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

// overLong fails a request whose answer line passed the limit. The child
// stays in use if the line ends within the timeout: its rest is dropped
// and the next answer is read in step. A line that does not end (a child
// writing without newlines) leaves no way to find the next answer: the
// child is stopped, and the conversation's later requests fail as this one.
func (t *execTransport) overLong(ctx context.Context, timer *time.Timer, method, what string) ([]byte, error) {
	request := fmt.Sprintf("%s: %s for %s", t.describe(), method, what)
	err := tooLarge(request, t.limit)
	why := fmt.Sprintf("did not end within %s (option timeout)", t.timeout)
	select {
	case r, ok := <-t.lines:
		if ok && r.ended {
			return nil, err
		}
		why = "ended its stdout: " + t.exitReason()
	case <-timer.C:
	case <-ctx.Done():
		t.broken = fmt.Errorf("%s: cancelled (%v)", request, ctx.Err())
		t.kill()
		return nil, t.broken
	}
	t.broken = fmt.Errorf("%s: the child was stopped: its answer to %s for %s was larger than %d MB and %s; a child answers each request with one line (%w)",
		t.describe(), method, what, t.limit>>20, why, llm.ErrBadReply)
	t.kill()
	return nil, err
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
