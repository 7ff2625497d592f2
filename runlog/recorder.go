package runlog

import (
	"errors"
	"path/filepath"
	"strconv"
	"time"

	"github.com/membench/membench"
)

// Recorder is one attempt's writer of a run directory's record files. It
// owns the order in which each piece of work is committed, which is what
// makes a killed run resumable and its costs exact:
//
//   - a build: the memory dump, the build's cost line, then the build line
//     (the build line says the conversation is built; without it a resume
//     rebuilds, drops the dump (DropMemoryOf) and replaces the cost line);
//   - an answer: its cost line (part "answer"), then the answer line;
//   - a judgment: its cost line (part "judge:NAME"), then the judgment;
//   - a retrieval, a failure, a transcript, and cost lines no result rests
//     on (a build's partial or redone calls): as they come.
//
// It is safe for concurrent use.
type Recorder struct {
	dir, system string
	files       map[string]*Appender
	tx          *TranscriptWriter
	now         func() time.Time
}

// recorded are the record files a Recorder appends to.
var recorded = []string{BuildFile, RetrievalsFile, AnswersFile, JudgmentsFile, CostsFile, MemoryFile, FailuresFile}

// OpenRecorder opens the record files of the run in dir for appending
// the work of system.
func OpenRecorder(dir, system string) (*Recorder, error) {
	r := &Recorder{dir: dir, system: system, files: map[string]*Appender{}, now: func() time.Time { return time.Now().UTC() }}
	for _, n := range recorded {
		a, err := OpenAppender(filepath.Join(dir, n))
		if err != nil {
			r.Close()
			return nil, err
		}
		r.files[n] = a
	}
	return r, nil
}

// StartTranscripts opens transcripts.jsonl.gz; until it is called,
// Transcript writes nothing (--no-transcripts, or nothing left to answer).
func (r *Recorder) StartTranscripts() error {
	tx, err := OpenTranscripts(filepath.Join(r.dir, TranscriptsFile))
	if err != nil {
		return err
	}
	r.tx = tx
	return nil
}

// Close closes every file.
func (r *Recorder) Close() error {
	var errs []error
	for _, a := range r.files {
		errs = append(errs, a.Close())
	}
	if r.tx != nil {
		errs = append(errs, r.tx.Close())
		r.tx = nil
	}
	return errors.Join(errs...)
}

// Build commits a conversation's build: memory (a dump of JSON lines, nil
// for none), the calls it made (tallies, closing build attempt attempt),
// then the build line.
func (r *Recorder) Build(memory []byte, tallies []membench.Tally, attempt string, b BuildRecord) error {
	if len(memory) > 0 {
		if err := r.files[MemoryFile].WriteRaw(memory); err != nil {
			return err
		}
	}
	c := CostRecord{ConversationID: b.ConversationID, System: r.system, At: r.now(), Tallies: tallies, Part: "build", Attempt: attempt}
	if err := r.files[CostsFile].Write(c); err != nil {
		return err
	}
	return r.files[BuildFile].Write(b)
}

// Retrieval writes a question's retrieval line.
func (r *Recorder) Retrieval(rec RetrievalRecord) error { return r.files[RetrievalsFile].Write(rec) }

// Answer commits a question's answer: the calls its retrieval and answer
// made (none: no cost line), then the answer line.
func (r *Recorder) Answer(tallies []membench.Tally, a AnswerRecord) error {
	if err := r.keyedCost(a.ConversationID, a.QuestionID, "answer", tallies); err != nil {
		return err
	}
	return r.files[AnswersFile].Write(a)
}

// Judgment commits one judge's verdict on a question of conversation
// conv: the calls the judgment made (none: no cost line), then the
// judgment line.
func (r *Recorder) Judgment(conv string, tallies []membench.Tally, j Judgment) error {
	part := "judge:" + j.Judge
	if j.Repeat != 0 {
		part += "#" + strconv.Itoa(j.Repeat) // as the judge's repeat is named (judging.RepeatName)
	}
	if err := r.keyedCost(conv, j.QuestionID, part, tallies); err != nil {
		return err
	}
	return r.files[JudgmentsFile].Write(j)
}

// keyedCost writes the cost line of one part of a question (CostRecord).
func (r *Recorder) keyedCost(conv, question, part string, tallies []membench.Tally) error {
	if len(tallies) == 0 {
		return nil // offline metrics make no calls
	}
	return r.files[CostsFile].Write(CostRecord{ConversationID: conv, System: r.system, QuestionID: question, Part: part, At: r.now(), Tallies: tallies})
}

// Cost writes a cost line no result rests on by its order: a build's
// partial or redone calls, usage a service reported about itself. Its
// System and At are filled when empty.
func (r *Recorder) Cost(c CostRecord) error {
	if c.System == "" {
		c.System = r.system
	}
	if c.At.IsZero() {
		c.At = r.now()
	}
	return r.files[CostsFile].Write(c)
}

// Failure records a question the attempt gave up on.
func (r *Recorder) Failure(f Failure) error { return r.files[FailuresFile].Write(f) }

// Transcript writes a question's transcript, when transcripts were started.
func (r *Recorder) Transcript(t Transcript) error {
	if r.tx == nil {
		return nil
	}
	return r.tx.Write(t)
}
