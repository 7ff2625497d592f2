package runlog

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/membench/membench/internal/badinput"
)

// Run states in Manifest.Status.
const (
	StateComplete   = "complete"
	StateIncomplete = "incomplete"
)

// Status says whether a run finished: every question answered and judged
// by every judge of the run.
type Status struct {
	State     string         `json:"state"` // complete | incomplete
	Questions int            `json:"questions"`
	Answered  int            `json:"answered"`
	Judged    map[string]int `json:"judged,omitempty"` // judge -> answered questions it judged
}

// String is "complete" or "incomplete (3/10 answered; llm judged 2)".
func (s Status) String() string {
	if s.State == StateComplete {
		return StateComplete
	}
	out := fmt.Sprintf("%s (%d/%d answered", StateIncomplete, s.Answered, s.Questions)
	for _, j := range sortedKeys(s.Judged) {
		if s.Judged[j] < s.Answered {
			out += fmt.Sprintf("; %s judged %d", j, s.Judged[j])
		}
	}
	return out + ")"
}

// Status recomputes the run's status from its records (the manifest's
// own status is only as fresh as the last write): complete when every
// question of the manifest is answered and every judge of the manifest
// judged every answer.
func (r *Run) Status() Status {
	s := computeStatus(r.Manifest, r.Answers, r.Judgments)
	if ms := r.Manifest.Status; ms != nil && ms.State == StateIncomplete && s.State == StateComplete && r.Manifest.Finished.IsZero() {
		s.State = StateIncomplete // stopped before it could say otherwise
	}
	return s
}

// StatusOf computes the status of the run in dir from its records.
func StatusOf(dir string, m Manifest) (Status, error) {
	ans, err := ReadJSONL[AnswerRecord](filepath.Join(dir, AnswersFile))
	if err != nil {
		return Status{}, err
	}
	js, err := ReadJSONL[Judgment](filepath.Join(dir, JudgmentsFile))
	if err != nil {
		return Status{}, err
	}
	return records{answers: ans, judgments: js}.status(m), nil
}

func computeStatus(m Manifest, answers []AnswerRecord, judgments []Judgment) Status {
	s := Status{Questions: m.Questions, Answered: len(answers), Judged: map[string]int{}}
	answered := map[string]bool{}
	for _, a := range answers {
		answered[a.QuestionID] = true
	}
	for _, j := range judgments {
		if answered[j.QuestionID] {
			s.Judged[j.Judge]++
		}
	}
	if s.Questions == 0 {
		s.Questions = s.Answered // manifests that do not say how many were asked
	}
	s.State = StateComplete
	if s.Questions == 0 || s.Answered < s.Questions {
		s.State = StateIncomplete
	}
	for _, j := range m.Judges {
		if m.loggedLater(j) {
			continue // human grades and imported verdicts may cover part of a run
		}
		if s.Judged[j] < s.Answered {
			s.State = StateIncomplete
			s.Judged[j] += 0 // listed with its count, even when none
		}
	}
	return s
}

// OfflineList names the parts of a run served by the offline backend's
// heuristics: model roles ("answer model") and model judges ("judge llm").
// Empty when nothing is offline.
func (m Manifest) OfflineList() []string {
	var out []string
	for _, role := range sortedKeys(m.Models) {
		if m.Models[role].Backend != "offline" {
			continue
		}
		if role == "judge" && !m.judgeModelUsed() {
			continue // no judge of this run calls the run's judge model
		}
		out = append(out, role+" model")
	}
	for _, in := range m.JudgeSpecs {
		if in.Model != nil && in.Model.Backend == "offline" && !contains(out, "judge model") {
			out = append(out, "judge "+in.Name)
		}
	}
	if len(out) == 0 && m.Offline {
		out = []string{"every model"} // old manifests: only the flag
	}
	return out
}

// judgeModelUsed: some judge of the run calls the run's judge model (a
// judge with its own model spec calls that one instead).
func (m Manifest) judgeModelUsed() bool {
	for _, in := range m.JudgeSpecs {
		if in.Model != nil && *in.Model == m.Models["judge"] {
			return true
		}
	}
	return len(m.JudgeSpecs) == 0 // old manifests: assume it was
}

// hasRealModel: some role or judge calls a real model.
func (m Manifest) hasRealModel() bool {
	for _, id := range m.Models {
		if id.Backend != "" && id.Backend != "offline" {
			return true
		}
	}
	for _, in := range m.JudgeSpecs {
		if in.Model != nil && in.Model.Backend != "offline" {
			return true
		}
	}
	return false
}

