package analysis

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/membench/membench/internal/redact"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/systems"
)

// attr is one thing a run was made with, as a label shows it.
type attr struct {
	key, val string
	// cfg marks a config setting, absent when at its default: a run
	// without it differs from one that has it.
	cfg bool
}

// attrs lists what a run was made with that can change its numbers: the
// resolved system options, models, embedder, judges, dataset and question
// set, prompts, and any other recorded setting (an answer key, a seed).
func attrs(m runlog.Manifest) []attr {
	var out []attr
	add := func(k, v string) { out = append(out, attr{key: k, val: v}) }
	if k, _, ok := ResolveK(m); ok {
		add("k", fmt.Sprint(k))
	}
	opts := map[string]string{}
	maps.Copy(opts, m.Config.Options)
	maps.Copy(opts, m.SystemOptions)
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if k != "k" {
			add(k, opts[k])
		}
	}
	for _, role := range slices.Sorted(maps.Keys(m.Models)) {
		add(role, m.Models[role].Backend+":"+m.Models[role].Model)
	}
	add("embedder", m.Embedder)
	add("judges", strings.Join(m.Judges, ","))
	add("dataset", m.Dataset+" "+prefix(m.DatasetSHA256, 8))
	add("questions", fmt.Sprintf("%d %s", m.Questions, prefix(m.QuestionSetSHA256, 8)))
	add("turn step", m.TurnStep)
	// The answer and judge prompts change every system's numbers; the
	// manifest hashes every prompt the binary holds, most of them unused
	// by a given system, so the others would only add noise.
	for _, p := range slices.Sorted(maps.Keys(m.Prompts)) {
		if p == "answer" || strings.HasPrefix(p, "judge") {
			add(p+" prompt", prefix(m.Prompts[p], 8))
		}
	}
	// Settings recorded in the config that the fields above do not cover
	// (an answer key, a seed, a shard, a question limit): shown as the
	// config names them, so a new setting tells runs apart without a
	// change here.
	covered := map[string]bool{"system": true, "options": true, "k": true, "dataset": true, "data": true, "data_sha256": true,
		"model": true, "build_model": true, "answer_model": true, "decide_model": true, "judge_model": true,
		"judges": true, "embedder": true, "turn_step": true}
	var cfg map[string]json.RawMessage
	if b, err := json.Marshal(m.Config); err == nil && json.Unmarshal(b, &cfg) == nil {
		for _, k := range slices.Sorted(maps.Keys(cfg)) {
			if !covered[k] {
				out = append(out, attr{k, redact.Text(strings.Trim(string(cfg[k]), `"`)), true})
			}
		}
	}
	return out
}

func prefix(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Labels names each run by its system (its id when the manifest names
// none) and what sets it apart from the others given: the k it retrieved
// with, and every setting whose value differs from another run's that has
// it too (a system option only among runs of that system, since options
// are the system's own). Runs that differ in nothing recorded get their
// id's tail. Given one group of comparable runs (Groups), the labels are
// short: the dataset, questions and judge they share are left out.
func Labels(ms []runlog.Manifest, ids []string) []string {
	all := make([]map[string]string, len(ms))
	opt := make([]map[string]bool, len(ms))
	at := make([][]attr, len(ms))
	for i, m := range ms {
		all[i], opt[i], at[i] = map[string]string{}, map[string]bool{}, attrs(m)
		for _, a := range at[i] {
			all[i][a.key] = a.val
		}
		for k := range m.Config.Options {
			opt[i][k] = true
		}
		for k := range m.SystemOptions {
			opt[i][k] = true
		}
	}
	out := make([]string, len(ms))
	count := map[string]int{}
	for i, m := range ms {
		name := m.Config.System
		if name == "" {
			name = ids[i]
		}
		parts := []string{name}
		for _, a := range at[i] {
			if a.val == "" {
				continue
			}
			show := a.key == "k"
			for j := range ms {
				if show {
					break
				}
				if j == i || (opt[i][a.key] && ms[j].Config.System != m.Config.System) {
					continue
				}
				if v, has := all[j][a.key]; (has || a.cfg) && (v != "" || a.cfg) && v != a.val {
					show = true
				}
			}
			// An option given away from its system's default is a
			// sensitivity row: it says so even beside runs that left the
			// option unrecorded.
			show = show || (opt[i][a.key] && offDefault(m.Config.System, a.key, a.val))
			if show {
				parts = append(parts, a.key+"="+a.val)
			}
		}
		out[i] = strings.Join(parts, " ")
		count[out[i]]++
	}
	for i := range out {
		if count[out[i]] > 1 {
			id := ids[i]
			out[i] += " #" + id[strings.LastIndex(id, "-")+1:]
		}
	}
	return out
}

// offDefault says whether option k=v of a system differs from the
// system's default; options that point outside membench (a command, a
// URL) say nothing about the method and never count.
func offDefault(system, k, v string) bool {
	spec, err := systems.Lookup(system)
	if err != nil || slices.Contains(spec.Outside, k) {
		return false
	}
	d, ok := spec.Defaults[k]
	return ok && d != v
}
