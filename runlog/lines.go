package runlog

import (
	"path/filepath"
	"sync"
)

// Lines are a run's records as written: every line of each file, every
// attempt's, before LastBy keeps the last per key. A summary needs them
// all (work redone on resume is counted apart); Run holds the last ones.
type Lines struct {
	Answers    []AnswerRecord
	Judgments  []Judgment
	Retrievals []RetrievalRecord
	Builds     []BuildRecord
	Costs      []CostRecord
}

// Known are records a caller holds and knows to be exactly a run file's
// lines (read from it and nothing appended or cut since, or kept as they
// were written: Appender.Keep), so that file need not be read again. Has
// names the files they stand for; the others are read.
type Known struct {
	Answers    []AnswerRecord
	Judgments  []Judgment
	Retrievals []RetrievalRecord
	Builds     []BuildRecord
	Costs      []CostRecord
	Has        map[string]bool // by file name (AnswersFile, ...)
}

// ReadLines reads the five record files of dir at once (they are
// independent); known (nil: none) stands for the files it names. The
// first error in file order is returned, as when they were read in turn.
func ReadLines(dir string, known *Known) (Lines, error) {
	var l Lines
	var errs [5]error
	var wg sync.WaitGroup
	read := func(i int, f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f()
		}()
	}
	var k Known
	if known != nil {
		k = *known
	}
	heldOr(read, 0, dir, AnswersFile, k, k.Answers, &l.Answers)
	heldOr(read, 1, dir, JudgmentsFile, k, k.Judgments, &l.Judgments)
	heldOr(read, 2, dir, RetrievalsFile, k, k.Retrievals, &l.Retrievals)
	heldOr(read, 3, dir, BuildFile, k, k.Builds, &l.Builds)
	heldOr(read, 4, dir, CostsFile, k, k.Costs, &l.Costs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return Lines{}, err
		}
	}
	return l, nil
}

// heldOr sets *dst to held when k stands for file, and otherwise reads the
// file (as the i-th of read's jobs).
func heldOr[T any](read func(int, func() error), i int, dir, file string, k Known, held []T, dst *[]T) {
	if k.Has[file] {
		*dst = held
		return
	}
	read(i, func() (err error) { *dst, err = ReadJSONL[T](filepath.Join(dir, file)); return })
}

// Status is StatusOf's computation on lines already read.
func (l Lines) Status(m Manifest) Status {
	ans := LastBy(l.Answers, func(x AnswerRecord) string { return x.QuestionID })
	js := LastBy(l.Judgments, func(x Judgment) string { return x.QuestionID + "\x00" + x.Judge })
	return computeStatus(m, ans, js)
}
