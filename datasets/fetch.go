package datasets

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/membench/membench/internal/badinput"
)

// Entry is one public dataset file the harness knows how to fetch.
type Entry struct {
	Name   string // registry name: "locomo", "longmemeval-s", ...
	Loader string // the registered dataset that reads it
	URL    string
	File   string // file name under the destination directory
	SHA256 string // "" when no checksum is published
	Size   int64  // 0 when unknown
	Note   string
	// Key marks an answer key for Loader's dataset (--answer-key), not a
	// dataset file: no run loads it as data.
	Key bool
}

// NoChecksum is what verification reports for entries without a
// published checksum when no sha256 was recorded for the copy either.
const NoChecksum = "no published checksum"

// Recorded is what verification reports when the file matches the sha256
// membench recorded when the copy was fetched or added (entries without a
// published checksum).
const Recorded = "matches the sha256 recorded at install"

// RecordPath is the file beside an installed copy that holds the sha256
// recorded when it was fetched or added ("HEX  NAME", as sha256sum writes).
func RecordPath(path string) string { return path + ".sha256" }

// ReadRecord returns the sha256 recorded for an installed copy, "" when
// none was recorded.
func ReadRecord(path string) string {
	b, err := os.ReadFile(RecordPath(path))
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 || len(f[0]) != 64 {
		return ""
	}
	if _, err := hex.DecodeString(f[0]); err != nil {
		return ""
	}
	return strings.ToLower(f[0])
}

// Registry lists the fetchable files, each dataset's Fetch entries in
// the order they registered. Checksums are pinned so a changed upstream
// file is noticed instead of silently changing results.
var Registry []Entry

// File finds a fetchable file by its registry name.
func File(name string) (Entry, bool) {
	if i := slices.IndexFunc(Registry, func(e Entry) bool { return e.Name == name }); i >= 0 {
		return Registry[i], true
	}
	return Entry{}, false
}

// RegistryNames lists the registry's names for error messages.
func RegistryNames() []string {
	var out []string
	for _, e := range Registry {
		out = append(out, e.Name)
	}
	return out
}

// Result describes a fetched or verified file.
type Result struct {
	Path     string
	SHA256   string
	Size     int64
	Verified bool   // checksum matched a published one
	Status   string // "ok" or NoChecksum
}

// Fetch downloads entry into destDir: to a temp file first, checking sha256
// (and size when known) before an atomic rename, so a bad download never
// leaves a file at the final path. baseURLOverride, when set, replaces the
// source: a URL whose path ends in "/" (or is empty) is a mirror directory
// and gets entry.File appended; any other URL is used as is.
//
// A file:// URL (or AddLocal) copies a local file instead: the same
// checks, the same atomic install. Every install records the copy's
// sha256 beside it (RecordPath), so a file without a published checksum
// is still checked against what was installed.
//
// At most maxBytes are read (0 = DefaultMaxBytes), and the copy must be a
// JSON list: a file that is not is refused at its first bad byte.
func Fetch(ctx context.Context, entry Entry, destDir, baseURLOverride string, maxBytes int64) (*Result, error) {
	src := entry.URL
	if baseURLOverride != "" {
		u, err := url.Parse(baseURLOverride)
		switch {
		case err == nil && u.Scheme == "file":
			if u.Path == "" || (u.Host != "" && u.Host != "localhost") {
				return nil, badinput.Errorf("--url %q: a file URL names an absolute path, e.g. file:///data/%s", baseURLOverride, entry.File)
			}
			p := u.Path
			if strings.HasSuffix(p, "/") {
				p += entry.File
			}
			return AddLocal(entry, destDir, p, maxBytes)
		case err != nil || u.Scheme == "" || u.Host == "":
			return nil, badinput.Errorf("--url %q is not an absolute http(s) or file:// URL", baseURLOverride)
		}
		if u.Path == "" || strings.HasSuffix(u.Path, "/") {
			u.Path = strings.TrimSuffix(u.Path, "/") + "/" + entry.File
		}
		src = u.String()
	}
	if src == "" {
		return nil, badinput.Errorf("%s has no public URL; add your copy with `membench datasets add %s FILE` (or pass --url)", entry.Name, entry.Name)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", entry.Name, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s from %s: %w (offline? pass --url to a mirror, register a local copy with `membench datasets add %s FILE`, or give run the file with --data FILE)", entry.Name, src, err, entry.Name)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s from %s: HTTP %s; check the URL or pass --url to a mirror", entry.Name, src, resp.Status)
	}
	return install(entry, destDir, resp.Body, src, maxBytes)
}

