package runlog

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/membench/membench"
)

// TranscriptsFile holds one Transcript per answered question: everything
// the answer model and the judges read and replied, for error analysis.
// Each record is its own gzip member, so the file grows by appends and any
// gzip reader reads it whole (members concatenate).
const TranscriptsFile = "transcripts.jsonl.gz"

// Transcript is what happened to one question, in full.
type Transcript struct {
	QuestionID     string `json:"question_id"`
	ConversationID string `json:"conversation_id"`
	System         string `json:"system"`
	// Items are the retrieved items with their text, times and source
	// turns; Candidates the candidate stage of two-stage selectors, with
	// their scores (cosine, or ρ after the decision).
	Items      []membench.Item `json:"items"`
	Candidates []membench.Item `json:"candidates,omitempty"`
	Notes      map[string]any  `json:"notes,omitempty"`
	// Context is the rendered context exactly as the answer prompt got it.
	Context         string      `json:"context"`
	ContextTokens   int         `json:"context_tokens"`
	RetrieveSeconds float64     `json:"retrieve_seconds"`
	Answer          Call        `json:"answer"`
	Judges          []JudgeCall `json:"judges,omitempty"`
	// Part is PartJudges for a record that only adds judges to the
	// question's transcript (a judge added to a finished run); readers
	// merge it into the full record.
	Part string `json:"part,omitempty"`
}

// PartJudges marks a transcript record holding only judge calls.
const PartJudges = "judges"

// JudgePart is the record that adds judge calls to a question's transcript.
func JudgePart(question, conversation, system string, calls ...JudgeCall) Transcript {
	return Transcript{QuestionID: question, ConversationID: conversation, System: system, Judges: calls, Part: PartJudges}
}

// ContextMark stands for the context inside a stored transcript's answer
// request: the request holds the rendered context verbatim, and storing it
// twice doubled the file for long contexts. AnswerMessages restores the
// request exactly (prompts never hold a NUL byte).
const ContextMark = "\x00context\x00"

// AnswerMessages is the answer request exactly as it was sent, with the
// context put back where the stored messages hold ContextMark.
func (t Transcript) AnswerMessages() []membench.Message {
	out := make([]membench.Message, len(t.Answer.Messages))
	for i, m := range t.Answer.Messages {
		m.Content = strings.ReplaceAll(m.Content, ContextMark, t.Context)
		out[i] = m
	}
	return out
}

// compact replaces the context inside the answer request by ContextMark.
func (t Transcript) compact() Transcript {
	if t.Context == "" || len(t.Answer.Messages) == 0 {
		return t
	}
	msgs := make([]membench.Message, len(t.Answer.Messages))
	for i, m := range t.Answer.Messages {
		m.Content = strings.ReplaceAll(m.Content, t.Context, ContextMark)
		msgs[i] = m
	}
	t.Answer.Messages = msgs
	return t
}

// Call is one model request and its raw reply.
type Call struct {
	Messages []membench.Message `json:"messages,omitempty"`
	Raw      string             `json:"raw"`
	Usage    membench.Usage     `json:"usage"`
	Cached   bool               `json:"cached,omitempty"`
	Seconds  float64            `json:"seconds"`
}

// JudgeCall is one judge's work on the question: the request and raw reply
// for model judges (none for metrics), and the verdict it logged.
type JudgeCall struct {
	Judge   string  `json:"judge"`
	Correct bool    `json:"correct"`
	Score   float64 `json:"score"`
	Reason  string  `json:"reason,omitempty"`
	// Repeat is which of the judge's repeated verdicts the call gave
	// (Judgment.Repeat: 0..N-1 under repeats=N; absent means 0).
	Repeat int `json:"repeat,omitempty"`
	Call
}

// TranscriptHead is what a reader needs of a transcript record without
// reading it: its question, whether it only adds judges, its seconds, and
// where its gzip member lies in the file. Every member's gzip header
// carries it (an RFC 1952 extra field), so IndexTranscripts finds each
// record by seeking from header to header, inflating nothing.
type TranscriptHead struct {
	QuestionID string      `json:"q"`
	Part       string      `json:"p,omitempty"`
	Retrieve   float64     `json:"r,omitempty"`
	Answer     float64     `json:"a,omitempty"`
	Judges     []JudgeTime `json:"j,omitempty"`
	Offset     int64       `json:"-"`
	Length     int64       `json:"-"`
}

