package rejudge

import (
	"context"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/answerkey"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/runlog"
)

// AddedByKey is the manifest's added_by of judges that judged a run's
// answers again under another answer key: they may cover part of the run
// (a key leaves ambiguous questions out).
const AddedByKey = "judge --answer-key"

// underKey is a run's questions under another answer key: the gold each
// answered question has under it, and the questions it leaves out.
type underKey struct {
	key   *answerkey.Key // nil: the published key
	label string
	gold  map[string]string // question id -> gold under the key
}

// openKey reads the key choice and finds, in the run's dataset file, the
// gold of every answered question under it. The run must be LoCoMo's, and
// the dataset file the one the run read (its sha256).
func openKey(choice, home string, m runlog.Manifest, answers []runlog.AnswerRecord) (*underKey, error) {
	key, err := answerkey.Open(choice, home)
	if err != nil {
		return nil, err
	}
	if key.ID() == datasets.KeyID(m.Dataset, m.AppliedKey()) {
		return nil, badinput.Errorf("--answer-key %s: the run was judged under this key already; drop --answer-key", choice)
	}
	if !datasets.HasAnswerKeys(m.Dataset) {
		return nil, badinput.Errorf("--answer-key is for runs on %s; this run's dataset is %s", datasets.KeyedNames(), m.Dataset)
	}
	ds, err := datasets.Load(m.Dataset, m.DatasetSource, datasets.LoadOptions{Home: home, Lazy: true})
	if err != nil {
		return nil, badinput.Errorf("--answer-key: the run's dataset file %s: %v; judging under a key needs the file the run read", m.DatasetSource, err)
	}
	if m.DatasetSHA256 != "" && ds.SHA256 != m.DatasetSHA256 {
		return nil, badinput.Errorf("--answer-key: %s has sha256 %.12s, but the run read %.12s; restore the run's dataset file", m.DatasetSource, ds.SHA256, m.DatasetSHA256)
	}
	cs, err := key.Match(ds)
	if err != nil {
		return nil, err
	}
	published := map[string]string{}
	for _, q := range ds.Questions() {
		published[q.ID] = q.Gold
	}
	u := &underKey{key: key, label: key.Label(), gold: map[string]string{}}
	for _, a := range answers {
		g, ok := published[a.QuestionID]
		if !ok {
			return nil, badinput.Errorf("--answer-key: question %s of the run is not in %s", a.QuestionID, m.DatasetSource)
		}
		if c, ok := cs[a.QuestionID]; ok {
			if c.Excluded {
				continue
			}
			g = c.Gold
		}
		u.gold[a.QuestionID] = g
	}
	return u, nil
}

// keyedJudge logs a judge's verdicts under the key's judge name.
type keyedJudge struct {
	inner judge.Judge
	name  string
}

func (k keyedJudge) Name() string { return k.name }

func (k keyedJudge) Judge(ctx context.Context, s judge.Sample) (judge.Verdict, error) {
	return k.inner.Judge(ctx, s)
}

func (k keyedJudge) Describe() membench.JudgeInfo {
	in := judge.Describe(k.inner)
	in.Name = k.name
	return in
}

func (u *underKey) wrap(js []judge.Judge) []judge.Judge {
	if u == nil {
		return js
	}
	out := make([]judge.Judge, len(js))
	for i, j := range js {
		out[i] = keyedJudge{inner: j, name: membench.KeyedJudge(j.Name(), u.label)}
	}
	return out
}

// describe marks the manifest entries of keyed judges.
func (u *underKey) describe(in []membench.JudgeInfo) []membench.JudgeInfo {
	if u == nil {
		return in
	}
	for i := range in {
		in[i].AnswerKey, in[i].AddedBy = u.key.ID(), AddedByKey
	}
	return in
}

// question is a's question under the key; ok is false when the key
// leaves it out.
func (u *underKey) question(a runlog.AnswerRecord) (*datasets.Question, bool) {
	q := Question(a)
	if u == nil {
		return q, true
	}
	g, ok := u.gold[a.QuestionID]
	if !ok {
		return nil, false
	}
	q.Gold = g
	return q, true
}