// AddLocal installs a local copy of entry's file into destDir (the
// directory `datasets fetch` uses), checked like a download: against the
// published sha256 and size when there are any, and read as Fetch reads a
// download; its sha256 is recorded.
func AddLocal(entry Entry, destDir, file string, maxBytes int64) (*Result, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, badinput.Errorf("%s: %v; give the path of a copy of %s (%s)", file, err, entry.Name, entry.File)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, badinput.Errorf("%s is a directory; give the file itself (%s)", file, entry.File)
	}
	if abs, err := filepath.Abs(file); err == nil {
		dir := cmp.Or(destDir, DefaultDir("")) // callers pass the home's directory; "" is the bare default
		if dst, err := filepath.Abs(filepath.Join(dir, entry.File)); err == nil && abs == dst {
			// Already in place: verify and record, copy nothing.
			res, err := Verify(file, entry, maxBytes)
			if err != nil {
				return nil, badinput.Wrap(err)
			}
			return res, record(res)
		}
	}
	res, err := install(entry, destDir, f, file, maxBytes)
	if err != nil {
		return nil, badinput.Wrap(err)
	}
	return res, nil
}

// record writes the copy's sha256 beside it.
func record(res *Result) error {
	line := res.SHA256 + "  " + filepath.Base(res.Path) + "\n"
	return os.WriteFile(RecordPath(res.Path), []byte(line), 0o644)
}

// install copies body into destDir/entry.File through a temp file,
// checking it before the rename, and records its sha256. The copy is read
// through the JSON check (and the size cap), so a page of HTML or an
// endless stream stops early instead of being installed.
func install(entry Entry, destDir string, body io.Reader, src string, maxBytes int64) (*Result, error) {
	// Callers pass the home's directory; "" is the bare default.
	destDir = cmp.Or(destDir, DefaultDir(""))
	if err := os.MkdirAll(destDir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w; pass --dir to a writable directory", destDir, err)
	}

	tmp, err := os.CreateTemp(destDir, "."+entry.File+".*.part")
	if err != nil {
		return nil, fmt.Errorf("create temp file in %s: %w", destDir, err)
	}
	keep := false
	defer func() {
		if !keep {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	var n counter
	copied := io.TeeReader(NewCapReader(body, src, LoadOptions{MaxBytes: maxBytes}.Cap()), io.MultiWriter(tmp, h, &n))
	if err := shapeOf(entry, src).Check(copied); err != nil {
		if IsInputError(err) {
			return nil, err
		}
		return nil, fmt.Errorf("copy %s from %s: %w", entry.Name, src, err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	res := &Result{Path: filepath.Join(destDir, entry.File), SHA256: hex.EncodeToString(h.Sum(nil)), Size: int64(n)}
	if err := check(entry, res, src); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp.Name(), res.Path); err != nil {
		return nil, fmt.Errorf("move download into %s: %w", res.Path, err)
	}
	keep = true
	return res, record(res)
}

// Verify hashes a local file and compares it with entry's published
// checksum and size. Without a published checksum it reports NoChecksum
// and the computed hash, and returns no error. At most maxBytes are read
// (0 = DefaultMaxBytes).
func Verify(path string, entry Entry, maxBytes int64) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w; fetch it with `membench datasets fetch %s` or pass --file", entry.Name, err, entry.Name)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, NewCapReader(f, path, LoadOptions{MaxBytes: maxBytes}.Cap()))
	if err != nil {
		if IsInputError(err) {
			return nil, err
		}
		return nil, fmt.Errorf("verify %s: read %s: %w", entry.Name, path, err)
	}
	res := &Result{Path: path, SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}
	if err := check(entry, res, path); err != nil {
		return nil, err
	}
	if res.Status == NoChecksum {
		// No published sum: the one recorded at install, if any, decides.
		if want := ReadRecord(path); want != "" {
			if want != res.SHA256 {
				return nil, fmt.Errorf("%s: sha256 %s, but %s was recorded when it was installed (%s); the file changed since: fetch or add it again", path, res.SHA256, want, RecordPath(path))
			}
			res.Status = Recorded
		}
	}
	return res, nil
}

// check fills res.Status/Verified or returns a mismatch error.
func check(entry Entry, res *Result, from string) error {
	if entry.Size > 0 && res.Size != entry.Size {
		return fmt.Errorf("%s from %s: size mismatch: expected %d bytes, got %d; the file is truncated or a different version, re-fetch it", entry.Name, from, entry.Size, res.Size)
	}
	if entry.SHA256 == "" {
		res.Status = NoChecksum
		return nil
	}
	if !strings.EqualFold(res.SHA256, entry.SHA256) {
		return fmt.Errorf("%s from %s: sha256 mismatch: expected %s, got %s; the file is corrupt or a different version, re-fetch it", entry.Name, from, entry.SHA256, res.SHA256)
	}
	res.Status, res.Verified = "ok", true
	return nil
}

// counter counts the bytes written to it.
type counter int64

func (c *counter) Write(p []byte) (int, error) {
	*c += counter(len(p))
	return len(p), nil
}

// shapeOf checks a file of entry's loader as that loader would.
func shapeOf(entry Entry, src string) ListChecker {
	c := ListChecker{Source: src, What: "a " + entry.Loader + " file is a JSON list", List: "list", Line: FileLine(src)}
	if s, err := Lookup(entry.Loader); err == nil && s.Shape != "" {
		c.What, c.List = s.Shape, s.List
	}
	return c
}
