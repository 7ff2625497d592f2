package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/testutil"
)

func serve(t *testing.T, body []byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/mirror/data.json" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func entryFor(body []byte) Entry {
	sum := sha256.Sum256(body)
	return Entry{Name: "test", File: "data.json", URL: "http://invalid.example/data.json", SHA256: hex.EncodeToString(sum[:]), Size: int64(len(body))}
}

func onlyFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestFetchGood(t *testing.T) {
	body := []byte(`[{"hello":"world"}]`)
	srv := serve(t, body)
	dir := filepath.Join(t.TempDir(), "sub")
	e := entryFor(body)
	// A base URL ending in "/" gets the file name appended.
	res, err := Fetch(context.Background(), e, dir, srv.URL+"/mirror/", 0)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "data.json"))
	if string(got) != string(body) || !res.Verified || res.Status != "ok" || res.Size != int64(len(body)) || res.Path != filepath.Join(dir, "data.json") {
		t.Errorf("result %+v, file %q", res, got)
	}
	if files := onlyFiles(t, dir); len(files) != 2 || files[1] != "data.json.sha256" {
		t.Errorf("want the file and its recorded sha256, got %v", files)
	}
	if ReadRecord(res.Path) != res.SHA256 {
		t.Errorf("recorded sha256 %q, want %s", ReadRecord(res.Path), res.SHA256)
	}
	v, err := Verify(res.Path, e, 0)
	if err != nil || !v.Verified {
		t.Errorf("verify: %v %+v", err, v)
	}
	// A full URL is used as is.
	if _, err := Fetch(context.Background(), e, dir, srv.URL+"/mirror/data.json", 0); err != nil {
		t.Errorf("full URL: %v", err)
	}
}

func TestFetchBadChecksum(t *testing.T) {
	body := []byte(`[1,2,3]`)
	srv := serve(t, body)
	dir := t.TempDir()
	e := entryFor([]byte("something else"))
	e.Size = 0
	_, err := Fetch(context.Background(), e, dir, srv.URL+"/mirror/", 0)
	if err == nil || !strings.Contains(err.Error(), "expected "+e.SHA256) || !strings.Contains(err.Error(), "got "+entryFor(body).SHA256) {
		t.Errorf("mismatch error %v should name expected and got", err)
	}
	if files := onlyFiles(t, dir); len(files) != 0 {
		t.Errorf("files left behind after mismatch: %v", files)
	}
	// Size is checked too when known.
	e = entryFor(body)
	e.Size = 99
	if _, err := Fetch(context.Background(), e, dir, srv.URL+"/mirror/", 0); err == nil || !strings.Contains(err.Error(), "expected 99 bytes, got 7") {
		t.Errorf("size error %v", err)
	}
	if files := onlyFiles(t, dir); len(files) != 0 {
		t.Errorf("files left behind after size mismatch: %v", files)
	}
}

func TestFetch404(t *testing.T) {
	srv := serve(t, []byte("x"))
	dir := t.TempDir()
	e := entryFor([]byte("x"))
	e.File = "missing.json"
	_, err := Fetch(context.Background(), e, dir, srv.URL+"/mirror/", 0)
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "/mirror/missing.json") {
		t.Errorf("404 error %v", err)
	}
	if files := onlyFiles(t, dir); len(files) != 0 {
		t.Errorf("files left behind after 404: %v", files)
	}
	if _, err := Fetch(context.Background(), e, dir, "not a url", 0); err == nil {
		t.Error("bad override accepted")
	}
}

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	os.WriteFile(p, []byte("abc"), 0o644)
	e := entryFor([]byte("abc"))
	if r, err := Verify(p, e, 0); err != nil || !r.Verified {
		t.Errorf("good verify: %v", err)
	}
	e.SHA256, e.Size = "", 0
	r, err := Verify(p, e, 0)
	if err != nil || r.Verified || r.Status != NoChecksum || r.SHA256 != entryFor([]byte("abc")).SHA256 {
		t.Errorf("no-checksum verify: %v %+v", err, r)
	}
	e = entryFor([]byte("abd"))
	if _, err := Verify(p, e, 0); err == nil || !strings.Contains(err.Error(), "sha256 mismatch") {
		t.Errorf("mismatch verify: %v", err)
	}
	if _, err := Verify(filepath.Join(dir, "none"), e, 0); err == nil {
		t.Error("missing file verified")
	}
}

func TestRegistry(t *testing.T) {
	for _, name := range []string{"locomo", "longmemeval-s", "longmemeval-oracle", "longmemeval-m"} {
		e, ok := File(name)
		if !ok || !strings.HasPrefix(e.URL, "https://") || e.File == "" || (e.Loader != "locomo" && e.Loader != "longmemeval") {
			t.Errorf("registry entry %s: %+v", name, e)
		}
	}
	if e, _ := File("longmemeval-s"); e.Size != 277383467 || len(e.SHA256) != 64 {
		t.Errorf("longmemeval-s: %+v", e)
	}
	if e, _ := File("longmemeval-oracle"); e.SHA256 != "" {
		t.Error("oracle has no published checksum")
	}
	// The real LoCoMo file, when present, verifies against the registry.
	path := testutil.Shared(t, "datasets", "locomo10.json")
	e, _ := File("locomo")
	if r, err := Verify(path, e, 0); err != nil || !r.Verified {
		t.Errorf("real locomo verify: %v", err)
	}
}

