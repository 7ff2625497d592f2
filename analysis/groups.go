package analysis

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/runlog"
)

// Group is runs that can share one table: they were asked the same
// questions of the same dataset file, are scored by the same primary
// judge and against the same answer key. What else they differ in (k,
// system, options, models) is what their labels show; differences that
// still keep them apart (embedder, backends) are CheckComparable's.
type Group struct {
	// Name names the group in a heading: the dataset (its file's hash, or
	// the file when no hash is recorded), the question count (and the
	// question set's hash when another group has as many questions of the
	// same file), the primary judge and any answer key but LoCoMo's own.
	Name string
	// Runs are the indices of the group's runs in the list given, in its order.
	Runs []int
	// Labels name each run within the group (Labels over the group's runs).
	Labels []string

	dataset, questions, judge, key string
}

// Size is how many runs the group holds, as a heading says it.
func (g Group) Size() string {
	if len(g.Runs) == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", len(g.Runs))
}

// Groups partitions runs into groups of comparable runs (Group), the one
// partition every reader of many runs uses (the view's landing page, the
// report of a results folder). Groups with the most runs come first, then
// by name.
func Groups(ms []runlog.Manifest, ids []string) []Group {
	var out []*Group
	by := map[string]*Group{}
	for i := range ms {
		m := &ms[i]
		g := Group{dataset: facetOf("dataset", m), questions: fmt.Sprintf("%d %s", m.Questions, m.QuestionSetSHA256), judge: m.PrimaryJudge(), key: datasets.KeyID(m.Dataset, m.AppliedKey())}
		k := strings.Join([]string{g.dataset, g.questions, g.judge, g.key}, "\x00")
		if by[k] == nil {
			by[k] = &g
			out = append(out, &g)
		}
		by[k].Runs = append(by[k].Runs, i)
	}
	res := make([]Group, len(out))
	for n, g := range out {
		var gm []runlog.Manifest
		var gid []string
		for _, i := range g.Runs {
			gm, gid = append(gm, ms[i]), append(gid, ids[i])
		}
		g.Labels = Labels(gm, gid)
		g.Name = groupName(ms[g.Runs[0]], out, g)
		res[n] = *g
	}
	slices.SortStableFunc(res, func(a, b Group) int {
		return cmp.Or(cmp.Compare(len(b.Runs), len(a.Runs)), strings.Compare(a.Name, b.Name))
	})
	return res
}

// groupName names g, whose first run's manifest is m, among all groups.
func groupName(m runlog.Manifest, all []*Group, g *Group) string {
	ds := m.Dataset
	switch {
	case ds == "":
		ds = "dataset not recorded"
	case m.DatasetSHA256 != "":
		ds += " " + prefix(m.DatasetSHA256, 8)
	case filepath.Ext(m.DatasetSource) != "":
		ds += " (" + filepath.Base(m.DatasetSource) + ", not hashed)"
	default:
		ds += " (file not hashed)"
	}
	q := fmt.Sprintf("%d questions", m.Questions)
	keys := map[string]bool{}
	sameCount := false
	for _, o := range all {
		if o.dataset != g.dataset {
			continue
		}
		keys[o.key] = true
		sameCount = sameCount || (o.questions != g.questions && strings.Fields(o.questions)[0] == fmt.Sprint(m.Questions))
	}
	if sameCount && m.QuestionSetSHA256 != "" {
		q += " (set " + prefix(m.QuestionSetSHA256, 8) + ")"
	}
	parts := []string{ds, q}
	if g.judge != "" {
		parts = append(parts, "judge "+g.judge)
	}
	if g.key != "" && (g.key != "published" || len(keys) > 1) {
		parts = append(parts, "answer key "+g.key)
	}
	return strings.Join(parts, " · ")
}

// facetOf is the value of the comparability facet named name.
func facetOf(name string, m *runlog.Manifest) string {
	for _, f := range facets {
		if f.name == name {
			return f.of(m, nil)
		}
	}
	panic("no comparability facet " + name)
}

// GroupRuns is Groups over loaded runs.
func GroupRuns(runs []*runlog.Run) []Group { return Groups(manifestsOf(runs)) }

// manifestsOf are the runs' manifests and ids, as Groups and Labels take them.
func manifestsOf(runs []*runlog.Run) (ms []runlog.Manifest, ids []string) {
	for _, r := range runs {
		ms, ids = append(ms, r.Manifest), append(ids, r.ID())
	}
	return ms, ids
}
