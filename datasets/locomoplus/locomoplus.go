// Package locomoplus registers "locomo-plus", the Cognitive items of
// LoCoMo-Plus stitched into LoCoMo conversations as the authors build them.
//
// Each item (a cue dialogue, a trigger message, a time gap) becomes one
// conversation: a seeded choice of LoCoMo conversation, its speakers A/B
// mapped to that conversation's two speakers, the cue dialogue inserted as
// a new session at query time − gap (after the last session at or before
// it), and the trigger asked at query time (the last session + 7 days).
// The question has no reference answer: its evidence is the cue turns and
// its group's judge prompt is "cognitive" (correct, partial or wrong).
// The seed and a hash of the choices are written into the dataset's
// source, which the run's manifest records.
package locomoplus

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/badinput"
)

// Name is the dataset's --dataset name.
const Name = "locomo-plus"

// DefaultSeed is used when LoadOptions.Seed is 0.
const DefaultSeed = 1

// QueryDelay is how long after the last session the trigger is asked.
const QueryDelay = 7 * 24 * time.Hour

// CueSession is the id of the inserted cue session; its turns are "C:0", "C:1"...
const CueSession = "plus_cue"

// Groups has the one Cognitive group, judged with the cognitive prompt.
var Groups = []datasets.GroupSpec{{Name: "cognitive", JudgePrompt: "cognitive"}}

// File is what `membench datasets add locomo-plus FILE` installs: the
// published locomo_plus.json, pinned by its sha256 and size. It has no
// download URL membench can rely on, so a user adds a copy.
var File = datasets.Entry{
	Name: Name, File: "locomo_plus.json",
	SHA256: "af2fc6e5e0e88735e28d8dd1ef474b718861a73beb21779809e3b9e1a4fe3d23",
	Size:   305737,
	Note:   "LoCoMo-Plus, 401 Cognitive items stitched into the installed LoCoMo; add a local copy",
}

func init() {
	datasets.Register(datasets.Spec{Name: Name, Load: Load, Groups: Groups, Fetch: []datasets.Entry{File}, DefaultFile: Name, Base: locomo.Name})
}

// Item is one record of locomo_plus.json (the fields the loader uses).
type Item struct {
	RelationType string `json:"relation_type"`
	CueDialogue  string `json:"cue_dialogue"`
	TriggerQuery string `json:"trigger_query"`
	TimeGap      string `json:"time_gap"`
}

// Load reads locomo_plus.json from path and its base conversations from
// opt.BaseData, else the installed locomo file.
func Load(path string, opt datasets.LoadOptions) (*datasets.Dataset, error) {
	b, err := datasets.ReadFile(path, opt.MaxBytes, "pass locomo_plus.json with --data")
	if err != nil {
		return nil, err
	}
	base := opt.BaseData
	if base == "" {
		base = datasets.DefaultPath(opt.Home, locomo.Name)
		if _, err := os.Stat(base); err != nil {
			return nil, badinput.Errorf("locomo-plus stitches its items into LoCoMo conversations, and no LoCoMo file is installed at %s; run `membench datasets add locomo FILE` (or `datasets fetch locomo`), or pass --base-data FILE", base)
		}
	}
	bds, err := datasets.Load(locomo.Name, base, datasets.LoadOptions{TurnStep: opt.TurnStep, MaxBytes: opt.MaxBytes})
	if err != nil {
		return nil, badinput.Errorf("--base-data: %v", err)
	}
	var items []Item
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&items); err != nil {
		return nil, badinput.Errorf("%s: %v; pass LoCoMo-Plus's locomo_plus.json (a JSON list of items)", path, err)
	}
	return Stitch(items, bds, cmp.Or(opt.Seed, DefaultSeed), opt.TurnStep, path)
}

// Choose returns, for each of n items, the index of its base conversation
// among nbase: one stream seeded by seed, drawn in item order, so a seed
// gives the same choices on every machine.
func Choose(n, nbase, seed int) []int {
	r := rand.New(rand.NewPCG(uint64(seed), 0x6c6f636f6d6f2b))
	out := make([]int, n)
	for i := range out {
		out[i] = r.IntN(nbase)
	}
	return out
}

