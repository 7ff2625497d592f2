package harness_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/prompts"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/systems"
)

// stubSystem is the smallest System: it keeps every turn and returns the
// first K, after embedding the question with the run's embedder so the
// embedder a run was given is the one its system sees.
type stubSystem struct {
	emb   llm.Embedder
	turns []membench.Item
}

const stubName = "test-stub"

func init() {
	systems.Register(systems.Spec{Name: stubName, Description: "harness tests only", New: func(env systems.Env) (systems.System, error) {
		if env.Embedder == nil {
			return nil, fmt.Errorf("no embedder")
		}
		return &stubSystem{emb: env.Embedder}, nil
	}})
}

func (s *stubSystem) Ingest(_ context.Context, conv *datasets.Conversation) (membench.BuildStats, error) {
	for _, t := range conv.AllTurns() {
		s.turns = append(s.turns, membench.Item{ID: t.ID, Kind: "turn", Text: t.Speaker + ": " + t.Text, Speaker: t.Speaker, Time: t.Time, Sources: []string{t.ID}})
	}
	return membench.BuildStats{Counts: map[string]int{"turns": len(s.turns)}}, nil
}

func (s *stubSystem) Retrieve(ctx context.Context, q *datasets.Question, b systems.Budget) (*systems.Context, error) {
	v, err := s.emb.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, err
	}
	if len(v) != 1 || len(v[0]) == 0 {
		return nil, fmt.Errorf("embedder %s returned %d vectors", s.emb.Name(), len(v))
	}
	k := b.K
	if k <= 0 || k > len(s.turns) {
		k = min(3, len(s.turns))
	}
	items := s.turns[:k]
	var texts []string
	for _, it := range items {
		texts = append(texts, it.Text)
	}
	return &systems.Context{Items: items, Rendered: strings.Join(texts, "\n"), Tokens: len(texts), Notes: map[string]any{"embedder": s.emb.Name()}}, nil
}

// parallelRun is one configuration of TestParallelRunsKeepTheirOwnPrompts.
type parallelRun struct {
	name        string
	cfg         membench.Config
	srv         *llmtest.Server // nil: offline models
	answerFile  string          // "" = the embedded answer prompt
	judgeFile   string          // "" = the embedded judge prompts
	wantEmbName string
}

func writePrompt(t *testing.T, dir, name, body string) (path, hash string) {
	t.Helper()
	path = filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(body))
	return path, hex.EncodeToString(sum[:])
}

