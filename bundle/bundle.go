// Package bundle packs a finished run, with every paid reply it used and
// the text of its prompt files, into one file that a reader replays with
// no key, and opens such files from strangers within limits. It reads and
// writes run folders through runlog.
package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/runlog"
)

// Format is the version of the bundle layout this membench writes:
// 2 carries the run's prompt files as text (prompts/SHA256.txt). Formats
// 1 and 2 are replayed; a newer one is refused with the version that
// wrote it, never replayed half-faithfully.
const Format = 2

// oldestFormat is the oldest format this membench still replays.
const oldestFormat = 1

// bundleInfo is bundle.json, the first file of every bundle.
type bundleInfo struct {
	Format   int       `json:"format"`
	Membench string    `json:"membench"` // version that wrote it
	RunID    string    `json:"run_id"`
	Created  time.Time `json:"created"`
	Replies  int       `json:"replies"` // recorded paid replies and embeddings
	// Partial says the run was bundled before it finished (bundle
	// --partial): its replay stops where the run stopped.
	Partial bool `json:"partial,omitempty"`
}

// bundledFiles are the run artifacts a bundle carries, besides bundle.json
// and the prompt files.
var bundledFiles = []string{runlog.ManifestFile, runlog.BuildFile, runlog.RetrievalsFile, runlog.AnswersFile, runlog.JudgmentsFile, runlog.CostsFile, runlog.MemoryFile, runlog.SummaryJSON, runlog.SummaryMD, runlog.RepliesFile, runlog.TranscriptsFile}

// promptEntry matches a bundled prompt file's name: prompts/ and the
// sha256 of its content.
var promptEntry = regexp.MustCompile(`^prompts/([0-9a-f]{64})\.txt$`)

// Bundle is an opened bundle: the run's files, its recorded replies and
// its prompt files by sha256.
type Bundle struct {
	Path     string
	Format   int
	Membench string
	Partial  bool
	Manifest runlog.Manifest
	Files    map[string][]byte
	Prompts  map[string][]byte // sha256 -> the prompt file's content
	Replies  []llm.TapeEntry
}

// Options say how a run may be bundled.
type Options struct {
	Version string // membench version writing the bundle
	// Partial packs a run that is still being written or did not finish;
	// the bundle says so, and so does its replay.
	Partial bool
}

// Write packs the run in dir, with every reply its paid models and
// embedder gave and the text of every prompt file it read, into one
// gzip'd tar at out. It refuses a run whose paid calls were not recorded
// (made before membench recorded replies): its replay would need calls
// the bundle lacks. A run that another process is writing, or that did
// not finish, is refused unless o.Partial.
func Write(dir, out string, o Options) (*Bundle, error) {
	// Held while packing, so no writer adds lines half way through.
	lock, err := runlog.LockDir(dir)
	var busy *runlog.BusyError
	switch {
	case errors.As(err, &busy) && !o.Partial:
		return nil, badinput.Errorf("--run %s: %v; wait for it to finish, or pass --partial to bundle what is there now", dir, err)
	case err != nil && !errors.As(err, &busy):
		return nil, err
	}
	defer lock.Unlock()
	m, err := runlog.LoadManifest(dir)
	if err != nil {
		return nil, err
	}
	if !o.Partial {
		st, err := runlog.StatusOf(dir, m)
		if err != nil {
			return nil, err
		}
		if st.State != runlog.StateComplete {
			return nil, badinput.Errorf("--run %s: the run is %s; finish it (rerun the same command to resume), or pass --partial to bundle what is there", dir, st)
		}
	}
	replies, err := runlog.ReadJSONL[llm.TapeEntry](filepath.Join(dir, runlog.RepliesFile))
	if err != nil {
		return nil, err
	}
	if paid := paidCalls(dir, m); paid > 0 && len(replies) == 0 {
		return nil, fmt.Errorf("%s: the run made %d paid model calls but recorded none of their replies (%s is missing; runs made before membench recorded replies cannot be bundled): rerun it to record them", dir, paid, runlog.RepliesFile)
	}
	prompts, err := readPromptFiles(m)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	info := bundleInfo{Format: Format, Membench: o.Version, RunID: m.RunID, Created: time.Now().UTC(), Replies: len(replies), Partial: o.Partial}
	ib, _ := json.MarshalIndent(info, "", "  ")
	if err := addFile(tw, "bundle.json", ib); err != nil {
		return nil, err
	}
	b := &Bundle{Format: Format, Membench: o.Version, Partial: o.Partial, Manifest: m, Files: map[string][]byte{}, Prompts: prompts, Replies: replies}
	for _, name := range bundledFiles {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := addFile(tw, name, data); err != nil {
			return nil, err
		}
		b.Files[name] = data
	}
	for _, sum := range slices.Sorted(maps.Keys(prompts)) {
		if err := addFile(tw, "prompts/"+sum+".txt", prompts[sum]); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return b, runlog.WriteFileAtomic(out, buf.Bytes())
}

// PromptFiles maps each prompt file a run read to the sha256 its manifest
// recorded for it ("HASH (PATH)" entries of its prompts and its judges').
func PromptFiles(m runlog.Manifest) map[string]string {
	out := map[string]string{}
	add := func(hashes map[string]string) {
		for _, v := range hashes {
			sum, rest, ok := strings.Cut(v, " (")
			if ok && strings.HasSuffix(rest, ")") {
				out[strings.TrimSuffix(rest, ")")] = sum
			}
		}
	}
	add(m.Prompts)
	for _, j := range m.JudgeSpecs {
		add(j.Prompts)
	}
	return out
}

// readPromptFiles reads the run's prompt files, each checked against the
// hash its manifest recorded: a file changed since the run is not the
// prompt the run used.
func readPromptFiles(m runlog.Manifest) (map[string][]byte, error) {
	out := map[string][]byte{}
	for path, want := range PromptFiles(m) {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, badinput.Errorf("prompt file %s (the run read it): %v; a bundle carries the prompt's text, so give it back at that path", path, err)
		}
		if got := llm.HashText(string(data)); got != want {
			return nil, badinput.Errorf("prompt file %s: sha256 %.12s, but the run used one with sha256 %.12s; restore the file the run read", path, got, want)
		}
		out[want] = data
	}
	return out, nil
}

