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

// ReadLines reads the five record files of dir at once (they are
// independent). The first error in file order is returned, as when they
// were read in turn.
func ReadLines(dir string) (Lines, error) {
	var l Lines
	var errs [5]error
	var wg sync.WaitGroup
	wg.Go(func() { l.Answers, errs[0] = ReadJSONL[AnswerRecord](filepath.Join(dir, AnswersFile)) })
	wg.Go(func() { l.Judgments, errs[1] = ReadJSONL[Judgment](filepath.Join(dir, JudgmentsFile)) })
	wg.Go(func() { l.Retrievals, errs[2] = ReadJSONL[RetrievalRecord](filepath.Join(dir, RetrievalsFile)) })
	wg.Go(func() { l.Builds, errs[3] = ReadJSONL[BuildRecord](filepath.Join(dir, BuildFile)) })
	wg.Go(func() { l.Costs, errs[4] = ReadJSONL[CostRecord](filepath.Join(dir, CostsFile)) })
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return Lines{}, err
		}
	}
	return l, nil
}

// Status is StatusOf's computation on lines already read.
func (l Lines) Status(m Manifest) Status {
	ans := LastBy(l.Answers, func(x AnswerRecord) string { return x.QuestionID })
	js := LastBy(l.Judgments, func(x Judgment) string { return x.QuestionID + "\x00" + x.Judge })
	return computeStatus(m, ans, js)
}