// JudgeTime is one judge's wall time on a question.
type JudgeTime struct {
	Judge   string  `json:"n"`
	Seconds float64 `json:"s"`
}

// Head is the record's TranscriptHead (without its place in the file).
func (t Transcript) Head() TranscriptHead {
	h := TranscriptHead{QuestionID: t.QuestionID, Part: t.Part, Retrieve: t.RetrieveSeconds, Answer: t.Answer.Seconds}
	for _, j := range t.Judges {
		h.Judges = append(h.Judges, JudgeTime{Judge: j.Judge, Seconds: j.Seconds})
	}
	return h
}

// The extra subfield holding a member's head: "Mb", then the member's
// length (4 bytes, little-endian) and the head as JSON.
const extraSI1, extraSI2 = 'M', 'b'

func headExtra(h TranscriptHead) []byte {
	js, err := json.Marshal(h)
	ex := append(make([]byte, 8, 8+len(js)), js...)
	if err != nil || len(ex)-8 > 60000 {
		return nil // readers index such a file by inflating it
	}
	ex[0], ex[1] = extraSI1, extraSI2
	binary.LittleEndian.PutUint16(ex[2:], uint16(len(ex)-4))
	return ex
}

// IndexTranscripts lists the heads of a run directory's transcript
// records in file order (a question may have several: its full record and
// judges added later). It reads only the gzip headers; a file written
// before heads existed is inflated once instead. A missing file is empty;
// a torn last member is left out.
func IndexTranscripts(dir string) ([]TranscriptHead, error) {
	path := filepath.Join(dir, TranscriptsFile)
	heads, _, ok, err := walkHeads(path)
	if err != nil || ok {
		return heads, err
	}
	return scanHeads(path)
}

// walkHeads reads the heads of path's members from their gzip headers and
// returns them with the offset after the last complete member; ok is false
// when a member carries no head (a file written before heads existed).
func walkHeads(path string) (heads []TranscriptHead, good int64, ok bool, err error) {
	f, err := openIfThere(path, os.O_RDONLY)
	if f == nil {
		return nil, 0, err == nil, err // a missing file has no members
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, false, err
	}
	hdr := make([]byte, 12)
	for good < st.Size() {
		if _, err := f.ReadAt(hdr, good); err != nil {
			if errors.Is(err, io.EOF) {
				break // torn tail
			}
			return nil, 0, false, err
		}
		if hdr[0] != 0x1f || hdr[1] != 0x8b {
			return nil, 0, false, fmt.Errorf("%s: damaged gzip member at byte %d (delete the file to drop the transcripts; the other artifacts do not depend on it)", path, good)
		}
		if hdr[3]&0x04 == 0 {
			return nil, 0, false, nil
		}
		ex := make([]byte, binary.LittleEndian.Uint16(hdr[10:12]))
		if _, err := f.ReadAt(ex, good+12); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, 0, false, err
		}
		h, n, found := parseHeadExtra(ex)
		if !found {
			return nil, 0, false, nil
		}
		if good+n > st.Size() {
			break // torn tail
		}
		h.Offset, h.Length = good, n
		heads = append(heads, h)
		good += n
	}
	return heads, good, true, nil
}

func parseHeadExtra(ex []byte) (TranscriptHead, int64, bool) {
	for len(ex) >= 4 {
		n := int(binary.LittleEndian.Uint16(ex[2:4]))
		if len(ex) < 4+n {
			break
		}
		if ex[0] == extraSI1 && ex[1] == extraSI2 && n >= 4 {
			var h TranscriptHead
			if json.Unmarshal(ex[8:4+n], &h) != nil {
				break
			}
			return h, int64(binary.LittleEndian.Uint32(ex[4:8])), true
		}
		ex = ex[4+n:]
	}
	return TranscriptHead{}, 0, false
}

// scanHeads indexes a file whose members carry no heads by inflating it.
func scanHeads(path string) ([]TranscriptHead, error) {
	var heads []TranscriptHead
	_, _, err := scanMembers(path, func(line []byte, start, end int64) error {
		var t Transcript
		if err := json.Unmarshal(line, &t); err != nil {
			return err
		}
		h := t.Head()
		h.Offset, h.Length = start, end-start
		heads = append(heads, h)
		return nil
	})
	return heads, err
}