func addFile(tw *tar.Writer, name string, data []byte) error {
	// A fixed time, so one run bundles to the same bytes twice.
	h := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: time.Unix(0, 0).UTC(), Format: tar.FormatPAX}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err := tw.Write(data)
	return err
}

// paidCalls counts the calls of the run's non-offline model roles.
func paidCalls(dir string, m runlog.Manifest) int {
	costs, err := runlog.ReadJSONL[runlog.CostRecord](filepath.Join(dir, runlog.CostsFile))
	if err != nil {
		return 0
	}
	n := 0
	// Every call made, once: kept and redone, without the partial lines a
	// finished build's own line repeats.
	kept, redone := runlog.EffectiveCosts(costs)
	for _, c := range append(kept, redone...) {
		for _, t := range c.Tallies {
			id, ok := m.Models[t.Role]
			if !ok && len(t.Role) > 5 && t.Role[:5] == "judge" {
				id, ok = m.Models["judge"]
			}
			if ok && id.Backend != "offline" && t.Label != "embedding" {
				n += t.Calls - t.CachedCalls
			}
		}
	}
	return n
}

// Limits bound what opening a bundle may unpack. A bundle comes
// from someone else: a small file must not expand into all of memory.
type Limits struct {
	Entry int64   // bytes of one entry
	Total int64   // bytes of all entries
	Ratio float64 // unpacked bytes per byte of the bundle file
}

// DefaultLimits are far above real bundles, which expand about 5x.
var DefaultLimits = Limits{Entry: 1 << 30, Total: 4 << 30, Ratio: 100}

// Open reads a bundle file within DefaultLimits.
func Open(path string) (*Bundle, error) { return OpenLimited(path, DefaultLimits) }

// OpenLimited reads a bundle file. Only the names a bundle format
// defines are read, each within the limits; anything else is refused
// with the entry's name, as is a bundle of a format this membench does
// not replay. Errors are bad input: the file is the user's.
func OpenLimited(path string, lim Limits) (*Bundle, error) {
	b, err := open(path, lim)
	return b, badinput.Wrap(err)
}

