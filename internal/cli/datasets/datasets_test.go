package datasets

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	core "github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/cli/clierr"
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
	body := core.SampleJSON()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/m/locomo10.json" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	defer srv.Close()

	// With the real checksum the sample's bytes must be rejected.
	_, err := run(t, "fetch", "locomo", "--url", srv.URL+"/m/")
	if err == nil || !strings.Contains(err.Error(), "sha256 mismatch") {
		t.Fatalf("fetch with wrong content: %v", err)
	}
	if _, err := os.Stat(core.DefaultPath(home, "locomo")); err == nil {
		t.Fatal("mismatched download left a file behind")
	}

	// Swap in the sample's checksum for this test only.
	saved := append([]core.Entry(nil), core.Registry...)
	defer func() { core.Registry = saved }()
	r, err := core.Verify(writeTemp(t, body), core.Entry{Name: "x"})
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
		{"verify"},
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