// ReadTranscriptsAt reads the records the heads point to (from
// IndexTranscripts) and merges them (MergeTranscripts), so a reader
// loads a few questions' transcripts without reading the file.
func ReadTranscriptsAt(dir string, heads []TranscriptHead) ([]Transcript, error) {
	path := filepath.Join(dir, TranscriptsFile)
	want := map[string]bool{}
	for _, h := range heads {
		want[h.QuestionID] = true
	}
	// Each member once, in file order (heads of one member share its place).
	members := slices.Clone(heads)
	slices.SortFunc(members, func(a, b TranscriptHead) int { return cmp.Compare(a.Offset, b.Offset) })
	members = slices.CompactFunc(members, func(a, b TranscriptHead) bool { return a.Offset == b.Offset })
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []Transcript
	var zr *gzip.Reader
	for _, m := range members {
		buf := make([]byte, m.Length)
		if _, err := f.ReadAt(buf, m.Offset); err != nil {
			return nil, fmt.Errorf("%s: member at byte %d: %w", path, m.Offset, err)
		}
		body, err := inflate(&zr, bytes.NewReader(buf))
		if err != nil {
			return nil, fmt.Errorf("%s: damaged gzip member at byte %d: %v (delete the file to drop the transcripts; the other artifacts do not depend on it)", path, m.Offset, err)
		}
		for line := range records(body) {
			var t Transcript
			if err := json.Unmarshal(line, &t); err != nil {
				return nil, fmt.Errorf("%s: record at byte %d: %v", path, m.Offset, err)
			}
			if want[t.QuestionID] {
				recs = append(recs, t)
			}
		}
	}
	return MergeTranscripts(recs), nil
}

// TranscriptWriter appends transcripts to a TranscriptsFile, one gzip
// member per record, safe for concurrent use.
type TranscriptWriter struct {
	mu sync.Mutex
	f  *os.File
}