// Stitch builds one conversation per item from the base dataset; source
// names the items' file in the dataset's source string.
func Stitch(items []Item, base *datasets.Dataset, seed int, step time.Duration, source string) (*datasets.Dataset, error) {
	if step <= 0 {
		step = datasets.DefaultTurnStep
	}
	if len(items) == 0 {
		return nil, badinput.Errorf("%s: no items; pass LoCoMo-Plus's locomo_plus.json", source)
	}
	if len(base.Conversations) == 0 {
		return nil, badinput.Errorf("%s: no base conversations", base.Source)
	}
	choice := Choose(len(items), len(base.Conversations), seed)
	h := sha256.New()
	ds := &datasets.Dataset{Name: Name, Groups: Groups}
	for i, it := range items {
		bc := base.Conversations[choice[i]]
		fmt.Fprintf(h, "%d:%s\n", i, bc.ID)
		c, err := stitchOne(i, it, bc, step)
		if err != nil {
			return nil, badinput.Errorf("%s: item %d: %v", source, i, err)
		}
		ds.Conversations = append(ds.Conversations, c)
	}
	choices := hex.EncodeToString(h.Sum(nil))
	ds.Source = fmt.Sprintf("%s (base %s, seed %d, choices sha256 %.16s)", source, base.Source, seed, choices)
	// The content hash covers both files, the seed and the choices, so runs
	// of other seeds or other bases get other run ids.
	itemsJSON, _ := json.Marshal(items)
	all := sha256.Sum256([]byte(fmt.Sprintf("%x|%s|%d|%s", sha256.Sum256(itemsJSON), base.SHA256, seed, choices)))
	ds.SHA256 = hex.EncodeToString(all[:])
	return ds, nil
}

// stitchOne builds item i's conversation on base conversation bc.
func stitchOne(i int, it Item, bc *datasets.Conversation, step time.Duration) (*datasets.Conversation, error) {
	if len(bc.Speakers) < 2 {
		return nil, fmt.Errorf("base conversation %s has %d speakers; LoCoMo-Plus needs two", bc.ID, len(bc.Speakers))
	}
	days, err := ParseGap(it.TimeGap)
	if err != nil {
		return nil, fmt.Errorf("time_gap: %v", err)
	}
	var last time.Time
	for _, s := range bc.Sessions {
		if s.Time.After(last) {
			last = s.Time
		}
	}
	if last.IsZero() {
		return nil, fmt.Errorf("base conversation %s has no dated session", bc.ID)
	}
	query := last.Add(QueryDelay)
	cueAt := query.AddDate(0, 0, -days)
	cue, err := lines(it.CueDialogue, bc.Speakers, "cue_dialogue")
	if err != nil {
		return nil, err
	}
	trig, err := lines(it.TriggerQuery, bc.Speakers, "trigger_query")
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("lp%03d-%s", i, bc.ID)
	sess := &datasets.Session{ID: CueSession, Time: cueAt, RawTime: cueAt.Format("3:04 pm on 2 January, 2006")}
	var evidence []string
	for j, l := range cue {
		tid := fmt.Sprintf("C:%d", j)
		sess.Turns = append(sess.Turns, &datasets.Turn{ID: tid, Speaker: l.speaker, Text: l.text, Time: cueAt.Add(time.Duration(j) * step)})
		evidence = append(evidence, tid)
	}
	// After the last session at or before the cue time; sessions are in
	// time order in LoCoMo, but sort a copy so an undated one cannot
	// split the history.
	sessions := slices.Clone(bc.Sessions)
	slices.SortStableFunc(sessions, func(a, b *datasets.Session) int { return a.Time.Compare(b.Time) })
	at := sort.Search(len(sessions), func(k int) bool { return sessions[k].Time.After(cueAt) })
	sessions = slices.Insert(sessions, at, sess)
	var text []string
	for _, l := range trig {
		text = append(text, l.speaker+": "+l.text)
	}
	q := &datasets.Question{
		ID: id + ":0", ConversationID: id, Text: strings.Join(text, "\n"),
		Type: it.RelationType, Group: Groups[0].Name, Evidence: evidence, AskedAt: query,
	}
	return &datasets.Conversation{ID: id, Speakers: bc.Speakers[:2], Sessions: sessions, Questions: []*datasets.Question{q}}, nil
}

type line struct{ speaker, text string }

// lines reads "A: …"/"B: …" lines, naming A and B by the base speakers.
func lines(s string, speakers []string, field string) ([]line, error) {
	var out []line
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		who, text, ok := strings.Cut(l, ":")
		var sp string
		switch strings.TrimSpace(who) {
		case "A":
			sp = speakers[0]
		case "B":
			sp = speakers[1]
		default:
			ok = false
		}
		if !ok {
			return nil, fmt.Errorf(`%s: line %q does not start with "A:" or "B:"`, field, l)
		}
		out = append(out, line{sp, strings.TrimSpace(text)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s is empty", field)
	}
	return out, nil
}
