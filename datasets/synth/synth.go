// Package synth writes synthetic files for scale tests. They follow the real files' schemas
// (field names, nesting, date formats, id styles) so the loaders read them
// like the real thing, but every word is generated here from small word
// lists: they measure memory, speed and plumbing, never model quality, and
// their results must not be mixed with results on the real benchmarks.

package synth

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/datasets/longmemeval"
)

// Shape is the layout of one synthetic file.
type Shape struct {
	Name             string
	Dataset          string // the dataset whose schema it follows
	Sessions         int    // per question (LongMemEval) or per conversation (LoCoMo)
	Turns            int    // per session
	QuestionsPerConv int    // LoCoMo only
}

// Shapes are the shapes `membench datasets synth` knows. The
// LongMemEval ones mirror S (about 50 sessions per question) and M (500
// sessions per question); the LoCoMo one has 20 questions per conversation.
var Shapes = []Shape{
	{Name: "longmemeval-s", Dataset: longmemeval.Name, Sessions: 50, Turns: 10},
	{Name: "longmemeval-m", Dataset: longmemeval.Name, Sessions: 500, Turns: 10},
	{Name: "locomo", Dataset: locomo.Name, Sessions: 20, Turns: 16, QuestionsPerConv: 20},
}

// Lookup finds a shape by name.
func Lookup(name string) (Shape, bool) {
	if i := slices.IndexFunc(Shapes, func(s Shape) bool { return s.Name == name }); i >= 0 {
		return Shapes[i], true
	}
	return Shape{}, false
}

// Names lists the shape names.
func Names() []string {
	var out []string
	for _, s := range Shapes {
		out = append(out, s.Name)
	}
	return out
}

// MaxQuestions bounds Synth's n: a scale test's file, not a disk filler.
const MaxQuestions = 100000

// Write writes a synthetic file of the shape with n questions, streaming
// item by item so a large M-shaped file needs little memory. The same
// shape, n and seed give the same bytes.
func Write(w io.Writer, shape Shape, n int, seed uint64) error {
	if n <= 0 || n > MaxQuestions {
		return fmt.Errorf("--questions %d: give 1 to %d questions", n, MaxQuestions)
	}
	h := fnv.New64a()
	h.Write([]byte(shape.Name))
	g := &synthGen{r: rand.New(rand.NewPCG(seed, h.Sum64()))}
	bw := bufio.NewWriterSize(w, 1<<20)
	var err error
	if shape.Dataset == locomo.Name {
		err = g.locomo(bw, shape, n)
	} else {
		err = g.longmemeval(bw, shape, n)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

type synthGen struct{ r *rand.Rand }

var (
	synthNames    = []string{"Avery", "Brook", "Casey", "Dana", "Emery", "Finley", "Harper", "Jordan", "Kendall", "Logan", "Morgan", "Parker", "Quinn", "Reese", "Rowan", "Sawyer"}
	synthSubjects = []string{"the garden", "my bike", "the new job", "a pottery class", "the trip north", "our book club", "the kitchen", "a chess opening", "the old car", "my sister's wedding", "the marathon plan", "a bread recipe", "the band practice", "the tax forms", "a birdwatching walk", "the piano lessons"}
	synthVerbs    = []string{"keeps changing", "took longer than planned", "went better than expected", "needs another look", "reminded me of last year", "is finally sorted", "feels a bit much", "surprised everyone", "made me laugh", "costs more than I hoped"}
	synthFillers  = []string{"Honestly,", "Anyway,", "To be fair,", "Funny thing is,", "As it happens,", "In any case,", "Looking back,", "Still,"}
	synthAdvice   = []string{"it can help to write a short list first", "breaking the work into smaller steps usually pays off", "a fixed weekly slot makes habits stick", "asking a friend for a second opinion is often worth it", "keeping notes makes the next attempt easier", "a quick check of the basics solves most problems", "it is fine to slow down when things pile up"}
	synthAttrs    = []string{"dog", "cat", "car", "boat", "bakery", "gym", "dentist", "neighbour", "houseplant", "bicycle", "guitar", "podcast", "hiking trail", "coffee shop", "board game", "favourite tea"}
	synthValues   = []string{"Biscuit", "Marlowe", "Juniper", "Pixel", "Saffron", "Tundra", "Clover", "Nimbus", "Ember", "Pebble", "Quill", "Harbor", "Sequoia", "Thimble", "Velvet", "Wren", "Zephyr", "Orchid", "Maple", "Cobalt"}
	synthLMETypes = []string{"single-session-user", "single-session-assistant", "single-session-preference", "multi-session", "knowledge-update", "temporal-reasoning"}
)

func (g *synthGen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

// chatter is a filler sentence of the conversation.
func (g *synthGen) chatter() string {
	return fmt.Sprintf("%s %s %s.", g.pick(synthFillers), g.pick(synthSubjects), g.pick(synthVerbs))
}

func (g *synthGen) userTurn() string {
	n := 2 + g.r.IntN(5)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = g.chatter()
	}
	return strings.Join(parts, " ")
}

// assistantTurn is longer, as LongMemEval's assistant turns are (the M file averages about 1 KB per turn).
func (g *synthGen) assistantTurn() string {
	n := 16 + g.r.IntN(21)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = "In general, " + g.pick(synthAdvice) + "."
	}
	return strings.Join(parts, " ")
}

type synthTurn struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	HasAnswer bool   `json:"has_answer,omitempty"`
}