// A local copy installs like a download (file:// URL or AddLocal): checked
// against the pinned sum, copied atomically, its sha256 recorded; an entry
// without a published sum is then verified against the recorded one.
func TestAddLocalCopy(t *testing.T) {
	body := []byte(`[{"local":"copy"}]`)
	src := filepath.Join(t.TempDir(), "mine.json")
	if err := os.WriteFile(src, body, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	e := entryFor(body)
	res, err := Fetch(context.Background(), e, dir, "file://"+src, 0)
	if err != nil || !res.Verified || res.Path != filepath.Join(dir, "data.json") {
		t.Fatalf("fetch file://: %+v %v", res, err)
	}
	if got, _ := os.ReadFile(res.Path); string(got) != string(body) || ReadRecord(res.Path) != res.SHA256 {
		t.Errorf("copied %q, recorded %q", got, ReadRecord(res.Path))
	}
	// A copy that does not match the pinned sum is refused, nothing left.
	other := t.TempDir()
	if _, err := AddLocal(entryFor([]byte("other")), other, src, 0); err == nil || !strings.Contains(err.Error(), "mismatch") {
		t.Errorf("mismatched copy: %v", err)
	}
	if files := onlyFiles(t, other); len(files) != 0 {
		t.Errorf("refused copy left %v", files)
	}
	// No published sum: the recorded one decides from now on.
	e.SHA256, e.Size = "", 0
	dir2 := t.TempDir()
	res, err = AddLocal(e, dir2, src, 0)
	if err != nil || res.Status != NoChecksum {
		t.Fatalf("add without a published sum: %+v %v", res, err)
	}
	v, err := Verify(res.Path, e, 0)
	if err != nil || v.Status != Recorded {
		t.Errorf("verify against the recorded sum: %+v %v", v, err)
	}
	if err := os.WriteFile(res.Path, []byte(`[{"local":"edited"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(res.Path, e, 0); err == nil || !strings.Contains(err.Error(), "recorded") {
		t.Errorf("edited copy: err = %v, want a mismatch with the recorded sum", err)
	}
	// A missing file or a relative file URL is bad input naming it.
	if _, err := AddLocal(e, dir2, filepath.Join(dir2, "nope.json"), 0); !badinput.Is(err) || !strings.Contains(err.Error(), "nope.json") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Fetch(context.Background(), e, dir2, "file://relative/x.json", 0); !badinput.Is(err) {
		t.Errorf("relative file URL: %v", err)
	}
}

// A download that is not a JSON list (a mirror's HTML page) or that runs
// past the size cap is refused while it streams, and nothing is installed.
func TestFetchChecksWhatItCopies(t *testing.T) {
	html := []byte("<!DOCTYPE html><html>Not Found</html>")
	srv := serve(t, html)
	dir := t.TempDir()
	e := Entry{Name: "longmemeval-oracle", Loader: "longmemeval", File: "data.json"} // no published checksum
	_, err := Fetch(context.Background(), e, dir, srv.URL+"/mirror/", 0)
	if !IsInputError(err) || !strings.Contains(err.Error(), "line 1 (byte 0): malformed JSON: invalid character '<'") {
		t.Fatalf("HTML page: %v", err)
	}
	body := []byte(`[{"question_id": "q", "question": "x"}, {"question_id": "r", "question": "y"}]`)
	srv = serve(t, body)
	_, err = Fetch(context.Background(), e, dir, srv.URL+"/mirror/", int64(len(body)-1))
	if !IsInputError(err) || !strings.Contains(err.Error(), "--max-data-size") {
		t.Fatalf("past the cap: %v", err)
	}
	if files := onlyFiles(t, dir); len(files) != 0 {
		t.Fatalf("refused downloads left %v", files)
	}
	if _, err := Fetch(context.Background(), e, dir, srv.URL+"/mirror/", int64(len(body))); err != nil {
		t.Fatalf("a download of exactly the cap: %v", err)
	}
}

// verify and add read no more than the cap: /dev/zero ends at it.
func TestVerifyAndAddStopAtTheCap(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	e := Entry{Name: "longmemeval-m", Loader: "longmemeval", File: "data.json"}
	if _, err := Verify("/dev/zero", e, 1<<20); !IsInputError(err) || !strings.Contains(err.Error(), "/dev/zero is larger than 1MiB") {
		t.Fatalf("verify /dev/zero: %v", err)
	}
	dir := t.TempDir()
	if _, err := AddLocal(e, dir, "/dev/zero", 0); !IsInputError(err) || !strings.Contains(err.Error(), "/dev/zero line 1 (byte 0): malformed JSON") {
		t.Fatalf("add /dev/zero: %v", err)
	}
	if files := onlyFiles(t, dir); len(files) != 0 {
		t.Fatalf("refused add left %v", files)
	}
}