// OpenTranscripts opens path for appending. A member torn by an
// interrupted writer is cut off first (as OpenAppend does for a torn line).
func OpenTranscripts(path string) (*TranscriptWriter, error) {
	// The heads give the end of the last complete member without inflating
	// the file; a file without them is inflated.
	_, good, ok, err := walkHeads(path)
	if err == nil && !ok {
		good, _, err = scanMembers(path, nil)
	}
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(path); err == nil && st.Size() > good {
		if err := os.Truncate(path, good); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &TranscriptWriter{f: f}, nil
}

// Write appends t as one complete gzip member in one write, so a crash
// loses at most this record and concurrent writers never interleave. The
// context is stored once (see ContextMark).
func (w *TranscriptWriter) Write(t Transcript) error {
	buf := getBuf()
	defer putBuf(buf)
	if err := gzipMember(buf, t); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err := w.f.Write(buf.Bytes())
	return err
}

// gzipMember writes t to buf as one gzip member with its head (see
// headExtra): stored up to storedMax bytes, deflated by klauspost's
// BestSpeed above it (cheaper in CPU than the standard library's), and
// plain gzip either way (readers use compress/gzip). Writers are reused,
// and go back before the caller waits for the file: with hundreds of
// questions queued on the file lock, writers held through the wait were
// allocated afresh by the hundred.
func gzipMember(buf *bytes.Buffer, t Transcript) error {
	// json.Marshal's bytes and a newline, then stored or deflated (see
	// storedMax).
	js, err := json.Marshal(t.compact())
	if err != nil {
		return err
	}
	js = append(js, '\n')
	zw, free := getGzip(len(js))
	defer putGzip(zw, free)
	zw.Reset(buf)
	zw.Extra = headExtra(t.Head())
	if _, err := zw.Write(js); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if zw.Extra != nil {
		// The member's length, known only now, goes where headExtra left
		// room for it (10-byte header, 2-byte XLEN, 4-byte subfield head).
		binary.LittleEndian.PutUint32(buf.Bytes()[16:20], uint32(buf.Len()))
	}
	return nil
}

// A transcript of up to storedMax bytes (nearly all LoCoMo ones) is
// stored, not deflated: deflating costs CPU on every question, storing
// next to nothing. The price is disk for small transcripts; bundles are a
// gzip'd tar, so what is shared stays compressed. Longer transcripts
// (full-context and LongMemEval ones) are deflated, where the disk saved
// is worth the CPU.
const storedMax = 32 << 10

// gzipFree and storedFree keep idle gzip writers. Not a sync.Pool: a
// pool is emptied at every GC, and each cycle then allocated (and zeroed)
// fresh writers.
var (
	gzipFree   = make(chan *kgzip.Writer, 8)
	storedFree = make(chan *kgzip.Writer, 8)
)

// getGzip returns a writer for a member of size bytes and the free list
// it goes back to.
func getGzip(size int) (*kgzip.Writer, chan *kgzip.Writer) {
	free, level := gzipFree, kgzip.BestSpeed
	if size <= storedMax {
		free, level = storedFree, kgzip.NoCompression
	}
	select {
	case zw := <-free:
		return zw, free
	default:
		zw, _ := kgzip.NewWriterLevel(io.Discard, level)
		return zw, free
	}
}

func putGzip(zw *kgzip.Writer, free chan *kgzip.Writer) {
	select {
	case free <- zw:
	default: // enough idle ones
	}
}

// bufPool holds members' output buffers (a few KB each).
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuf() *bytes.Buffer {
	b := bufPool.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

func putBuf(b *bytes.Buffer) {
	if b.Cap() <= 1<<20 { // an unusually large transcript's buffer is not kept
		bufPool.Put(b)
	}
}

func (w *TranscriptWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.f.Close()
}

// MergeTranscripts folds records in file order into one transcript per
// question, in the order questions first appear: a full record replaces
// what came before it, a PartJudges record adds or replaces judge calls
// (one per judge and repeat).
// A question with judge parts only keeps them (its full record was never
// written), marked by Part.
func MergeTranscripts(recs []Transcript) []Transcript {
	idx := map[string]int{}
	var out []Transcript
	for _, t := range recs {
		i, ok := idx[t.QuestionID]
		if !ok {
			idx[t.QuestionID] = len(out)
			out = append(out, t)
			continue
		}
		if t.Part != PartJudges {
			out[i] = t
			continue
		}
		cur := &out[i]
		cur.Judges = append([]JudgeCall(nil), cur.Judges...)
		for _, j := range t.Judges {
			replaced := false
			for k := range cur.Judges {
				if cur.Judges[k].Judge == j.Judge && cur.Judges[k].Repeat == j.Repeat {
					cur.Judges[k], replaced = j, true
				}
			}
			if !replaced {
				cur.Judges = append(cur.Judges, j)
			}
		}
	}
	return out
}

// countingReader counts the bytes the gzip reader consumed; it is a
// flate.Reader (ReadByte), so gzip reads through it without buffering
// ahead and the count is exactly where each member ends.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// scanMembers walks path member by member, handing each JSON line and its
// member's byte range to fn (when non-nil), and returns the offset after the last complete member
// and the number of members. A truncated last member ends the walk; a
// damaged member before the end is an error naming the file and offset.
func scanMembers(path string, fn func(line []byte, start, end int64) error) (good int64, n int, err error) {
	f, err := openIfThere(path, os.O_RDONLY)
	if f == nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	cr := &countingReader{r: bufio.NewReaderSize(f, 256<<10)}
	var zr *gzip.Reader
	for cr.n < st.Size() {
		body, err := inflate(&zr, cr)
		if err == nil && fn != nil {
			for line := range records(body) {
				if e := fn(line, good, cr.n); e != nil {
					return good, n, fmt.Errorf("%s: record %d: %v (delete the file to drop the transcripts; the other artifacts do not depend on it)", path, n+1, e)
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return good, n, nil // torn tail of an interrupted write
			}
			return good, n, fmt.Errorf("%s: damaged gzip member at byte %d: %v (delete the file to drop the transcripts; the other artifacts do not depend on it)", path, good, err)
		}
		good = cr.n
		n++
	}
	return good, n, nil
}

// inflate reads one gzip member from r, through *zr (made on first use,
// then reset, so a walk over many members reuses one reader).
func inflate(zr **gzip.Reader, r io.Reader) ([]byte, error) {
	var err error
	if *zr == nil {
		*zr, err = gzip.NewReader(r)
	} else {
		err = (*zr).Reset(r)
	}
	if err != nil {
		return nil, err
	}
	(*zr).Multistream(false)
	return io.ReadAll(*zr)
}

// records yields a member's non-blank JSON lines.
func records(body []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for line := range bytes.Lines(body) {
			if len(bytes.TrimSpace(line)) > 0 && !yield(line) {
				return
			}
		}
	}
}