type synthLME struct {
	QuestionID    string        `json:"question_id"`
	QuestionType  string        `json:"question_type"`
	Question      string        `json:"question"`
	Answer        string        `json:"answer"`
	QuestionDate  string        `json:"question_date"`
	SessionIDs    []string      `json:"haystack_session_ids"`
	Dates         []string      `json:"haystack_dates"`
	Sessions      [][]synthTurn `json:"haystack_sessions"`
	AnswerSession []string      `json:"answer_session_ids"`
}

func lmeDate(t time.Time) string { return t.Format("2006/01/02 (Mon) 15:04") }

func (g *synthGen) longmemeval(w *bufio.Writer, shape Shape, n int) error {
	w.WriteString("[")
	base := time.Date(2023, 1, 2, 9, 0, 0, 0, time.UTC)
	for qi := 0; qi < n; qi++ {
		typ := synthLMETypes[qi%len(synthLMETypes)]
		abstain := qi%10 == 9
		attr := synthAttrs[qi%len(synthAttrs)]
		val := g.pick(synthValues)
		it := synthLME{QuestionID: fmt.Sprintf("synth%06x", uint32(g.r.Uint64())), QuestionType: typ}
		if abstain {
			it.QuestionID += "_abs"
		}
		// Evidence sits in one session (two for knowledge-update: an old
		// value, then the current one).
		ev := []int{g.r.IntN(shape.Sessions)}
		old := ""
		if typ == "knowledge-update" && shape.Sessions > 1 {
			a, b := g.r.IntN(shape.Sessions), g.r.IntN(shape.Sessions)
			for a == b {
				b = g.r.IntN(shape.Sessions)
			}
			ev = []int{min(a, b), max(a, b)}
			for old = g.pick(synthValues); old == val; old = g.pick(synthValues) {
			}
		}
		t := base.Add(time.Duration(g.r.IntN(200)) * 24 * time.Hour)
		for si := 0; si < shape.Sessions; si++ {
			t = t.Add(time.Duration(6+g.r.IntN(60)) * time.Hour)
			id := fmt.Sprintf("synth_%08x_%d", uint32(g.r.Uint64()), si)
			evAt := -1
			for k, e := range ev {
				if e == si {
					evAt = k
				}
			}
			if evAt >= 0 && !abstain {
				id = fmt.Sprintf("answer_%s_%d", it.QuestionID, evAt+1)
				it.AnswerSession = append(it.AnswerSession, id)
			}
			turns := make([]synthTurn, shape.Turns)
			for j := range turns {
				if j%2 == 0 {
					turns[j] = synthTurn{Role: "user", Content: g.userTurn()}
				} else {
					turns[j] = synthTurn{Role: "assistant", Content: g.assistantTurn()}
				}
			}
			if evAt >= 0 && !abstain {
				v := val
				if len(ev) == 2 && evAt == 0 {
					v = old
				}
				turns[0] = synthTurn{Role: "user", Content: fmt.Sprintf("%s By the way, my %s is called %s now.", g.chatter(), attr, v), HasAnswer: true}
			}
			it.SessionIDs = append(it.SessionIDs, id)
			it.Dates = append(it.Dates, lmeDate(t))
			it.Sessions = append(it.Sessions, turns)
		}
		it.QuestionDate = lmeDate(t.Add(48 * time.Hour))
		it.Question = fmt.Sprintf("What is my %s called?", attr)
		it.Answer = val
		if abstain {
			it.Answer = fmt.Sprintf("You did not mention the name of your %s.", attr)
		}
		if it.AnswerSession == nil {
			it.AnswerSession = []string{}
		}
		if err := writeItem(w, qi, it); err != nil {
			return err
		}
	}
	_, err := w.WriteString("]\n")
	return err
}

