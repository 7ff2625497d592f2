// Package jsonl reads JSON-lines files line by line, whatever a line's
// length: bufio.Scanner stops at its buffer size with "token too long" and
// no file or line, which turned one long record into an unreadable run.
package jsonl

import (
	"bufio"
	"errors"
	"io"
)

// Each calls fn for every line of r, numbered from 1, without its line
// ending ("\n" or "\r\n"). last is true for a final line that has no
// newline: a writer interrupted mid-line leaves exactly that. An error from
// fn stops the reading and is returned as is. line is only valid during
// the call (it is the reader's buffer, not a copy: copying every line was
// a fifth of reading a run's records).
func Each(r io.Reader, fn func(n int, line []byte, last bool) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte // a line longer than the buffer, gathered
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			last := line[len(line)-1] != '\n'
			line = trimEOL(line)
			if ferr := fn(n, line, last); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func trimEOL(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
		if len(b) > 0 && b[len(b)-1] == '\r' {
			b = b[:len(b)-1]
		}
	}
	return b
}
