package llmtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

func post(t *testing.T, url, body string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, bytes.NewBufferString(body))
	req.Header.Set("Authorization", "Bearer k1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp, out
}

func TestWireFormat(t *testing.T) {
	s := New(t, WithChat(func(n int, r ChatRequest) Reply {
		if n == 2 {
			return Reply{Status: 429, RetryAfter: "7", ErrorMessage: "slow down"}
		}
		return Reply{Text: "Yes", TopLogprobs: []TopLogprob{{"Yes", -0.1}, {"No", -2.4}, {"Maybe", -4}}}
	}))
	_, out := post(t, s.URL+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"a b"}],"logprobs":true,"top_logprobs":2,"max_tokens":1}`)
	ch := out["choices"].([]any)[0].(map[string]any)
	top := ch["logprobs"].(map[string]any)["content"].([]any)[0].(map[string]any)["top_logprobs"].([]any)
	if len(top) != 2 || top[0].(map[string]any)["token"] != "Yes" || ch["message"].(map[string]any)["content"] != "Yes" {
		t.Fatalf("chat response %v", out)
	}
	u := out["usage"].(map[string]any)
	if u["prompt_tokens"].(float64) != 5 || u["completion_tokens"].(float64) != 1 {
		t.Fatalf("usage %v", u)
	}
	resp, out := post(t, s.URL+"/chat/completions", `{"model":"m","messages":[]}`)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" || out["error"].(map[string]any)["message"] != "slow down" {
		t.Fatalf("error response %d %v %v", resp.StatusCode, resp.Header, out)
	}
	_, out = post(t, s.URL+"/embeddings", `{"model":"e","input":["a b","c"]}`)
	data := out["data"].([]any)
	if len(data) != 2 || len(data[1].(map[string]any)["embedding"].([]any)) != 8 {
		t.Fatalf("embeddings %v", out)
	}
	if s.Count("/v1/chat/completions") != 2 || s.Count("/v1/embeddings") != 1 || len(s.Authorizations()) != 3 || s.Authorizations()[0] != "Bearer k1" {
		t.Fatalf("counts %d %d auth %v", s.Count("/v1/chat/completions"), s.Count("/v1/embeddings"), s.Authorizations())
	}
	if len(s.Bodies("/v1/embeddings")) != 1 {
		t.Fatal("body not recorded")
	}
}

func TestPrefixCacheReportsLongestSeenPrefix(t *testing.T) {
	s := New(t, WithPrefixCache(1, 0))
	chat := func(msgs ...Message) (prompt, cached int) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"model": "m", "messages": msgs})
		_, out := post(t, s.URL+"/chat/completions", string(b))
		u := out["usage"].(map[string]any)
		d, ok := u["prompt_tokens_details"].(map[string]any)
		if !ok {
			t.Fatalf("no prompt_tokens_details in %v", u)
		}
		return int(u["prompt_tokens"].(float64)), int(d["cached_tokens"].(float64))
	}
	sys := Message{Role: "system", Content: "answer from the conversation below"}    // 3+5 tokens
	conv := Message{Role: "user", Content: "Ann: I moved to Lisbon. Bob: nice city"} // 3+8
	if p, c := chat(sys, conv, Message{Role: "user", Content: "where did Ann move?"}); p != 8+11+7 || c != 0 {
		t.Fatalf("first prompt: %d tokens, %d cached; want 26, 0", p, c)
	}
	// Same instructions and conversation, another question: the shared
	// prefix is both messages and the third message's role framing.
	if p, c := chat(sys, conv, Message{Role: "user", Content: "who is Bob?"}); p != 8+11+6 || c != 8+11+3 {
		t.Fatalf("second prompt: %d tokens, %d cached; want 25, 22", p, c)
	}
	// A word changed early: only the tokens before it hit.
	if _, c := chat(sys, Message{Role: "user", Content: "Ann: I moved to Porto. Bob: nice city"}); c != 8+3+4 {
		t.Fatalf("changed prompt: %d cached, want 15", c)
	}
	// The same prompt again is cached whole.
	if p, c := chat(sys, conv); c != p || p != 19 {
		t.Fatalf("repeat: %d tokens, %d cached; want all 19", p, c)
	}
}

func TestPrefixCacheBlocksAndMinimum(t *testing.T) {
	s := New(t, WithPrefixCache(4, 8))
	chat := func(content string) int {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"model": "m", "messages": []Message{{Role: "user", Content: content}}})
		_, out := post(t, s.URL+"/chat/completions", string(b))
		return int(out["usage"].(map[string]any)["prompt_tokens_details"].(map[string]any)["cached_tokens"].(float64))
	}
	chat("a b c d e f g h i j k l m") // 16 tokens with framing
	// 3 framing + 8 shared words = 11 shared tokens: two whole blocks of 4.
	if c := chat("a b c d e f g h X Y Z"); c != 8 {
		t.Fatalf("cached %d, want 8 (two blocks of 4)", c)
	}
	// 3 + 3 shared = 6: one block, under the minimum of 8.
	if c := chat("a b c Q"); c != 0 {
		t.Fatalf("cached %d, want 0 (below the minimum)", c)
	}
}