// writeItem writes v as element i of the JSON list being written.
func writeItem(w *bufio.Writer, i int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if i > 0 {
		w.WriteString(",\n")
	}
	_, err = w.Write(b)
	return err
}

type synthLoCoMoTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
}

type synthQA struct {
	Question    string   `json:"question"`
	Answer      any      `json:"answer,omitempty"`
	Adversarial string   `json:"adversarial_answer,omitempty"`
	Evidence    []string `json:"evidence"`
	Category    int      `json:"category"`
}

func locomoDate(t time.Time) string {
	return strings.ToLower(t.Format("3:04 pm")) + " on " + t.Format("2 January, 2006")
}

func (g *synthGen) locomo(w *bufio.Writer, shape Shape, n int) error {
	w.WriteString("[")
	convs := (n + shape.QuestionsPerConv - 1) / shape.QuestionsPerConv
	left := n
	for ci := 0; ci < convs; ci++ {
		a := g.pick(synthNames)
		b := g.pick(synthNames)
		for b == a {
			b = g.pick(synthNames)
		}
		conv := map[string]any{"speaker_a": a, "speaker_b": b}
		nq := min(left, shape.QuestionsPerConv)
		left -= nq
		// One fact per question, placed at a random turn.
		type fact struct {
			sess, turn int
			attr, val  string
		}
		facts := make([]fact, nq)
		at := map[[2]int]int{}
		for k := range facts {
			f := fact{sess: g.r.IntN(shape.Sessions), turn: g.r.IntN(shape.Turns), attr: g.pick(synthAttrs), val: g.pick(synthValues)}
			for _, dup := at[[2]int{f.sess, f.turn}]; dup; _, dup = at[[2]int{f.sess, f.turn}] {
				f.sess, f.turn = g.r.IntN(shape.Sessions), g.r.IntN(shape.Turns)
			}
			at[[2]int{f.sess, f.turn}] = k
			facts[k] = f
		}
		t := time.Date(2023, 3, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(g.r.IntN(90)) * 24 * time.Hour)
		for si := 0; si < shape.Sessions; si++ {
			t = t.Add(time.Duration(2+g.r.IntN(10))*24*time.Hour + time.Duration(g.r.IntN(600))*time.Minute)
			turns := make([]synthLoCoMoTurn, shape.Turns)
			for j := range turns {
				sp := a
				if j%2 == 1 {
					sp = b
				}
				text := g.userTurn()
				if k, ok := at[[2]int{si, j}]; ok {
					text = fmt.Sprintf("%s Oh, and my %s is called %s.", g.chatter(), facts[k].attr, facts[k].val)
				}
				turns[j] = synthLoCoMoTurn{Speaker: sp, DiaID: fmt.Sprintf("D%d:%d", si+1, j+1), Text: text}
			}
			conv[fmt.Sprintf("session_%d", si+1)] = turns
			conv[fmt.Sprintf("session_%d_date_time", si+1)] = locomoDate(t)
		}
		qa := make([]synthQA, nq)
		for k, f := range facts {
			sp := a
			if f.turn%2 == 1 {
				sp = b
			}
			ev := []string{fmt.Sprintf("D%d:%d", f.sess+1, f.turn+1)}
			cat := []int{locomo.CatSingleHop, locomo.CatMultiHop, locomo.CatTemporal, locomo.CatOpenDomain, locomo.CatAdversarial}[k%5]
			q := synthQA{Question: fmt.Sprintf("What is %s's %s called?", sp, f.attr), Answer: f.val, Evidence: ev, Category: cat}
			if cat == locomo.CatAdversarial {
				other := a
				if sp == a {
					other = b
				}
				q = synthQA{Question: fmt.Sprintf("What is %s's %s called?", other, f.attr), Adversarial: f.val, Evidence: ev, Category: cat}
			}
			qa[k] = q
		}
		if err := writeItem(w, ci, map[string]any{"sample_id": fmt.Sprintf("synth-%d", ci+1), "conversation": conv, "qa": qa}); err != nil {
			return err
		}
	}
	_, err := w.WriteString("]\n")
	return err
}
