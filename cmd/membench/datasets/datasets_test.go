package datasets

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/cmd/membench/clierr"
	core "github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/testutil"
)

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := NewCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// The CLI fetches the sample's bytes from a local server posing as a mirror
// of "locomo", with the registry checksum swapped for the sample's.
func TestFetchVerifyList(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MEMBENCH_HOME", home)
	body, err := os.ReadFile(filepath.Join("..", "..", "..", "datasets", "sample", "sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/m/locomo10.json" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	defer srv.Close()

	// With the real checksum the sample's bytes must be rejected.
	_, err = run(t, "fetch", "locomo", "--url", srv.URL+"/m/")
	if err == nil || !strings.Contains(err.Error(), "sha256 mismatch") {
		t.Fatalf("fetch with wrong content: %v", err)
	}
	if _, err := os.Stat(core.DefaultPath(home, "locomo")); err == nil {
		t.Fatal("mismatched download left a file behind")
	}

	// Swap in the sample's checksum for this test only.
	saved := append([]core.Entry(nil), core.Registry...)
	defer func() { core.Registry = saved }()
	r, err := core.Verify(writeTemp(t, body), core.Entry{Name: "x"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range core.Registry {
		if core.Registry[i].Name == "locomo" {
			core.Registry[i].SHA256 = r.SHA256
		}
	}
	out, err := run(t, "fetch", "locomo", "--url", srv.URL+"/m/")
	if err != nil || !strings.Contains(out, "locomo: ok") {
		t.Fatalf("fetch: %v\n%s", err, out)
	}
	out, err = run(t, "fetch", "locomo")
	if err != nil || !strings.Contains(out, "already installed") {
		t.Errorf("second fetch should skip: %v\n%s", err, out)
	}
	out, err = run(t, "verify", "locomo")
	if err != nil || !strings.Contains(out, "locomo: ok") {
		t.Errorf("verify: %v\n%s", err, out)
	}
	out, err = run(t, "list")
	if err != nil || !strings.Contains(out, "locomo") || !strings.Contains(out, "yes (") || !strings.Contains(out, filepath.Join(home, "datasets")) {
		t.Errorf("list: %v\n%s", err, out)
	}
	// The fetched file loads through the dispatcher without --data.
	ds, err := core.Load("locomo", "", core.LoadOptions{Home: home})
	if err != nil || len(ds.Conversations) != 1 {
		t.Errorf("load fetched: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	t.Setenv("MEMBENCH_HOME", t.TempDir())
	for _, args := range [][]string{
		{"fetch", "nope"},
		{"fetch", "sample"},
		{"verify", "nope"},
		{"verify", "locomo"},
		{"verify", "--file", "/nonexistent/x.json"},
	} {
		_, err := run(t, args...)
		if clierr.Code(err) != 2 {
			t.Errorf("%v: exit %d (%v), want 2", args, clierr.Code(err), err)
		}
	}
	_, err := run(t, "verify", "longmemeval-oracle", "--file", writeTemp(t, []byte("[]")))
	if err != nil {
		t.Errorf("no-checksum verify should succeed: %v", err)
	}
	out, _ := run(t, "verify", "longmemeval-oracle", "--file", writeTemp(t, []byte("[]")))
	if !strings.Contains(out, core.NoChecksum) {
		t.Errorf("no-checksum verify output: %s", out)
	}
}

func writeTemp(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSynthCmd(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.json")
	msg, err := run(t, "synth", "--shape", "longmemeval-s", "--questions", "3", "--seed", "5", "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "SYNTHETIC") {
		t.Errorf("output does not say synthetic: %s", msg)
	}
	ds, err := core.Load("longmemeval", out, core.LoadOptions{})
	if err != nil || len(ds.Questions()) != 3 {
		t.Fatalf("load: %v", err)
	}
	_, err = run(t, "synth", "--shape", "nope", "--out", out)
	if clierr.Code(err) != 2 || !strings.Contains(err.Error(), "longmemeval-m") {
		t.Errorf("bad shape: %v (code %d)", err, clierr.Code(err))
	}
}

// The run functions take the home directory in their options: no
// environment needed.
func TestRunFunctionsWithOptions(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(t.TempDir(), "data")
	ctx := context.Background()
	var out bytes.Buffer
	if err := RunList(ctx, &Options{Home: home, Out: &out}); err != nil || !strings.Contains(out.String(), "directory: "+filepath.Join(home, "datasets")) {
		t.Errorf("list (%v):\n%s", err, out.String())
	}
	out.Reset()
	if err := RunList(ctx, &Options{Dir: dir, Home: home, Out: &out}); err != nil || !strings.Contains(out.String(), "directory: "+dir) {
		t.Errorf("list --dir (%v):\n%s", err, out.String())
	}
	out.Reset()
	file := writeTemp(t, []byte("[]"))
	if err := RunVerify(ctx, &Options{Name: "longmemeval-oracle", File: file, Out: &out}); err != nil || !strings.Contains(out.String(), core.NoChecksum) {
		t.Errorf("verify --file (%v):\n%s", err, out.String())
	}
	if err := RunVerify(ctx, &Options{Name: "locomo", Dir: dir, Out: &out}); clierr.Code(err) != 2 || !strings.Contains(err.Error(), filepath.Join(dir, "locomo10.json")) {
		t.Errorf("verify of a missing file: %v, want exit 2 naming it under --dir", err)
	}
	if err := RunFetch(ctx, &Options{Name: "sample", Out: &out}); clierr.Code(err) != 2 {
		t.Errorf("fetch sample: %v, want exit 2", err)
	}
}

// `datasets add` registers the real LoCoMo file: checked against the
// pinned sum, copied where runs look for it, listed as installed; list
// says what each file is checked against, as the README does.
func TestAddRealLoCoMo(t *testing.T) {
	src := testutil.Shared(t, "datasets", "locomo10.json")
	home := t.TempDir()
	t.Setenv("MEMBENCH_HOME", home)
	out, err := run(t, "add", "locomo", src)
	if err != nil || !strings.Contains(out, "locomo: ok") {
		t.Fatalf("add: %v\n%s", err, out)
	}
	if _, err := os.Stat(core.DefaultPath(home, "locomo")); err != nil {
		t.Fatalf("not installed where runs look: %v", err)
	}
	out, err = run(t, "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(pinned)", "none published; recorded when fetched or added", "yes ("} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "(no published checksum)") {
		t.Errorf("list still says (no published checksum):\n%s", out)
	}
	// The same file under a name whose pinned sum it does not match.
	if _, err := run(t, "add", "longmemeval-s", src); clierr.Code(err) != 2 || !strings.Contains(err.Error(), "mismatch") {
		t.Errorf("add under the wrong name: %v", err)
	}
	// An unpinned entry: the copy's sum is recorded and listed.
	if out, err := run(t, "add", "longmemeval-oracle", src); err != nil || !strings.Contains(out, "sha256 recorded in") {
		t.Fatalf("add unpinned: %v\n%s", err, out)
	}
	out, _ = run(t, "list")
	if !strings.Contains(out, "(recorded at install; none published)") {
		t.Errorf("list does not show the recorded sum:\n%s", out)
	}
	if out, err := run(t, "verify", "longmemeval-oracle"); err != nil || !strings.Contains(out, "ok") {
		t.Errorf("verify against the recorded sum: %v\n%s", err, out)
	}
	if _, err := run(t, "add", "nosuch", src); clierr.Code(err) != 2 {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := run(t, "add", "locomo", filepath.Join(home, "missing.json")); clierr.Code(err) != 2 {
		t.Errorf("missing file: %v", err)
	}
	// fetch --url file:// is the same thing.
	home2 := t.TempDir()
	t.Setenv("MEMBENCH_HOME", home2)
	abs, _ := filepath.Abs(src)
	if out, err := run(t, "fetch", "locomo", "--url", "file://"+abs); err != nil || !strings.Contains(out, "locomo: ok") {
		t.Errorf("fetch file://: %v\n%s", err, out)
	}
}

// A mirror URL's credentials reach no error: not on a refused connection,
// an HTTP error or a checksum mismatch.
func TestFetchErrorsHideMirrorCredentials(t *testing.T) {
	t.Setenv("MEMBENCH_HOME", t.TempDir())
	const user, pw = "mirror-USER-4410", "mirror-PW-4410"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gone/locomo10.json" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("not the dataset"))
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, u := range []string{"http://" + user + ":" + pw + "@127.0.0.1:1/m/", "http://" + user + ":" + pw + "@" + host + "/gone/", "http://" + user + ":" + pw + "@" + host + "/m/"} {
		_, err := run(t, "fetch", "locomo", "--url", u)
		if err == nil {
			t.Fatalf("fetch from %s succeeded", u)
		}
		if strings.Contains(err.Error(), user) || strings.Contains(err.Error(), pw) || !strings.Contains(err.Error(), "[redacted]@") {
			t.Errorf("error does not hide the credentials: %v", err)
		}
	}
}
