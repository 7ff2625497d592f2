package adapter

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// counting hands out its data in pieces of varying size and counts what
// was read, to check how far a long line is read before it is given up.
type counting struct {
	data  []byte
	sizes []byte
	read  int
}

func (c *counting) Read(p []byte) (int, error) {
	if c.read >= len(c.data) {
		return 0, io.EOF
	}
	n := len(p)
	if len(c.sizes) > 0 {
		n = min(n, int(c.sizes[c.read%len(c.sizes)])+1)
	}
	n = copy(p[:n], c.data[c.read:])
	c.read += n
	return n, nil
}

// endless is a stdout that never writes a newline.
type endless struct{ read int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.read += len(p)
	return len(p), nil
}

func TestLineReaderGivesUpEarlyOnEndlessLine(t *testing.T) {
	const max, buf = 1 << 20, 64 << 10
	src := &endless{}
	l := newLineReader(io.MultiReader(bytes.NewReader([]byte("{\"result\": {}}\n")), src), max, buf)
	line, err := l.next()
	if err != nil || string(line) != `{"result": {}}` {
		t.Fatalf("first line %q, %v", line, err)
	}
	if _, err := l.next(); !errors.Is(err, errLong) {
		t.Fatalf("endless line: %v, want errLong", err)
	}
	if src.read > max+2*buf {
		t.Fatalf("read %d bytes of an endless line before giving up, want at most the limit %d and two buffers", src.read, max)
	}
}

func TestLineReaderSkipsLongLineAndStaysInStep(t *testing.T) {
	long := bytes.Repeat([]byte("y"), 5000)
	in := "a\n" + string(long) + "\nb\n" + string(long[:100]) + "\n\nlast"
	l := newLineReader(bytes.NewReader([]byte(in)), 100, 16)
	var got []string
	for {
		line, err := l.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, errLong) {
			got = append(got, "LONG")
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	want := []string{"a", "LONG", "b", string(long[:100]), "", "last"}
	if len(got) != len(want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("line %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// FuzzLineReader checks the reader against bytes.Split: every line up to
// the limit comes back whole, every longer one is errLong and skipped
// (by skip or by the next call), and a long line is given up on before
// much more than the limit of it is read.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"result\": {}}\n{}\n"), uint16(8), []byte{3, 200}, true)
	f.Add([]byte("short\n"+string(bytes.Repeat([]byte("z"), 300))+"\nafter"), uint16(40), []byte{0}, false)
	f.Add([]byte("\n\n\r\n"), uint16(0), []byte(nil), true)
	f.Fuzz(func(t *testing.T, data []byte, max uint16, sizes []byte, explicitSkip bool) {
		const buf = 16
		src := &counting{data: data, sizes: sizes}
		l := newLineReader(src, int(max), buf)
		segs := bytes.Split(data, []byte("\n"))
		if len(segs[len(segs)-1]) == 0 {
			segs = segs[:len(segs)-1] // data ended with a newline, or was empty
		}
		start := 0
		for i, want := range segs {
			line, err := l.next()
			if len(want) > int(max) {
				if !errors.Is(err, errLong) {
					t.Fatalf("line %d (%d bytes, limit %d): %q, %v; want errLong", i, len(want), max, line, err)
				}
				if src.read > start+int(max)+2*buf {
					t.Fatalf("line %d: read to byte %d before giving up, line starts at %d, limit %d", i, src.read, start, max)
				}
				if explicitSkip {
					if err := l.skip(); err != nil && !(errors.Is(err, io.EOF) && i == len(segs)-1) {
						t.Fatalf("skip after line %d: %v", i, err)
					}
				}
			} else if err != nil || !bytes.Equal(line, want) {
				t.Fatalf("line %d: %q, %v; want %q", i, line, err, want)
			}
			start += len(want) + 1
		}
		if line, err := l.next(); !errors.Is(err, io.EOF) {
			t.Fatalf("after the last line: %q, %v; want io.EOF", line, err)
		}
	})
}

func TestReadAtMostStopsOnEndlessBody(t *testing.T) {
	src := &endless{}
	b, over, err := readAtMost(src, 1<<20)
	if !over || err != nil || b != nil || src.read != 1<<20+1 {
		t.Fatalf("endless body: over %v, err %v, %d bytes kept, %d read; want over after reading the limit and one byte", over, err, len(b), src.read)
	}
}

// FuzzReadAtMost: a body up to the limit comes back whole, a longer one is
// over and read no further than one byte past the limit.
func FuzzReadAtMost(f *testing.F) {
	f.Add([]byte(`{"items": []}`), uint16(13), []byte{2})
	f.Add([]byte(`{"items": []}`), uint16(12), []byte(nil))
	f.Add([]byte(nil), uint16(0), []byte{0})
	f.Fuzz(func(t *testing.T, data []byte, max uint16, sizes []byte) {
		src := &counting{data: data, sizes: sizes}
		b, over, err := readAtMost(src, int(max))
		if err != nil {
			t.Fatal(err)
		}
		if over != (len(data) > int(max)) {
			t.Fatalf("%d bytes, limit %d: over %v", len(data), max, over)
		}
		if over && src.read > int(max)+1 {
			t.Fatalf("read %d bytes of a body over the limit %d", src.read, max)
		}
		if !over && !bytes.Equal(b, data) {
			t.Fatalf("got %q, want %q", b, data)
		}
	})
}
