package adapter

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Replies are read within a limit, whatever the service sends: a line or
// body past it is given up on, not read to its end.

// errLong is a line longer than the reader's limit.
var errLong = errors.New("line longer than the limit")

// lineReader reads newline-ended lines of at most max bytes. A longer line
// is given up as soon as it passes max, so memory stays at max plus one
// buffer however long the line, or if it never ends.
type lineReader struct {
	r    *bufio.Reader
	max  int
	rest bool  // a line given up on still has bytes before its newline
	err  error // returned by the next call, after a last unended line
}

func newLineReader(r io.Reader, max, bufSize int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, bufSize), max: max}
}

// next returns the next line without its newline; a last line without one
// is returned before io.EOF. A line longer than max gives errLong; its
// rest is skipped by skip, or by the next call to next.
func (l *lineReader) next() ([]byte, error) {
	if err := l.skip(); err != nil {
		return nil, err
	}
	if l.err != nil {
		return nil, l.err
	}
	// Pieces, joined at the end: a growing slice would hold its old and
	// new backing arrays at once while growing.
	var parts [][]byte
	n := 0
	for {
		frag, err := l.r.ReadSlice('\n')
		ended := err == nil
		if ended {
			frag = frag[:len(frag)-1]
		}
		if n+len(frag) > l.max {
			if errors.Is(err, bufio.ErrBufferFull) {
				l.rest = true
			} else if err != nil {
				l.err = err
			}
			return nil, errLong
		}
		if len(frag) > 0 {
			parts = append(parts, append([]byte(nil), frag...))
			n += len(frag)
		}
		switch {
		case ended:
			return bytes.Join(parts, nil), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case n > 0:
			l.err = err
			return bytes.Join(parts, nil), nil
		default:
			l.err = err
			return nil, err
		}
	}
}

// skip drops the rest of a line given up on, up to and including its
// newline; it returns the read error (io.EOF) if input ends first.
func (l *lineReader) skip() error {
	for l.rest {
		_, err := l.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		l.rest = false
		if err != nil {
			l.err = err
			return err
		}
	}
	return nil
}

// readAtMost reads r to its end if that is at most limit bytes; over says
// it went on past the limit (the reply is then not read further).
func readAtMost(r io.Reader, limit int) (b []byte, over bool, err error) {
	var parts [][]byte
	n := 0
	for n <= limit {
		p := make([]byte, min(64<<10, limit+1-n))
		k, err := io.ReadFull(r, p)
		if k > 0 {
			parts = append(parts, p[:k])
			n += k
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return bytes.Join(parts, nil), false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
	return nil, true, nil
}
