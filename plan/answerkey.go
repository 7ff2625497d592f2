package plan

import (
	"slices"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/answerkey"
	"github.com/membench/membench/datasets/imagemarks"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/runlog"
)

// Scoring is what a run's answer key and image exclusion did to its
// questions, for the manifest.
type Scoring struct {
	Key           *runlog.AnswerKeyInfo // nil: the dataset's own key
	ImageExcluded int
	// Dropped are the ids of questions left out (ambiguous under the key,
	// image-dependent), so a predictions file that answers them is not
	// refused.
	Dropped map[string]bool
	// changes is what the key did, by question id (answer, evidence,
	// excluded), so a scoring of part of the set counts its own.
	changes map[string]string
	images  map[string]bool // image-dependent questions dropped
}

// Within is sc with the key's counts limited to the questions in ids.
func (sc Scoring) Within(ids map[string]bool) Scoring {
	var k runlog.AnswerKeyInfo
	if sc.Key != nil {
		k = *sc.Key
	}
	k.AnswerChanged, k.EvidenceChanged, k.Excluded = 0, 0, 0
	sc.ImageExcluded = 0
	for id, what := range sc.changes {
		if !ids[id] {
			continue
		}
		switch what {
		case "answer":
			k.AnswerChanged++
		case "evidence":
			k.EvidenceChanged++
		case "excluded":
			k.Excluded++
		}
	}
	for id := range sc.images {
		if ids[id] {
			sc.ImageExcluded++
		}
	}
	if sc.Key != nil {
		sc.Key = &k
	}
	return sc
}

// ApplyScoring rewrites ds under the answer key keyChoice ("" or
// published: none; audited; a file) and drops image-dependent questions
// when excludeImages, returning the key's sha256 ("" without a key) and
// what changed. ds may be a part of the dataset (--conversations,
// --limit): the key is matched on the whole file, read again with opt.
func ApplyScoring(ds *datasets.Dataset, keyChoice string, excludeImages bool, opt datasets.LoadOptions) (string, Scoring, error) {
	sc := Scoring{Dropped: map[string]bool{}, changes: map[string]string{}, images: map[string]bool{}}
	key, err := answerkey.Open(keyChoice, opt.Home)
	if err != nil {
		return "", sc, err
	}
	if (key != nil || excludeImages) && !datasets.HasAnswerKeys(ds.Name) {
		return "", sc, badinput.Errorf("--answer-key and --exclude-image-questions are for --dataset %s (this run's is %s)", datasets.KeyedNames(), ds.Name)
	}
	before := ds.Questions()
	sum := ""
	if key != nil {
		full := ds
		opt.Conversations, opt.Limit, opt.Lazy = nil, 0, true
		if full, err = datasets.Load(ds.Name, ds.Source, opt); err != nil {
			return "", sc, badinput.Wrap(err)
		}
		cs, err := key.Match(full)
		if err != nil {
			return "", sc, err
		}
		for _, q := range ds.Questions() {
			if c, ok := cs[q.ID]; ok {
				switch {
				case c.Excluded:
					sc.changes[q.ID] = "excluded"
				case c.ErrorType == answerkey.WrongCitation:
					sc.changes[q.ID] = "evidence"
				default:
					sc.changes[q.ID] = "answer"
				}
			}
		}
		a := cs.Apply(ds)
		sc.Key = &runlog.AnswerKeyInfo{Key: key.ID(), AnswerChanged: a.AnswerChanged, EvidenceChanged: a.EvidenceChanged, Excluded: a.Excluded}
		sum = key.SHA256
	}
	if excludeImages {
		marks, err := imagemarks.Read(ds.Source)
		if err != nil {
			return "", sc, err
		}
		dep := marks.Dependent()
		for _, c := range ds.Conversations {
			// A clone: a filtered dataset shares its question lists.
			c.Questions = slices.DeleteFunc(slices.Clone(c.Questions), func(q *datasets.Question) bool {
				if dep[q.ID] {
					sc.ImageExcluded++
					sc.images[q.ID] = true
				}
				return dep[q.ID]
			})
		}
	}
	after := map[string]bool{}
	for _, q := range ds.Questions() {
		after[q.ID] = true
	}
	for _, q := range before {
		if !after[q.ID] {
			sc.Dropped[q.ID] = true
		}
	}
	return sum, sc, nil
}
