package answer

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/prompts"
	"github.com/membench/membench/systems"
)

func ask(t *testing.T, question string, items []membench.Item) string {
	t.Helper()
	conv := &datasets.Conversation{Speakers: []string{"Ana", "Ben"}}
	q := &datasets.Question{Text: question}
	tmpl, err := prompts.Embedded(Prompt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Answer(context.Background(), llm.NewOffline(), tmpl, conv, q, &systems.Context{Items: items, Rendered: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage.InputTokens == 0 || res.PromptSHA == "" {
		t.Fatalf("offline answer must report prompt tokens and hash: %+v", res)
	}
	return res.Prediction
}

func TestOfflineAnswererExtractsTheBestSentence(t *testing.T) {
	day := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	items := []membench.Item{
		{Text: "I love hiking in the mountains.", Speaker: "Ben", Time: day},
		{Text: "Thanks! My sister adopted a beagle puppy named Biscuit. She is so happy.", Speaker: "Ana", Time: day},
	}
	got := ask(t, "What is the name of the puppy Ana's sister adopted?", items)
	if !strings.Contains(got, "Biscuit") || strings.Contains(got, "happy") {
		t.Fatalf("want the sentence naming Biscuit only, got %q", got)
	}
}

func TestOfflineAnswererResolvesRelativeDates(t *testing.T) {
	day := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	cases := map[string]string{
		"I went to the support group yesterday.":   "7 May 2023",
		"I painted the sunrise last year.":         "2022",
		"We went camping last week at the lake.":   "the week before 8 May 2023",
		"I signed up for the pottery class today.": "8 May 2023",
	}
	for text, want := range cases {
		q := "When did Ana go to the support group?"
		switch {
		case strings.Contains(text, "painted"):
			q = "When did Ana paint the sunrise?"
		case strings.Contains(text, "camping"):
			q = "When did Ana go camping at the lake?"
		case strings.Contains(text, "pottery"):
			q = "When did Ana sign up for the pottery class?"
		}
		if got := ask(t, q, []membench.Item{{Text: text, Speaker: "Ana", Time: day}}); got != want {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
	}
}

func TestOfflineAnswererAbstainsWithoutSupport(t *testing.T) {
	items := []membench.Item{{Text: "The weather was lovely on the beach.", Speaker: "Ben"}}
	if got := ask(t, "What instrument does Ana play in the orchestra?", items); got != Abstain {
		t.Fatalf("want abstention, got %q", got)
	}
	if got := ask(t, "What instrument does Ana play?", nil); got != Abstain {
		t.Fatalf("empty context must abstain, got %q", got)
	}
}

// The speakers' names are in every item; a rare word decides which item answers.
func TestOfflineAnswererPrefersRareWords(t *testing.T) {
	items := []membench.Item{
		{Text: "Ana told Ben about her new job at the bakery.", Speaker: "Ana"},
		{Text: "Ana adopted a kitten called Miso.", Speaker: "Ana"},
		{Text: "Ana and Ben talked about Ana's weekend.", Speaker: "Ben"},
	}
	if got := ask(t, "What is the name of the kitten Ana adopted?", items); !strings.Contains(got, "Miso") {
		t.Fatalf("want the kitten sentence, got %q", got)
	}
}

// In a dialogue the turn asking the question echoes its words; the reply answers.
func TestOfflineAnswererPrefersTheReplyToTheEcho(t *testing.T) {
	items := []membench.Item{
		{Text: "What made you pick out the furniture and decor for the store?", Speaker: "Jon"},
		{Text: "I picked the furniture for comfort and my own style.", Speaker: "Gina"},
	}
	got := ask(t, "What made Gina pick the furniture and decor for her store?", items)
	if !strings.Contains(got, "comfort") {
		t.Fatalf("want the reply, got %q", got)
	}
}

func TestRemarksAreNotDeclined(t *testing.T) {
	for text, want := range map[string]bool{
		"Caroline: I ended up volunteering for that project, and now I'm totally overwhelmed.": true,
		"How many months passed between Andrew adopting Buddy and Scout":                       false,
		"Was it a good month? Answer yes or no.":                                               false,
		"What is the name of Tomas's dog?":                                                     false,
	} {
		if got := isRemark(text); got != want {
			t.Errorf("isRemark(%q) = %v, want %v", text, got, want)
		}
	}
	items := []membench.Item{{Text: "I signed up to volunteer at the shelter on weekends.", Speaker: "Caroline"}}
	remark, _ := offlineAnswer(llm.Request{Inputs: Input{Question: "Caroline: the shelter work is wearing me out lately, honestly.", Items: items}})
	if remark == Abstain {
		t.Errorf("a remark sharing a word with memory was declined")
	}
	question, _ := offlineAnswer(llm.Request{Inputs: Input{Question: "Where does Caroline go after the shelter closes at night?", Items: items}})
	if question != Abstain {
		t.Errorf("a question below the bar was answered: %q", question)
	}
}
