package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
)

// A bundle is someone else's file. These tests hand membench bundles made
// the way an attacker would make them, from the committed sample bundle,
// and check that a replay runs, reads and contacts nothing they name.

const sampleBundle = "../../testdata/bundles/sample-turns-rerank.tar.gz"

type entry struct {
	name string
	data []byte
	typ  byte
}

// readBundle lists the entries of a bundle file in order.
func readBundle(t *testing.T, path string) []entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var out []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{name: h.Name, data: b, typ: tar.TypeReg})
	}
}

// writeBundle packs entries as a bundle file; an entry's data may be
// replaced by size zero bytes streamed in (zeros > 0).
func writeBundle(t *testing.T, entries []entry, zerosName string, zeros int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "crafted.tar.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gz, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.data)), Typeflag: e.typ}
		if e.typ == tar.TypeSymlink {
			h.Size, h.Linkname = 0, "/etc/passwd"
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typ != tar.TypeSymlink {
			tw.Write(e.data)
		}
	}
	if zeros > 0 {
		if err := tw.WriteHeader(&tar.Header{Name: zerosName, Mode: 0o644, Size: zeros}); err != nil {
			t.Fatal(err)
		}
		chunk := make([]byte, 1<<20)
		for left := zeros; left > 0; left -= int64(len(chunk)) {
			n := int64(len(chunk))
			if left < n {
				n = left
			}
			tw.Write(chunk[:n])
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	f.Close()
	return path
}

// craft returns the sample bundle with its manifest edited by edit (a
// generic JSON map, so fields this binary would drop survive).
func craft(t *testing.T, edit func(m map[string]any), extra ...entry) []entry {
	t.Helper()
	entries := readBundle(t, sampleBundle)
	for i, e := range entries {
		if e.name != runlog.ManifestFile {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(e.data, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, _ := json.Marshal(m)
		entries[i].data = b
	}
	return append(entries, extra...)
}

func setEntry(entries []entry, name string, data []byte) []entry {
	for i := range entries {
		if entries[i].name == name {
			entries[i].data = data
			return entries
		}
	}
	return append(entries, entry{name: name, data: data, typ: tar.TypeReg})
}

// hits counts every request a server receives, and the keys it was sent.
type hits struct {
	n    atomic.Int64
	auth atomic.Value
}

func listener(t *testing.T) (*httptest.Server, *hits) {
	h := &hits{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.n.Add(1)
		h.auth.Store(r.Header.Get("Authorization"))
		http.Error(w, "nothing here", http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	return srv, h
}

func config(m map[string]any) map[string]any { return m["config"].(map[string]any) }

func TestReplayNeverRunsTheBundlesCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := filepath.Join(dir, "bundle-ran")
	bundle := writeBundle(t, craft(t, func(m map[string]any) {
		config(m)["system"] = "exec"
		config(m)["options"] = map[string]any{"cmd": "id > " + marker}
	}), "", 0)
	out, code := membench(t, nil, "run", "--replay", bundle, "--results", filepath.Join(dir, "r"), "--quiet")
	if code != 2 || !strings.Contains(out, "--opt cmd=") {
		t.Fatalf("exit %d, want 2 and a line asking for the user's own --opt cmd:\n%s", code, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the bundle's command ran")
	}
	// The user's own command is the one that runs.
	mine := filepath.Join(dir, "mine-ran")
	out, _ = membench(t, nil, "run", "--replay", bundle, "--results", filepath.Join(dir, "r2"), "--quiet", "--opt", "cmd=touch "+mine)
	if _, err := os.Stat(mine); err != nil {
		t.Fatalf("the user's --opt cmd did not run: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the bundle's command ran")
	}
	// Only an outside option may be given again.
	out, code = membench(t, nil, "run", "--replay", bundle, "--results", filepath.Join(dir, "r3"), "--opt", "cmd=true", "--opt", "k=3")
	if code != 2 || !strings.Contains(out, "--opt k cannot go with --replay") {
		t.Fatalf("exit %d, want 2 refusing --opt k:\n%s", code, out)
	}
}

func TestReplayNeverCallsTheBundlesURL(t *testing.T) {
	t.Parallel()
	srv, h := listener(t)
	bundle := writeBundle(t, craft(t, func(m map[string]any) {
		config(m)["system"] = "http"
		config(m)["options"] = map[string]any{"url": srv.URL}
	}), "", 0)
	out, code := membench(t, nil, "run", "--replay", bundle, "--results", t.TempDir(), "--quiet")
	if code != 2 || !strings.Contains(out, "--opt url=") {
		t.Fatalf("exit %d, want 2 and a line asking for --opt url:\n%s", code, out)
	}
	if n := h.n.Load(); n != 0 {
		t.Fatalf("the bundle's URL got %d requests", n)
	}
}

// A bundle naming its own server and key variable, with the user's key in
// the environment and --replay-fallback: calls the bundle lacks go to the
// server the user configured, with the user's key, and nowhere else.
func TestReplayFallbackSendsTheKeyOnlyToTheConfiguredBackend(t *testing.T) {
	t.Parallel()
	evil, evilHits := listener(t)
	good := llmtest.New(t, llmtest.WithEmbedDim(32), llmtest.WithChat(llmtest.Plausible))
	spec := "backend=openai,model=gpt-4o-mini,base-url=" + evil.URL + "/v1,api-key-env=MEMBENCH_TEST_OTHER_SECRET"
	entries := craft(t, func(m map[string]any) {
		config(m)["model"] = spec
		config(m)["embedder"] = "backend=openai,model=text-embedding-3-small,base-url=" + evil.URL + "/v1,api-key-env=MEMBENCH_TEST_OTHER_SECRET"
	})
	entries = setEntry(entries, runlog.RepliesFile, nil) // every call is missing
	bundle := writeBundle(t, entries, "", 0)
	env := []string{"OPENAI_API_KEY=sk-users-own", "OPENAI_BASE_URL=" + good.URL, "MEMBENCH_TEST_OTHER_SECRET=sk-other-secret"}
	out, code := membench(t, env, "run", "--replay", bundle, "--replay-fallback", "--results", t.TempDir(), "--quiet")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if n := evilHits.n.Load(); n != 0 {
		t.Fatalf("the server the bundle names got %d requests (Authorization %v)", n, evilHits.auth.Load())
	}
	if good.Count("/v1/chat/completions") == 0 || good.Count("/v1/embeddings") == 0 {
		t.Fatalf("the configured backend got no calls:\n%s", out)
	}
	for _, a := range good.Authorizations() {
		if a != "Bearer sk-users-own" {
			t.Fatalf("the configured backend was sent %q, not the user's key", a)
		}
	}
	if !strings.Contains(out, "calls the bundle lacks go to "+good.URL) {
		t.Errorf("the replay does not say where calls go:\n%s", out)
	}
}

// A bundle naming a local file as its answer prompt: the file is never
// read, and a bundle that does not carry the prompt's text is refused.
func TestReplayNeverReadsAPromptPathTheBundleNames(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("the user's private text\n---user---\n{{.Question}}\n"), 0o644)
	srv := llmtest.New(t, llmtest.WithEmbedDim(32), llmtest.WithChat(llmtest.Plausible))
	bundle := writeBundle(t, setEntry(craft(t, func(m map[string]any) {
		config(m)["answer_prompt"] = secret
		m["prompts"].(map[string]any)["answer"] = "0000000000000000000000000000000000000000000000000000000000000000 (" + secret + ")"
	}), runlog.RepliesFile, nil), "", 0)
	env := []string{"OPENAI_API_KEY=sk-users-own", "OPENAI_BASE_URL=" + srv.URL}
	out, code := membench(t, env, "run", "--replay", bundle, "--replay-fallback", "--results", t.TempDir(), "--quiet")
	if code != 2 || !strings.Contains(out, "does not carry its text") {
		t.Fatalf("exit %d, want 2 refusing a prompt path the bundle does not carry:\n%s", code, out)
	}
	for _, b := range srv.Bodies("/v1/chat/completions") {
		if bytes.Contains(b, []byte("private text")) {
			t.Fatal("the prompt file the bundle names was sent to the server")
		}
	}
}

// A run with its own prompt files bundles their text: the replay needs
// neither the files nor their paths, and uses the same prompts.
func TestBundleCarriesPromptFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	answer := filepath.Join(dir, "answer.txt")
	os.WriteFile(answer, []byte("Answer from the memory only.\n---user---\n{{.Context}}\nQ: {{.Question}}\nA:"), 0o644)
	results := filepath.Join(dir, "results")
	out, code := membench(t, nil, "run", "--answer-prompt", answer, "--limit", "4", "--run-id", "p", "--results", results, "--quiet")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	bundle := filepath.Join(dir, "p.tar.gz")
	if out, code = membench(t, nil, "bundle", "--run", filepath.Join(results, "p"), "--out", bundle); code != 0 || !strings.Contains(out, "1 prompt files") {
		t.Fatalf("bundle: exit %d\n%s", code, out)
	}
	os.Remove(answer)
	replayed := filepath.Join(dir, "replayed")
	if out, code = membench(t, nil, "run", "--replay", bundle, "--results", replayed, "--quiet"); code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, out)
	}
	// Replaying into the same place again shows the finished replay.
	if again, code := membench(t, nil, "run", "--replay", bundle, "--results", replayed, "--quiet"); code != 0 || !strings.Contains(again, "already holds a finished replay") {
		t.Fatalf("second replay: exit %d\n%s", code, again)
	}
	orig, err := runlog.LoadManifest(filepath.Join(results, "p"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runlog.LoadManifest(filepath.Join(replayed, "p"))
	if err != nil {
		t.Fatal(err)
	}
	sum := func(v string) string { s, _, _ := strings.Cut(v, " "); return s }
	if sum(rep.Prompts["answer"]) != sum(orig.Prompts["answer"]) || !strings.Contains(rep.Prompts["answer"], filepath.Join(replayed, "p", "prompts")) {
		t.Fatalf("replayed answer prompt %q, recorded %q", rep.Prompts["answer"], orig.Prompts["answer"])
	}
	lines := func(path string) []string { // questions finish in any order
		b, _ := os.ReadFile(path)
		l := strings.Split(strings.TrimSpace(string(b)), "\n")
		sort.Strings(l)
		return l
	}
	a, b := lines(filepath.Join(results, "p", runlog.AnswersFile)), lines(filepath.Join(replayed, "p", runlog.AnswersFile))
	if len(a) != 4 || !reflect.DeepEqual(a, b) {
		t.Fatalf("the replay's answers differ from the run's:\n%s\n%s", a, b)
	}
}

func TestReplayRefusesBundlesThatAreNotData(t *testing.T) {
	t.Parallel()
	sha := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	cases := []struct {
		name    string
		bundle  func() string
		args    []string
		message string
	}{
		{"unknown entry", func() string {
			return writeBundle(t, readBundle(t, sampleBundle), "payload.bin", 4<<20)
		}, nil, `entry "payload.bin" is not part of a membench bundle`},
		{"a near name", func() string {
			return writeBundle(t, readBundle(t, sampleBundle), runlog.MemoryFile+"x", 1024)
		}, nil, `entry "memory.jsonlx" is not part of`},
		{"a symlink", func() string {
			return writeBundle(t, append(readBundle(t, sampleBundle), entry{name: "prompts/" + strings.Repeat("a", 64) + ".txt", typ: tar.TypeSymlink}), "", 0)
		}, nil, "is not a regular file"},
		{"a prompt altered", func() string {
			return writeBundle(t, append(readBundle(t, sampleBundle), entry{name: "prompts/" + sha([]byte("a")) + ".txt", data: []byte("b"), typ: tar.TypeReg}), "", 0)
		}, nil, "was altered"},
		{"a newer format", func() string {
			return writeBundle(t, setEntry(readBundle(t, sampleBundle), "bundle.json", []byte(`{"format": 99, "membench": "v9.0.0"}`)), "", 0)
		}, nil, "written by membench v9.0.0, is newer"},
		{"a newer manifest", func() string {
			return writeBundle(t, craft(t, func(m map[string]any) { m["schema"] = 7; m["membench"] = "v7.1.0" }), "", 0)
		}, nil, "manifest schema 7, written by membench v7.1.0"},
		{"a run id that climbs out of --results", func() string {
			return writeBundle(t, craft(t, func(m map[string]any) { m["run_id"] = "../escaped" }), "", 0)
		}, nil, "the bundle's run id"},
		{"an entry over --replay-max-entry", func() string {
			return writeBundle(t, readBundle(t, sampleBundle)[:1], runlog.MemoryFile, 3<<20)
		}, []string{"--replay-max-entry", "1048576"}, `entry "memory.jsonl" unpacks to 3145728 bytes, over the 1048576-byte limit`},
		{"zeros over the expansion ratio", func() string {
			return writeBundle(t, readBundle(t, sampleBundle)[:1], runlog.MemoryFile, 64<<20)
		}, nil, `entry "memory.jsonl" would bring the unpacked size to`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			results := filepath.Join(t.TempDir(), "results")
			args := append([]string{"run", "--replay", c.bundle(), "--results", results, "--quiet"}, c.args...)
			out, code := membench(t, nil, args...)
			if code != 2 || !strings.Contains(out, c.message) || strings.Count(strings.TrimSpace(out), "\n") > 0 {
				t.Fatalf("exit %d, want 2 and one line with %q:\n%s", code, c.message, out)
			}
			if left, _ := os.ReadDir(filepath.Dir(results)); len(left) > 0 {
				t.Fatalf("a refused replay wrote %v beside --results", left)
			}
		})
	}
}

func TestBundleRefusesARunStillBeingWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	if out, code := membench(t, nil, "run", "--limit", "3", "--run-id", "w", "--results", results, "--quiet"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	run := filepath.Join(results, "w")
	before, _ := os.ReadFile(filepath.Join(run, runlog.AnswersFile))
	for _, out := range []string{filepath.Join(run, runlog.AnswersFile), filepath.Join(run, "b.tar.gz"), run} {
		if got, code := membench(t, nil, "bundle", "--run", run, "--out", out); code != 2 || !strings.Contains(got, "inside the run folder") {
			t.Fatalf("bundle --out %s: exit %d, want 2:\n%s", out, code, got)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(run, runlog.AnswersFile)); !bytes.Equal(before, after) {
		t.Fatal("bundle --out overwrote the run's answers")
	}
	lock, err := runlog.LockDir(run) // as a writer would hold it
	if err != nil {
		t.Fatal(err)
	}
	out, code := membench(t, nil, "bundle", "--run", run, "--out", filepath.Join(dir, "b.tar.gz"))
	if code != 2 || !strings.Contains(out, "--partial") {
		t.Fatalf("bundle of a locked run: exit %d, want 2 naming --partial:\n%s", code, out)
	}
	out, code = membench(t, nil, "bundle", "--run", run, "--out", filepath.Join(dir, "b.tar.gz"), "--partial")
	if code != 0 || !strings.Contains(out, "partial") {
		t.Fatalf("bundle --partial: exit %d\n%s", code, out)
	}
	lock.Unlock()
	out, code = membench(t, nil, "run", "--replay", filepath.Join(dir, "b.tar.gz"), "--results", filepath.Join(dir, "replayed"), "--quiet")
	if code != 0 || !strings.Contains(out, "partial bundle") {
		t.Fatalf("replay of a partial bundle: exit %d, want 0 saying it is partial:\n%s", code, out)
	}

	// A run that stopped part way (its last answers lost) is incomplete.
	answers := filepath.Join(run, runlog.AnswersFile)
	b, _ := os.ReadFile(answers)
	lines := strings.SplitAfter(strings.TrimSpace(string(b)), "\n")
	os.WriteFile(answers, []byte(strings.Join(lines[:1], "")), 0o644)
	out, code = membench(t, nil, "bundle", "--run", run, "--out", filepath.Join(dir, "c.tar.gz"))
	if code != 2 || !strings.Contains(out, "incomplete") {
		t.Fatalf("bundle of an incomplete run: exit %d, want 2:\n%s", code, out)
	}
}

// A run unpacked from a bundle (judge --replay) or replayed from one keeps
// no server or key variable the bundle named: a later plain `judge` on it
// calls the backend configured now, with the user's key.
func TestRunsFromABundleKeepNoEndpoint(t *testing.T) {
	t.Parallel()
	evil, evilHits := listener(t)
	good := llmtest.New(t, llmtest.WithEmbedDim(32), llmtest.WithChat(llmtest.Plausible))
	spec := "name=x,backend=openai,model=gpt-4o-mini,base-url=" + evil.URL + "/v1,api-key-env=MEMBENCH_TEST_OTHER_SECRET"
	bundle := writeBundle(t, craft(t, func(m map[string]any) {
		config(m)["judge_model"] = spec
		config(m)["model"] = spec
	}), "", 0)
	env := []string{"OPENAI_API_KEY=sk-users-own", "OPENAI_BASE_URL=" + good.URL, "MEMBENCH_TEST_OTHER_SECRET=sk-other-secret"}
	dir := t.TempDir()
	unpacked, replayed := filepath.Join(dir, "unpacked"), filepath.Join(dir, "replayed")
	if out, code := membench(t, env, "judge", "--run", unpacked, "--replay", bundle, "--judge-spec", "lexical"); code != 0 {
		t.Fatalf("judge --replay: exit %d\n%s", code, out)
	}
	if out, code := membench(t, env, "run", "--replay", bundle, "--results", replayed, "--quiet"); code != 0 {
		t.Fatalf("run --replay: exit %d\n%s", code, out)
	}
	runs := []string{unpacked, filepath.Join(replayed, "sample-turns-rerank-recorded")}
	for _, run := range runs {
		m, _ := os.ReadFile(filepath.Join(run, runlog.ManifestFile))
		var man struct {
			Config json.RawMessage `json:"config"`
		}
		json.Unmarshal(m, &man)
		if bytes.Contains(man.Config, []byte(evil.URL)) || bytes.Contains(man.Config, []byte("api-key-env")) {
			t.Fatalf("%s: the config keeps the bundle's server: %s", run, man.Config)
		}
		if out, code := membench(t, env, "judge", "--run", run, "--judge-spec", "llm,name=again"); code != 0 {
			t.Fatalf("judge on %s: exit %d\n%s", run, code, out)
		}
	}
	if n := evilHits.n.Load(); n != 0 {
		t.Fatalf("the server the bundle names got %d requests (Authorization %v)", n, evilHits.auth.Load())
	}
	if good.Count("/v1/chat/completions") == 0 {
		t.Fatal("the configured backend got no judge calls")
	}
	for _, a := range good.Authorizations() {
		if a != "Bearer sk-users-own" {
			t.Fatalf("the configured backend was sent %q, not the user's key", a)
		}
	}
}
