package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/membench/membench/llm/llmtest"
)

// The chat wire path (call) sends what go-openai's client sent for the
// same request, byte for byte.
func TestChatWireRequestEqualsGoOpenAIs(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Text: "yes", TopLogprobs: []llmtest.TopLogprob{{Token: "yes", Logprob: -0.1}, {Token: "no", Logprob: -2.4}}}
	}))
	seed := 3
	for _, model := range []string{"gpt-4o-mini", "o3-mini"} {
		o, err := NewOpenAI(OpenAIConfig{Model: model, BaseURL: srv.URL, APIKey: testKey})
		if err != nil {
			t.Fatal(err)
		}
		for i, send := range []func() openai.ChatCompletionRequest{
			func() openai.ChatCompletionRequest {
				return o.chatRequest(Request{Messages: msgs("a \"quoted\" <b>&</b> question\nwith é and \x01, cut \xe2\x80"), MaxTokens: 200})
			},
			func() openai.ChatCompletionRequest {
				return o.chatRequest(Request{Messages: msgs("json please"), Temperature: 0.7, JSON: true, Seed: &seed, MaxTokens: 64})
			},
			func() openai.ChatCompletionRequest {
				return o.decideRequest(DecideRequest{Messages: []Message{{Role: "user", Content: "yes or no?"}, {Role: "assistant", Content: ""}}, Choices: []string{"yes", "no"}})
			},
		} {
			cr := send()
			before := len(srv.Bodies("/v1/chat/completions"))
			if _, err := o.call(context.Background(), cr); err != nil {
				t.Fatal(err)
			}
			bodies := srv.Bodies("/v1/chat/completions")
			if len(bodies) != before+1 {
				t.Fatalf("%d bodies", len(bodies))
			}
			want, err := json.Marshal(cr) // go-openai's own encoding
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(bodies[before], want) {
				t.Errorf("%s request %d:\n sent %s\n go-openai %s", model, i, bodies[before], want)
			}
		}
	}
}

// Replies, including the odd shapes servers send, read as go-openai read
// them; failures become the same error values.
func TestChatWireReplyEqualsGoOpenAIs(t *testing.T) {
	replies := []struct {
		status int
		body   string
	}{
		{200, `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}`},
		{200, `{"choices":[{"message":{"role":"assistant","content":null}}]}`},
		{200, `{"choices":[{"message":{"role":"assistant","content":"a"}},{"message":{"content":"b"}}]}`},
		{200, `{"choices":[{"message":{"content":"yes"},"logprobs":{"content":[{"token":"yes","logprob":-0.1,"top_logprobs":[{"token":"yes","logprob":-0.1},{"token":" No","logprob":-2.5,"bytes":[32,78,111]}]}]}}]}`},
		{200, `{"choices":[]}`},
		// Odd shapes the fast decoder must read as encoding/json does (or
		// hand back to it): trailing bytes, other letter case, duplicate
		// names, bad UTF-8 and escapes, the array form, no body.
		{200, `{"choices":[{"message":{"content":"a"}}]} {"more":1}`},
		{200, `{"Choices":[{"Message":{"Content":"case"}}],"USAGE":{"Prompt_Tokens":4,"completion_tokens":2}}`},
		{200, `{"choices":[{"message":{"content":"x"}}],"choices":[{"message":{"content":"y"}}]}`},
		{200, "{\"choices\":[{\"message\":{\"content\":\"bad \xff utf8 \\ud800 \\u00e9 \\\"q\\\" \\u2028\"}}]}"},
		{200, `{"choices":[{"message":{"content":[{"type":"text","text":"parts"}]}}]}`},
		{200, ``},
		{200, `<html>proxy</html>`},
		{200, `{"choices":[{"message":{"content":"tr`},
		{429, `{"error":{"message":"slow down","type":"rate_limit","code":"rate_limit_exceeded"}}`},
		{500, `upstream died`},
		{400, `{"error":{"message":"bad","code":400}}`},
	}
	for i, r := range replies {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			io.Copy(io.Discard, req.Body)
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(r.status)
			io.WriteString(w, r.body)
		}))
		o, err := NewOpenAI(OpenAIConfig{Model: "m", BaseURL: srv.URL + "/v1", APIKey: testKey})
		if err != nil {
			t.Fatal(err)
		}
		cr := o.chatRequest(Request{Messages: msgs("q")})
		got, gotErr := o.call(context.Background(), cr)
		// What go-openai's client makes of the same reply.
		oc := openai.DefaultConfig(testKey)
		oc.BaseURL = srv.URL + "/v1"
		want, wantErr := openai.NewClientWithConfig(oc).CreateChatCompletion(context.Background(), cr)
		srv.Close()
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("reply %d: error %v, go-openai's %v", i, gotErr, wantErr)
		}
		if gotErr != nil {
			// The error the client path made of go-openai's error.
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			var exp string
			if errors.As(wantErr, &se) || errors.As(wantErr, &te) {
				exp = fmt.Sprintf("openai chat m at %s/v1: the reply is not a JSON completion (%s) (%s)", srv.URL, wantErr, ErrBadReply)
			} else {
				hold := &captured{}
				if r.status >= 400 {
					hold.header = "3"
				}
				exp = o.wrapErr("chat m", wantErr, hold).Error()
				var he *HTTPError
				if !errors.As(gotErr, &he) || he.RetryAfter != hold.retryAfter(time.Now()) || he.StatusCode != o.wrapErr("chat m", wantErr, hold).(*HTTPError).StatusCode {
					t.Errorf("reply %d: status or Retry-After differ: %#v", i, gotErr)
				}
			}
			if gotErr.Error() != exp {
				t.Errorf("reply %d: error\n %v\nwant\n %v", i, gotErr, exp)
			}
			continue
		}
		if len(got.Choices) != len(want.Choices) || got.Usage.PromptTokens != want.Usage.PromptTokens || got.Usage.CompletionTokens != want.Usage.CompletionTokens {
			t.Fatalf("reply %d: %+v, go-openai's %+v", i, got, want)
		}
		for j := range got.Choices {
			if got.Choices[j].Message.Content != want.Choices[j].Message.Content || !reflect.DeepEqual(got.Choices[j].LogProbs, want.Choices[j].LogProbs) {
				t.Errorf("reply %d choice %d: %+v, go-openai's %+v", i, j, got.Choices[j], want.Choices[j])
			}
		}
	}
}