// Backends says which backends made the run: "offline", "real", or
// "mixed (offline: build model, decide model)"; "" when the manifest
// names no models (imported peers' results).
func (m Manifest) Backends() string {
	off := m.OfflineList()
	switch {
	case len(off) == 0 && !m.hasRealModel():
		return ""
	case len(off) == 0:
		return "real"
	case !m.hasRealModel():
		return "offline"
	}
	return "mixed (offline: " + strings.Join(off, ", ") + ")"
}

// OfflineNote is the line a statistic over this run carries when any of
// it comes from offline heuristics; "" when none does.
func (m Manifest) OfflineNote() string {
	off := m.OfflineList()
	if len(off) == 0 {
		return ""
	}
	return "offline heuristics (" + strings.Join(off, ", ") + "): measures the pipeline, not model quality"
}

// SyntheticNote is the line every figure computed from this run carries
// when its dataset is synthetic; "" otherwise.
func (m Manifest) SyntheticNote() string {
	if !m.Synthetic {
		return ""
	}
	return "SYNTHETIC dataset (" + m.Dataset + ", written by `membench datasets synth`): measures scale and plumbing, not a benchmark"
}

// SyntheticNotes is the SYNTHETIC line for runs of which any is on a
// synthetic dataset, naming them; "" when none is.
func SyntheticNotes(ms ...*Manifest) string {
	var names []string
	for _, m := range ms {
		if m != nil && m.Synthetic {
			names = append(names, m.RunID)
		}
	}
	if len(names) == 0 {
		return ""
	}
	list := strings.Join(names, ", ")
	if len(names) > 3 {
		list = fmt.Sprintf("%d runs, e.g. %s", len(names), strings.Join(names[:3], ", "))
	}
	return "SYNTHETIC dataset (" + list + ": written by `membench datasets synth`): measures scale and plumbing, not a benchmark"
}

// Side is one run as a comparison names it.
type Side struct {
	Label    string    // how messages name the run (its path or id)
	Manifest *Manifest // nil for a bare judgments file with no manifest
}

// Difference is one property on which runs put side by side differ.
type Difference struct {
	Field  string   `json:"field"`
	Values []string `json:"values"` // "run: value", one per run
}

func (d Difference) String() string {
	return d.Field + " differs (" + strings.Join(d.Values, "; ") + ")"
}

// facets are the properties that must match, in message order.
var facets = []struct {
	name string
	of   func(m *Manifest, judges []string) string
}{
	{"dataset", func(m *Manifest, _ []string) string {
		if m.Synthetic {
			return m.Dataset + " SYNTHETIC sha256:" + short(m.DatasetSHA256)
		}
		if m.DatasetSHA256 != "" {
			return m.Dataset + " sha256:" + short(m.DatasetSHA256)
		}
		if m.Dataset == "" {
			return ""
		}
		return m.Dataset + " " + m.DatasetSource
	}},
	{"question set", func(m *Manifest, _ []string) string {
		if m.QuestionSetSHA256 == "" {
			return "" // older manifests: not recorded
		}
		return fmt.Sprintf("%d questions sha256:%s", m.Questions, short(m.QuestionSetSHA256))
	}},
	{"answer key", func(m *Manifest, _ []string) string { return m.KeyID() }},
	{"embedder", func(m *Manifest, _ []string) string {
		if m.EmbedderSHA256 != "" {
			return m.Embedder + " sha256:" + short(m.EmbedderSHA256)
		}
		return m.Embedder
	}},
	{"answer model", func(m *Manifest, _ []string) string {
		id, ok := m.Models["answer"]
		if !ok {
			return ""
		}
		return modelString(id)
	}},
	{"build model", roleModel("build")},
	{"decide model", roleModel("decide")},
	{"answer prompt", func(m *Manifest, _ []string) string {
		if h, _, _ := strings.Cut(m.Prompts["answer"], " "); h != "" {
			return "sha256:" + short(h) // the content, not the file's path
		}
		if m.Config.AnswerPrompt != "" {
			return m.Config.AnswerPrompt // older manifests: the file's name
		}
		return ""
	}},
	{"turn step", func(m *Manifest, _ []string) string {
		if m.TurnStep != "" {
			return m.TurnStep
		}
		if m.Config.TurnStep != 0 {
			return m.Config.TurnStep.String()
		}
		return ""
	}},
	{"backends", func(m *Manifest, _ []string) string { return m.Backends() }},
	{"judge", func(m *Manifest, judges []string) string {
		var parts []string
		for _, name := range judges {
			if s := m.JudgeSpec(name); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "; ")
	}},
}

// roleModel is the facet of one model role (build, decide): a role a
// system never calls still records the run's model, so runs made with the
// same flags match.
func roleModel(role string) func(m *Manifest, _ []string) string {
	return func(m *Manifest, _ []string) string {
		id, ok := m.Models[role]
		if !ok {
			return ""
		}
		return modelString(id)
	}
}

