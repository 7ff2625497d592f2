package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/answerkey"
	"github.com/membench/membench/datasets/imagemarks"
	"github.com/membench/membench/datasets/locomo"
	tables "github.com/membench/membench/internal/report"
	"github.com/membench/membench/runlog"
)

// keyView is what --answer-key, --by-image and --exclude-image-questions
// ask of the report.
type keyView struct {
	labels []string         // key labels, in the order given
	keys   []*answerkey.Key // nil for published
	dep    map[string]bool  // image-dependent question ids (by-image, exclude)
}

// wanted reports whether any of the options was given.
func (o *Options) keysWanted() bool {
	return o.AnswerKeys != "" || o.ByImage || o.ExcludeImages
}

// openKeys reads the keys and, when asked, the image marks of the runs'
// LoCoMo file (the first run's, which the comparability check makes every
// run's).
func openKeys(o *Options, runs []*runlog.Run) (*keyView, error) {
	kv := &keyView{}
	for _, c := range strings.Split(o.AnswerKeys, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		k, err := answerkey.Open(c, o.Home)
		if err != nil {
			return nil, clierr.AsBad(err)
		}
		kv.labels, kv.keys = append(kv.labels, k.Label()), append(kv.keys, k)
	}
	if o.ByImage || o.ExcludeImages {
		m := runs[0].Manifest
		if !datasets.HasAnswerKeys(m.Dataset) {
			return nil, clierr.Bad("--by-image and --exclude-image-questions are for runs on %s; %s is on %s", datasets.KeyedNames(), runs[0].Dir, m.Dataset)
		}
		marks, err := imagemarks.Read(m.DatasetSource)
		if err != nil {
			return nil, clierr.Bad("--by-image: the runs' dataset file %s: %v; the marks are computed from it", m.DatasetSource, err)
		}
		kv.dep = marks.Dependent()
	}
	return kv, nil
}

// writeKeys prints the key table (and the image table), then the
// published key's ceilings under each other key given.
func writeKeys(out io.Writer, o *Options, kv *keyView, runs []*runlog.Run, judgeName string, view analysis.View) error {
	var skip map[string]bool
	if o.ExcludeImages {
		skip = kv.dep
	}
	var ts []*tables.Table
	t, err := analysis.KeyTable(runs, judgeName, kv.labels, skip, "image-dependent, --exclude-image-questions", view)
	if err != nil {
		return clierr.AsBad(err)
	}
	ts = append(ts, t)
	if o.ByImage {
		it, err := analysis.ImageTable(runs, judgeName, kv.dep, view)
		if err != nil {
			return err
		}
		ts = append(ts, it)
	}
	for i, t := range ts {
		if i > 0 {
			fmt.Fprintln(out)
		}
		if err := t.Write(out, o.Format); err != nil {
			return err
		}
	}
	for _, k := range kv.keys {
		if k == nil {
			continue
		}
		line, err := ceilingLine(k, runs, o.Home)
		if err != nil {
			return err
		}
		fmt.Fprintln(out, line)
	}
	return nil
}

// ceilingLine is the published key's ceiling by key k over the questions
// the runs answered, per category and overall.
func ceilingLine(k *answerkey.Key, runs []*runlog.Run, home string) (string, error) {
	m := runs[0].Manifest
	if !datasets.HasAnswerKeys(m.Dataset) {
		return "", clierr.Bad("--answer-key is for runs on %s; %s is on %s", datasets.KeyedNames(), runs[0].Dir, m.Dataset)
	}
	ds, err := datasets.Load(m.Dataset, m.DatasetSource, datasets.LoadOptions{Home: home, Lazy: true})
	if err != nil {
		return "", clierr.Bad("--answer-key: the runs' dataset file %s: %v; the ceiling is computed from it", m.DatasetSource, err)
	}
	cs, err := k.Match(ds)
	if err != nil {
		return "", clierr.AsBad(err)
	}
	answered := map[string]bool{}
	for _, r := range runs {
		for _, a := range r.Answers {
			answered[a.QuestionID] = true
		}
	}
	var qs []*datasets.Question
	for _, q := range ds.Questions() {
		if answered[q.ID] {
			qs = append(qs, q)
		}
	}
	var parts []string
	for _, c := range cs.Ceilings(qs) {
		name := "overall"
		if c.Category != 0 {
			name = locomo.CategoryName(c.Category)
		}
		parts = append(parts, fmt.Sprintf("%s %.2f%% (%d of %d wrong)", name, 100*c.Ceiling, c.GoldWrong, c.Questions))
	}
	return fmt.Sprintf("ceiling of the published key by the %s key (1 - share of scored questions whose published gold is wrong): %s", k.Label(), strings.Join(parts, ", ")), nil
}