// decodeReply gives what json.Decoder gave on the reply stream before it
// (the same values, the same errors), for replies of every shape,
// including wrong types (whose messages name chatReply's own types) and a
// read that fails part way.
func TestDecodeReplyEqualsEncodingJSON(t *testing.T) {
	bodies := []string{
		`{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}`,
		`{"choices":[{"message":{"content":"yes"},"logprobs":{"content":[{"token":"yes","logprob":-0.1,"top_logprobs":[{"token":"yes","logprob":-0.1},{"token":" No","logprob":-2.5,"bytes":[32,78,111]}]}]}}]}`,
		`{"choices":[{"message":{"content":null}}],"usage":null}`,
		`{"choices":[{"message":{"content":"a"}}]} {"more":1}`,
		`{"choices":[{"message":{"content":"a"}}]}}`,
		`{"Choices":[{"Message":{"Content":"case"}}],"USAGE":{"Prompt_Tokens":4}}`,
		`{"choices":[{"message":{"content":"x"}}],"choices":[{"message":{"content":"y"}}]}`,
		"{\"choices\":[{\"message\":{\"content\":\"bad \xff \\ud800 \\u00e9 \\\"q\\\" \\u2028 <&>\"}}]}",
		`{"choices":[{"message":{"content":[{"type":"text","text":"parts"}]}}]}`,
		`{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":"12"}}`,
		`{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":1.5}}`,
		`{"choices":{"message":"x"}}`,
		`{"choices":[{"message":{"content":"tr`,
		`<html>proxy</html>`,
		` `,
		``,
		`null`,
		`[]`,
	}
	for i, body := range bodies {
		for _, cut := range []error{nil, io.ErrUnexpectedEOF} {
			got, gotErr := decodeReply([]byte(body), cut)
			var want chatReply
			var src io.Reader = strings.NewReader(body)
			if cut != nil {
				src = io.MultiReader(src, errReader{cut})
			}
			wantErr := json.NewDecoder(src).Decode(&want)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || fmt.Sprintf("%T", gotErr) != fmt.Sprintf("%T", wantErr) {
				t.Errorf("body %d (read error %v): error %v (%T), encoding/json's %v (%T)", i, cut, gotErr, gotErr, wantErr, wantErr)
			}
			if wantErr == nil && !reflect.DeepEqual(got, want) {
				t.Errorf("body %d (read error %v): %+v, encoding/json's %+v", i, cut, got, want)
			}
		}
	}
}

// BenchmarkDecodeReply decodes the fake server's reply to an answer
// request (what every chat request of a run decodes).
func BenchmarkDecodeReply(b *testing.B) {
	body := []byte(`{"choices":[{"finish_reason":"stop","index":0,"logprobs":null,"message":{"content":"7 May 2023, she went to the LGBTQ support group","role":"assistant"}}],"created":1700000000,"id":"chatcmpl-fake-1234","model":"m","object":"chat.completion","usage":{"completion_tokens":9,"prompt_tokens":1042,"total_tokens":1051}}`)
	for b.Loop() {
		if _, err := decodeReply(body, nil); err != nil {
			b.Fatal(err)
		}
	}
}
