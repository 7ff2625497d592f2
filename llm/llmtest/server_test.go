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
