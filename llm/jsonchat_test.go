package llm

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/llm/llmtest"
)

func TestExtractJSON(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"bare object", `{"a": 1}`, `{"a": 1}`},
		{"bare array", ` [1, 2] `, `[1, 2]`},
		{"json fence", "```json\n{\"a\": [1]}\n```", `{"a": [1]}`},
		{"plain fence with array", "```\n[{\"a\": 1}]\n```", `[{"a": 1}]`},
		{"prose before and after", "Sure! Here it is: {\"a\": \"b\"} Hope this helps.", `{"a": "b"}`},
		{"fence inside prose", "Here:\n```json\n{\"facts\": []}\n```\nDone.", `{"facts": []}`},
		{"brackets in prose before", "Facts [as asked]: {\"facts\": [\"x\"]}", `{"facts": ["x"]}`},
		{"second value after", `{"a": 1} and also {"b": 2}`, `{"a": 1}`},
		{"braces inside strings", `{"text": "use } and ] freely"}`, `{"text": "use } and ] freely"}`},
		{"empty", "  \n ", ""},
		// Broken replies come back as the first-to-last cut, so the decode
		// error describes them.
		{"truncated", `Sure! {"entries": [`, `{"entries": [`},
		{"no JSON at all", "this is not json", "this is not json"},
		{"unquoted keys", "{links: nope}", "{links: nope}"},
	}
	for _, c := range cases {
		if got := ExtractJSON(c.in); got != c.want {
			t.Errorf("%s: ExtractJSON(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

func TestDecodeJSON(t *testing.T) {
	var obj struct {
		Facts []string `json:"facts"`
	}
	if err := DecodeJSON("```json\n{\"facts\": [\"a\", \"b\"]}\n```", &obj); err != nil || !reflect.DeepEqual(obj.Facts, []string{"a", "b"}) {
		t.Errorf("fenced object: %v %v", obj.Facts, err)
	}
	var list []int
	if err := DecodeJSON("The ids are [3, 1] as requested.", &list); err != nil || !reflect.DeepEqual(list, []int{3, 1}) {
		t.Errorf("array in prose: %v %v", list, err)
	}
	if err := DecodeJSON("", &list); err == nil || err.Error() != "empty reply" {
		t.Errorf("empty reply: %v", err)
	}
	err := DecodeJSON(`{"facts": ["a", `, &obj)
	if err == nil || !strings.Contains(err.Error(), "unexpected end of JSON input") {
		t.Errorf("broken JSON: %v", err)
	}
}

// scripted replies through the real OpenAI backend and meter: the repair
// request must carry the bad reply, the instruction and the repair label.
func jsonServer(t *testing.T, replies ...string) (*llmtest.Server, Model, *Meter) {
	t.Helper()
	srv := llmtest.New(t, llmtest.WithChat(func(n int, r llmtest.ChatRequest) llmtest.Reply {
		if r.ResponseFormat == nil || r.ResponseFormat.Type != "json_object" {
			t.Errorf("request %d not in JSON mode", n)
		}
		if n > len(replies) {
			t.Errorf("unexpected request %d", n)
			return llmtest.Reply{Text: "{}"}
		}
		return llmtest.Reply{Text: replies[n-1], PromptTokens: 10 * n, CompletionTokens: n}
	}))
	meter := NewMeter()
	return srv, WithMeter(newTestOpenAI(t, srv), meter, "build"), meter
}

func labels(m *Meter) map[string]int {
	out := map[string]int{}
	for _, tl := range m.Snapshot() {
		out[tl.Label] += tl.Calls
	}
	return out
}

func TestChatJSONRepairSucceedsOnSecondTry(t *testing.T) {
	srv, model, meter := jsonServer(t, `Sure! {"facts": [`, `{"facts": ["Mel paints"]}`)
	var out struct {
		Facts []string `json:"facts"`
	}
	r, err := ChatJSON(context.Background(), model, Request{Task: "t", Messages: msgs("extract"), Label: "extract_facts"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out.Facts, []string{"Mel paints"}) || r.Calls != 2 || !r.Repaired() || r.Tokens != 10+1+20+2 {
		t.Errorf("out %v reply %+v", out, r)
	}
	if r.Raw != `Sure! {"facts": [` || r.RepairRaw != `{"facts": ["Mel paints"]}` {
		t.Errorf("raw replies %+v", r)
	}
	bodies := srv.Bodies("/v1/chat/completions")
	if len(bodies) != 2 {
		t.Fatalf("%d requests", len(bodies))
	}
	second := string(bodies[1])
	if !strings.Contains(second, `"role":"assistant","content":"Sure! {\"facts\": ["`) || !strings.Contains(second, "That reply was not valid JSON of the requested shape (unexpected end of JSON input)") {
		t.Errorf("repair request %s", second)
	}
	if got := labels(meter); !reflect.DeepEqual(got, map[string]int{"extract_facts": 1, "extract_facts_repair": 1}) {
		t.Errorf("meter labels %v", got)
	}
}

func TestChatJSONGoodReplyIsOneCall(t *testing.T) {
	srv, model, _ := jsonServer(t, "```json\n{\"facts\": []}\n```")
	var out map[string]any
	r, err := ChatJSON(context.Background(), model, Request{Task: "t", Messages: msgs("x"), Label: "l"}, &out)
	if err != nil || r.Calls != 1 || r.Repaired() || srv.Count("/v1/chat/completions") != 1 {
		t.Errorf("reply %+v, err %v, %d requests", r, err, srv.Count("/v1/chat/completions"))
	}
}

func TestChatJSONFailsWithTypedErrorCarryingBothReplies(t *testing.T) {
	_, model, _ := jsonServer(t, "no json here", "{still: not}")
	var out map[string]any
	r, err := ChatJSON(context.Background(), model, Request{Task: "flat.extract", Messages: msgs("x"), Label: "extract_facts"}, &out)
	var pe *ParseError
	if !errors.Is(err, ErrMalformed) || !errors.As(err, &pe) {
		t.Fatalf("err %v, want a *ParseError", err)
	}
	if pe.Raw != "no json here" || pe.RepairRaw != "{still: not}" || pe.Task != "flat.extract" || pe.Err == nil || r.Calls != 2 {
		t.Errorf("parse error %+v, reply %+v", pe, r)
	}
	if !strings.Contains(err.Error(), "flat.extract") || !strings.Contains(err.Error(), "{still: not}") {
		t.Errorf("message %q should name the task and the reply", err)
	}
}

func TestChatJSONCustomDecodeAndRepair(t *testing.T) {
	srv, model, meter := jsonServer(t, `{"links": "none"}`, `{"links": []}`)
	shapeErr := errors.New(`"links" is not a list`)
	decode := func(raw string) error {
		var v struct{ Links any }
		if err := DecodeJSON(raw, &v); err != nil {
			return err
		}
		if _, ok := v.Links.([]any); !ok {
			return shapeErr
		}
		return nil
	}
	var problem error
	r, err := ChatJSON(context.Background(), model, Request{Task: "t", Messages: msgs("x"), Label: "consolidate"}, nil,
		DecodeWith(decode),
		RepairWith("consolidate", func(p error) ([]membench.Message, error) {
			problem = p
			return []membench.Message{{Role: "user", Content: "Fix: " + p.Error()}}, nil
		}))
	if err != nil || r.Calls != 2 || problem != shapeErr {
		t.Fatalf("reply %+v err %v problem %v", r, err, problem)
	}
	if !strings.Contains(string(srv.Bodies("/v1/chat/completions")[1]), `Fix: \"links\" is not a list`) {
		t.Error("custom repair instruction not sent")
	}
	if got := labels(meter); !reflect.DeepEqual(got, map[string]int{"consolidate": 2}) {
		t.Errorf("meter labels %v", got)
	}
}

func TestChatJSONTransportErrorIsNotMalformed(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(n int, _ llmtest.ChatRequest) llmtest.Reply {
		if n == 1 {
			return llmtest.Reply{Text: "oops"}
		}
		return llmtest.Reply{Status: 400, ErrorMessage: "context too long"}
	}))
	var out map[string]any
	r, err := ChatJSON(context.Background(), newTestOpenAI(t, srv), Request{Task: "t", Messages: msgs("x")}, &out)
	if err == nil || errors.Is(err, ErrMalformed) || r.Calls != 1 || r.Raw != "oops" {
		t.Errorf("reply %+v err %v: want the server error after one answered call", r, err)
	}
}