func open(path string, lim Limits) (*Bundle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--replay %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("--replay %s: %w", path, err)
	}
	budget := lim.Total
	if r := lim.Ratio * float64(st.Size()); r < float64(budget) {
		budget = int64(r)
	}
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("--replay %s: not a membench bundle (%v); make one with membench bundle --run RUN --out FILE", path, err)
	}
	tr := tar.NewReader(gz)
	b := &Bundle{Path: path, Files: map[string][]byte{}, Prompts: map[string][]byte{}}
	seen := map[string]bool{}
	var info *bundleInfo
	var total int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("--replay %s: damaged bundle: %v", path, err)
		}
		prompt := promptEntry.FindStringSubmatch(h.Name)
		switch {
		case h.Name != "bundle.json" && !slices.Contains(bundledFiles, h.Name) && prompt == nil:
			return nil, fmt.Errorf("--replay %s: entry %q is not part of a membench bundle (a bundle holds bundle.json, the run's artifacts and prompts/SHA256.txt); it was not made by membench bundle", path, h.Name)
		case h.Typeflag != tar.TypeReg:
			return nil, fmt.Errorf("--replay %s: entry %q is not a regular file; it was not made by membench bundle", path, h.Name)
		case seen[h.Name]:
			return nil, fmt.Errorf("--replay %s: entry %q appears twice; it was not made by membench bundle", path, h.Name)
		case h.Size > lim.Entry:
			return nil, fmt.Errorf("--replay %s: entry %q unpacks to %d bytes, over the %d-byte limit for one entry (raise it with --replay-max-entry if you trust the bundle)", path, h.Name, h.Size, lim.Entry)
		case total+h.Size > budget:
			return nil, fmt.Errorf("--replay %s: entry %q would bring the unpacked size to %d bytes, over this bundle's limit of %d (the smaller of %d bytes and %gx the file's %d; raise --replay-max-total or --replay-max-ratio if you trust it)", path, h.Name, total+h.Size, budget, lim.Total, lim.Ratio, st.Size())
		}
		seen[h.Name] = true
		total += h.Size
		data, err := io.ReadAll(io.LimitReader(tr, h.Size))
		if err != nil {
			return nil, fmt.Errorf("--replay %s: %s: %v", path, h.Name, err)
		}
		switch {
		case h.Name == "bundle.json":
			info = &bundleInfo{}
			if err := json.Unmarshal(data, info); err != nil {
				return nil, fmt.Errorf("--replay %s: bundle.json: %v", path, err)
			}
			if info.Format > Format {
				return nil, fmt.Errorf("--replay %s: bundle format %d, written by membench %s, is newer than this membench reads (formats %d to %d): upgrade membench to replay it", path, info.Format, info.Membench, oldestFormat, Format)
			}
			if info.Format < oldestFormat {
				return nil, fmt.Errorf("--replay %s: bundle format %d is not one membench writes (formats %d to %d)", path, info.Format, oldestFormat, Format)
			}
		case prompt != nil:
			if got := llm.HashText(string(data)); got != prompt[1] {
				return nil, fmt.Errorf("--replay %s: %s holds text with sha256 %.12s; the bundle was altered after membench wrote it", path, h.Name, got)
			}
			b.Prompts[prompt[1]] = data
		default:
			b.Files[h.Name] = data
		}
	}
	if info == nil {
		return nil, fmt.Errorf("--replay %s: no bundle.json; not a membench bundle", path)
	}
	b.Format, b.Membench, b.Partial = info.Format, info.Membench, info.Partial
	mb, ok := b.Files[runlog.ManifestFile]
	if !ok {
		return nil, fmt.Errorf("--replay %s: the bundle holds no %s", path, runlog.ManifestFile)
	}
	if err := json.Unmarshal(mb, &b.Manifest); err != nil {
		return nil, fmt.Errorf("--replay %s: %s: %v", path, runlog.ManifestFile, err)
	}
	if err := b.Manifest.CheckSchema(path + ": " + runlog.ManifestFile); err != nil {
		return nil, err
	}
	for i, line := range bytes.Split(b.Files[runlog.RepliesFile], []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e llm.TapeEntry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("--replay %s: %s line %d: %v", path, runlog.RepliesFile, i+1, err)
		}
		b.Replies = append(b.Replies, e)
	}
	return b, nil
}

// OpenRecorder records paid replies into the run's replies.jsonl, keeping
// those an earlier attempt recorded. The file is created on the first
// reply, so a run that makes no paid call writes nothing; close the
// returned closer when done.
func OpenRecorder(dir string) (*llm.Tape, io.Closer, error) {
	path := filepath.Join(dir, runlog.RepliesFile)
	w := &tapeWriter{path: path}
	// Read when the first reply is recorded: a rerun with nothing left to
	// ask does not read a file that can be 80 MB.
	return llm.NewLazyRecorder(func() ([]llm.TapeEntry, error) { return runlog.ReadJSONL[llm.TapeEntry](path) }, w.Write), w, nil
}

// tapeWriter opens replies.jsonl on the first reply.
type tapeWriter struct {
	path string
	once sync.Once
	app  *runlog.Appender
	err  error
}

func (w *tapeWriter) Write(e llm.TapeEntry) error {
	w.once.Do(func() {
		if w.err = os.MkdirAll(filepath.Dir(w.path), 0o755); w.err == nil {
			w.app, w.err = runlog.OpenAppender(w.path)
		}
	})
	if w.err != nil {
		return w.err
	}
	return w.app.Write(e)
}

func (w *tapeWriter) Close() error {
	if w.app != nil {
		return w.app.Close()
	}
	return nil
}

// Unpack writes the bundled run's artifacts and prompt files into dir, a
// directory that holds no run yet, so commands that read runs (judge,
// view, report) work on a published run without replaying it. Only the
// files a bundle carries are written, whatever names the archive holds.
// The manifest records cfg as the run's config: the bundle's own, made
// safe by the caller (no servers, prompts pointing at dir/prompts).
func (b *Bundle) Unpack(dir string, cfg membench.Config) error {
	if runlog.IsRunDir(dir) {
		return fmt.Errorf("%s already holds a run; unpack the bundle into another directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range bundledFiles {
		data, ok := b.Files[name]
		if !ok || name == runlog.ManifestFile {
			continue
		}
		if err := runlog.WriteFileAtomic(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b.Files[runlog.ManifestFile], &raw); err != nil {
		return fmt.Errorf("%s: %s: %v", b.Path, runlog.ManifestFile, err)
	}
	raw["config"], _ = json.Marshal(cfg)
	raw["config_hash"], _ = json.Marshal(cfg.Hash())
	// The manifest last: a directory is a run once it has one.
	return runlog.WriteJSON(filepath.Join(dir, runlog.ManifestFile), raw)
}