func modelString(id ModelID) string {
	s := id.Backend + ":" + id.Model
	if id.BaseURL != "" {
		s += "@" + id.BaseURL
	}
	return s
}

// JudgeSpec is the judge's full description (kind, model, threshold,
// prompt hashes) as one comparable string; "" when the manifest has none.
func (m Manifest) JudgeSpec(name string) string {
	for _, in := range m.JudgeSpecs {
		if in.Name == name {
			return SpecString(in)
		}
	}
	return ""
}

// SpecString is a judge's description as one comparable string: what
// decides its verdicts, not its wording or who added it.
func SpecString(in JudgeInfo) string {
	in.Description, in.AddedBy = "", ""
	if len(in.Prompts) > 0 {
		// A prompt's content, not the path it was read from.
		p := map[string]string{}
		for k, v := range in.Prompts {
			p[k], _, _ = strings.Cut(v, " ")
		}
		in.Prompts = p
	}
	b, _ := json.Marshal(in)
	return string(b)
}

// JudgeNameReuse refuses to log verdicts under a judge name the run
// already holds with another spec: the two kinds of verdicts would mix
// under one name. It names both specs.
func (m Manifest) JudgeNameReuse(in JudgeInfo) error {
	old := m.JudgeSpec(in.Name)
	if old == "" || old == SpecString(in) {
		return nil
	}
	return badinput.Errorf("judge name %q is already in this run with another spec (run: %s; now: %s); give the new judge another name (name=%s-2 in its spec) or judge a copy of the run", in.Name, old, SpecString(in), in.Name)
}