// Three runs at once in one process, each with its own prompt files (or
// none) and its own embedder: every run must record and send only its own
// prompts, and retrieve with only its own embedder. With a process-wide
// prompt override or MEMBENCH_EMBEDDER set by the harness, one run's
// settings would show up in another's manifest, requests or retrievals.
func TestParallelRunsKeepTheirOwnPrompts(t *testing.T) {
	t.Parallel()
	mk := func(tag string, openaiEmbedder bool) *parallelRun {
		dir := t.TempDir()
		r := &parallelRun{name: tag}
		r.answerFile, _ = writePrompt(t, dir, "answer.tmpl", "ANSWER-PROMPT-"+tag+": answer from the memories.\n---user---\nMemories:\n{{.Context}}\nQuestion: {{.Question}}\nAnswer:")
		r.judgeFile, _ = writePrompt(t, dir, "judge.tmpl", "JUDGE-PROMPT-"+tag+": reply in json with a label CORRECT or WRONG.\n---user---\nQuestion: {{.Question}}\nGold: {{.Gold}}\nPrediction: {{.Prediction}}")
		r.srv = llmtest.New(t, llmtest.WithChat(func(_ int, req llmtest.ChatRequest) llmtest.Reply {
			if strings.Contains(req.Messages[0].Content, "JUDGE-PROMPT-") {
				return llmtest.Reply{Text: `{"reason": "fine", "label": "CORRECT"}`}
			}
			return llmtest.Reply{Text: "prediction-from-" + tag}
		}))
		base := r.srv.URL // includes /v1
		r.cfg = membench.Config{
			System: stubName, K: 2, Judges: []string{"llm", "f1"},
			Model:        "backend=openai,model=fake-" + tag + ",base-url=" + base,
			AnswerPrompt: r.answerFile, JudgePrompt: r.judgeFile,
			ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
			Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"},
		}
		r.wantEmbName = "tfidf-hash-512"
		if openaiEmbedder {
			// The embedder follows the build model's server.
			r.cfg.Embedder = "openai:emb-" + tag
			r.wantEmbName = "openai:emb-" + tag + "@" + base
		}
		return r
	}
	runs := []*parallelRun{mk("A", false), mk("B", true), {
		name: "C", wantEmbName: "tfidf-hash-512",
		cfg: membench.Config{System: stubName, K: 2, Judges: []string{"lexical", "f1"},
			ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
			Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}},
	}}
	t.Run("group", func(t *testing.T) {
		for _, r := range runs {
			t.Run(r.name, func(t *testing.T) {
				t.Parallel()
				if _, err := harness.Run(context.Background(), r.cfg, io.Discard); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
	if t.Failed() {
		return
	}
	for _, r := range runs {
		t.Run("check-"+r.name, func(t *testing.T) { checkParallelRun(t, r, runs) })
	}
}

func checkParallelRun(t *testing.T, r *parallelRun, all []*parallelRun) {
	dir := harnesstest.Dir(t, r.cfg)
	var m runlog.Manifest
	b, err := os.ReadFile(filepath.Join(dir, runlog.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	// The manifest names this run's prompt files and no other run's.
	hashOf := func(path string) string {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		return hex.EncodeToString(sum[:])
	}
	embeddedAnswer, _ := prompts.Hash("answer")
	if r.answerFile != "" {
		if want := hashOf(r.answerFile) + " (" + r.answerFile + ")"; m.Prompts["answer"] != want {
			t.Errorf("manifest prompt answer = %q, want %q", m.Prompts["answer"], want)
		}
		if want := hashOf(r.judgeFile) + " (" + r.judgeFile + ")"; m.Prompts["judge@llm"] != want {
			t.Errorf("manifest prompt judge@llm = %q, want %q", m.Prompts["judge@llm"], want)
		}
	} else {
		if m.Prompts["answer"] != embeddedAnswer {
			t.Errorf("run without prompt files: manifest prompt answer = %q, want the embedded %s", m.Prompts["answer"], embeddedAnswer)
		}
		if v, ok := m.Prompts["judge@llm"]; ok {
			t.Errorf("run without prompt files lists judge@llm = %q", v)
		}
	}
	for _, o := range all {
		if o == r || o.answerFile == "" {
			continue
		}
		for name, v := range m.Prompts {
			if strings.Contains(v, o.answerFile) || strings.Contains(v, o.judgeFile) {
				t.Errorf("manifest prompt %s = %q names run %s's file", name, v, o.name)
			}
		}
	}
	if m.Embedder != r.wantEmbName {
		t.Errorf("manifest embedder = %q, want %q", m.Embedder, r.wantEmbName)
	}
	// Every retrieval used this run's embedder.
	rets, err := runlog.ReadJSONL[runlog.RetrievalRecord](filepath.Join(dir, runlog.RetrievalsFile))
	if err != nil || len(rets) == 0 {
		t.Fatalf("retrievals: %v, %d lines", err, len(rets))
	}
	for _, rr := range rets {
		if got := rr.Notes["embedder"]; got != r.wantEmbName {
			t.Fatalf("question %s retrieved with embedder %v, want %s", rr.QuestionID, got, r.wantEmbName)
		}
	}
	answers, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	if err != nil || len(answers) != len(rets) {
		t.Fatalf("answers: %v, %d lines for %d retrievals", err, len(answers), len(rets))
	}
	if r.srv == nil {
		return
	}
	// Every request this run's server saw carries this run's prompts only,
	// and every recorded prompt hash is one of those rendered prompts.
	rendered := map[string]bool{}
	nAnswer, nJudge := 0, 0
	for _, body := range r.srv.Bodies("/v1/chat/completions") {
		var req llmtest.ChatRequest
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		sys := req.Messages[0].Content
		switch {
		case strings.HasPrefix(sys, "ANSWER-PROMPT-"+r.name+":"):
			nAnswer++
			var msgs []membench.Message
			for _, mm := range req.Messages {
				msgs = append(msgs, membench.Message{Role: mm.Role, Content: mm.Content})
			}
			rendered[llm.HashMessages(msgs)] = true
		case strings.HasPrefix(sys, "JUDGE-PROMPT-"+r.name+":"):
			nJudge++
		default:
			t.Fatalf("run %s's server got a request with system prompt %q", r.name, sys)
		}
	}
	if nAnswer != len(answers) || nJudge != len(answers) {
		t.Errorf("run %s: %d answer and %d judge requests, want %d each", r.name, nAnswer, nJudge, len(answers))
	}
	for _, a := range answers {
		if a.Prediction != "prediction-from-"+r.name {
			t.Fatalf("question %s: prediction %q came from another run's model", a.QuestionID, a.Prediction)
		}
		if !rendered[a.PromptSHA256] {
			t.Fatalf("question %s: prompt sha256 %s is not one of the prompts this run sent", a.QuestionID, a.PromptSHA256)
		}
	}
	wantEmbedCalls := r.cfg.Embedder != ""
	if got := r.srv.Count("/v1/embeddings") > 0; got != wantEmbedCalls {
		t.Errorf("run %s: embedding requests on its server = %v, want %v", r.name, got, wantEmbedCalls)
	}
}