// Threshold is the metric judge's threshold for its correct/wrong
// outcome as the manifest records it (0 when not recorded).
func (m Manifest) Threshold(name string) float64 {
	for _, in := range m.JudgeSpecs {
		if in.Name == name {
			return in.Threshold
		}
	}
	return 0
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Differences lists what keeps runs from being put side by side: the
// dataset or question set, the embedder, the build, decide and answer
// models, the answer prompt, the turn step, offline vs real backends, the
// spec of each judge named (pass none when the runs are compared under
// different judges on purpose), and the options of runs of one system
// beyond the one compared (DifferencesVarying). A property one run does
// not record is not held against it.
func Differences(sides []Side, judges ...string) []Difference {
	return DifferencesVarying(sides, nil, judges...)
}

// DifferencesVarying is Differences where vary names the system options
// the caller compares on purpose (k for kstar, a sweep's grid keys): runs
// of one system may differ in those and in nothing else. With vary nil,
// runs of one system may differ in one option, the one compared (compare
// A vs B, a report with a system at two budgets). Runs of different
// systems are not compared on options: the system is what differs.
func DifferencesVarying(sides []Side, vary []string, judges ...string) []Difference {
	out := facetDifferences(sides, judges)
	return append(out, optionDifferences(sides, vary)...)
}

// optionDifferences compares the system options (after the system's
// defaults, as the manifest records them) of runs of one system.
func optionDifferences(sides []Side, vary []string) []Difference {
	bySystem := map[string][]Side{}
	var systemsSeen []string
	for _, s := range sides {
		if s.Manifest == nil || s.Manifest.Config.System == "" {
			continue
		}
		sys := s.Manifest.Config.System
		if _, ok := bySystem[sys]; !ok {
			systemsSeen = append(systemsSeen, sys)
		}
		bySystem[sys] = append(bySystem[sys], s)
	}
	var out []Difference
	for _, sys := range systemsSeen {
		group := bySystem[sys]
		if len(group) < 2 {
			continue
		}
		opts := func(m *Manifest) map[string]string { return m.SystemOptions }
		for _, s := range group {
			if len(s.Manifest.SystemOptions) == 0 {
				// An older manifest without the resolved options: compare
				// what every run was given.
				opts = func(m *Manifest) map[string]string { return m.Config.Options }
			}
		}
		keys := map[string]bool{}
		for _, s := range group {
			for k := range opts(s.Manifest) {
				keys[k] = true
			}
		}
		var differ []string
		for _, k := range sortedKeys(keys) {
			if contains(vary, k) {
				continue
			}
			vals := map[string]bool{}
			for _, s := range group {
				vals[opts(s.Manifest)[k]] = true
			}
			if len(vals) > 1 {
				differ = append(differ, k)
			}
		}
		if len(differ) == 0 || (vary == nil && len(differ) == 1) {
			continue
		}
		var list []string
		for _, s := range group {
			var kv []string
			for _, k := range differ {
				kv = append(kv, k+"="+opts(s.Manifest)[k])
			}
			list = append(list, s.Label+": "+strings.Join(kv, ","))
		}
		field := sys + " options"
		if vary != nil {
			field += " other than " + strings.Join(vary, ", ")
		} else {
			field += " (runs of one system may differ in one option, the one compared)"
		}
		out = append(out, Difference{Field: field, Values: list})
	}
	return out
}

func facetDifferences(sides []Side, judges []string) []Difference {
	var out []Difference
	for _, f := range facets {
		vals := map[string]bool{}
		var list []string
		for _, s := range sides {
			if s.Manifest == nil {
				continue
			}
			v := f.of(s.Manifest, judges)
			if v == "" {
				continue
			}
			vals[v] = true
			list = append(list, s.Label+": "+v)
		}
		if len(vals) > 1 {
			out = append(out, Difference{Field: f.name, Values: list})
		}
	}
	return out
}

// MixedError refuses to put incomparable runs side by side.
type MixedError struct{ Diffs []Difference }

func (e *MixedError) Error() string {
	var parts []string
	for _, d := range e.Diffs {
		parts = append(parts, d.String())
	}
	return "runs are not comparable: " + strings.Join(parts, "; ") + "; compare runs made the same way, or pass --allow-mixed to show them side by side with a warning"
}

// BadInput marks the refusal as the user's input (exit code 2).
func (e *MixedError) BadInput() bool { return true }

// CheckComparable is the one decision every command that puts runs side
// by side takes: it returns a *MixedError naming the differences, or,
// with allowMixed, the differences as lines for the output's "mixed"
// list and warning.
func CheckComparable(sides []Side, allowMixed bool, judges ...string) ([]string, error) {
	return CheckComparableVarying(sides, allowMixed, nil, judges...)
}

// CheckComparableVarying is CheckComparable where the runs vary the
// system options in vary on purpose (DifferencesVarying).
func CheckComparableVarying(sides []Side, allowMixed bool, vary []string, judges ...string) ([]string, error) {
	diffs := DifferencesVarying(sides, vary, judges...)
	if len(diffs) == 0 {
		return nil, nil
	}
	if !allowMixed {
		return nil, &MixedError{Diffs: diffs}
	}
	var out []string
	for _, d := range diffs {
		out = append(out, d.String())
	}
	sort.Strings(out)
	return out, nil
}

// MixedWarning is the text outputs' warning line for an --allow-mixed view.
func MixedWarning(mixed []string) string {
	if len(mixed) == 0 {
		return ""
	}
	return "WARNING (--allow-mixed): these runs are not comparable: " + strings.Join(mixed, "; ")
}

// SidesOf names loaded runs for CheckComparable.
func SidesOf(runs []*Run) []Side {
	out := make([]Side, len(runs))
	for i, r := range runs {
		out[i] = Side{Label: r.ID(), Manifest: &r.Manifest}
	}
	return out
}

// EvidenceCount is one retrieval's evidence: the distinct evidence turn
// ids, and how many of them are among the candidates' and the rendered
// items' sources.
type EvidenceCount struct {
	Evidence, InCandidates, InContext int
}

// CountEvidence is the one definition of a retrieval's evidence hits,
// used by the summary's evidence recall and by diagnose: an evidence turn
// is hit when it is among the sources of an item read (or a candidate).
// Systems list as an item's sources only the turns it cites (README,
// "Evidence recall"), so a synthesis that cites whole sessions adds none.
func CountEvidence(rec RetrievalRecord) EvidenceCount {
	ev := map[string]bool{}
	for _, e := range rec.Evidence {
		if e != "" {
			ev[e] = true
		}
	}
	c := EvidenceCount{Evidence: len(ev)}
	cands, ctx := sources(rec.Candidates), sources(rec.Items)
	for e := range ev {
		if cands[e] {
			c.InCandidates++
		}
		if ctx[e] {
			c.InContext++
		}
	}
	if len(ctx) == 0 && rec.EvidenceHit > 0 {
		// Items without sources: trust the harness's own count.
		c.InContext = min(rec.EvidenceHit, c.Evidence)
	}
	return c
}

// CountsForRecall says whether a question enters evidence recall: it has
// evidence and is not an abstention question (LoCoMo category 5 and
// LongMemEval _abs, whose evidence points at a premise, not an answer),
// the same questions the overall score counts.
func CountsForRecall(a AnswerRecord, c EvidenceCount) bool {
	return c.Evidence > 0 && !a.Abstains()
}

func sources(items []ItemRef) map[string]bool {
	s := map[string]bool{}
	for _, it := range items {
		for _, src := range it.Sources {
			s[src] = true
		}
	}
	return s
}
