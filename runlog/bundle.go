package runlog

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/membench/membench/llm"
)

// BundleFormat is the version of the bundle layout this membench writes.
// A bundle of another format is refused with the reason, never replayed
// half-faithfully.
const BundleFormat = 1

// bundleInfo is bundle.json, the first file of every bundle.
type bundleInfo struct {
	Format   int       `json:"format"`
	Membench string    `json:"membench"` // version that wrote it
	RunID    string    `json:"run_id"`
	Created  time.Time `json:"created"`
	Replies  int       `json:"replies"` // recorded paid replies and embeddings
}

// bundledFiles are the run artifacts a bundle carries, besides bundle.json.
var bundledFiles = []string{ManifestFile, BuildFile, RetrievalsFile, AnswersFile, JudgmentsFile, CostsFile, MemoryFile, SummaryJSON, SummaryMD, RepliesFile, TranscriptsFile}

// Bundle is an opened bundle: the run's files and its recorded replies.
type Bundle struct {
	Path     string
	Format   int
	Membench string
	Manifest Manifest
	Files    map[string][]byte
	Replies  []llm.TapeEntry
}

// WriteBundle packs the run in dir, with every reply its paid models and
// embedder gave, into one gzip'd tar at out. It refuses a run whose paid
// calls were not recorded (made before membench recorded replies): its
// replay would need calls the bundle lacks.
func WriteBundle(dir, out, version string) (*Bundle, error) {
	m, err := LoadManifest(dir)
	if err != nil {
		return nil, err
	}
	replies, err := ReadJSONL[llm.TapeEntry](filepath.Join(dir, RepliesFile))
	if err != nil {
		return nil, err
	}
	if paid := paidCalls(dir, m); paid > 0 && len(replies) == 0 {
		return nil, fmt.Errorf("%s: the run made %d paid model calls but recorded none of their replies (%s is missing; runs made before membench recorded replies cannot be bundled): rerun it to record them", dir, paid, RepliesFile)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	info := bundleInfo{Format: BundleFormat, Membench: version, RunID: m.RunID, Created: time.Now().UTC(), Replies: len(replies)}
	ib, _ := json.MarshalIndent(info, "", "  ")
	if err := addFile(tw, "bundle.json", ib); err != nil {
		return nil, err
	}
	b := &Bundle{Format: BundleFormat, Membench: version, Manifest: m, Files: map[string][]byte{}, Replies: replies}
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
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return b, WriteFileAtomic(out, buf.Bytes())
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
func paidCalls(dir string, m Manifest) int {
	costs, err := ReadJSONL[CostRecord](filepath.Join(dir, CostsFile))
	if err != nil {
		return 0
	}
	n := 0
	// Every call made, once: kept and redone, without the partial lines a
	// finished build's own line repeats.
	kept, redone := EffectiveCosts(costs)
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

// OpenBundle reads a bundle file. A bundle of a format this membench does
// not write is refused with the reason.
func OpenBundle(path string) (*Bundle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--replay %s: %w", path, err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("--replay %s: not a membench bundle (%v); make one with membench bundle --run RUN --out FILE", path, err)
	}
	tr := tar.NewReader(gz)
	b := &Bundle{Path: path, Files: map[string][]byte{}}
	var info *bundleInfo
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("--replay %s: damaged bundle: %v", path, err)
		}
		data, err := io.ReadAll(io.LimitReader(tr, 4<<30))
		if err != nil {
			return nil, fmt.Errorf("--replay %s: %s: %v", path, h.Name, err)
		}
		if h.Name == "bundle.json" {
			info = &bundleInfo{}
			if err := json.Unmarshal(data, info); err != nil {
				return nil, fmt.Errorf("--replay %s: bundle.json: %v", path, err)
			}
			if info.Format != BundleFormat {
				return nil, fmt.Errorf("--replay %s: bundle format %d (written by membench %s); this membench replays format %d only, so it cannot reproduce that run faithfully: use membench %s", path, info.Format, info.Membench, BundleFormat, info.Membench)
			}
			continue
		}
		b.Files[h.Name] = data
	}
	if info == nil {
		return nil, fmt.Errorf("--replay %s: no bundle.json; not a membench bundle", path)
	}
	b.Format, b.Membench = info.Format, info.Membench
	mb, ok := b.Files[ManifestFile]
	if !ok {
		return nil, fmt.Errorf("--replay %s: the bundle holds no %s", path, ManifestFile)
	}
	if err := json.Unmarshal(mb, &b.Manifest); err != nil {
		return nil, fmt.Errorf("--replay %s: %s: %v", path, ManifestFile, err)
	}
	for i, line := range bytes.Split(b.Files[RepliesFile], []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e llm.TapeEntry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("--replay %s: %s line %d: %v", path, RepliesFile, i+1, err)
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
	path := filepath.Join(dir, RepliesFile)
	w := &tapeWriter{path: path}
	// Read when the first reply is recorded: a rerun with nothing left to
	// ask does not read a file that can be 80 MB.
	return llm.NewLazyRecorder(func() ([]llm.TapeEntry, error) { return ReadJSONL[llm.TapeEntry](path) }, w.Write), w, nil
}

// tapeWriter opens replies.jsonl on the first reply.
type tapeWriter struct {
	path string
	once sync.Once
	app  *Appender
	err  error
}

func (w *tapeWriter) Write(e llm.TapeEntry) error {
	w.once.Do(func() {
		if w.err = os.MkdirAll(filepath.Dir(w.path), 0o755); w.err == nil {
			w.app, w.err = OpenAppender(w.path)
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

// Unpack writes the bundled run's artifacts into dir, a directory that
// holds no run yet, so commands that read runs (judge, view, report) work
// on a published run without replaying it. Only the files a bundle
// carries are written, whatever names the archive holds.
func (b *Bundle) Unpack(dir string) error {
	if IsRunDir(dir) {
		return fmt.Errorf("%s already holds a run; unpack the bundle into another directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range bundledFiles {
		data, ok := b.Files[name]
		if !ok || name == ManifestFile {
			continue
		}
		if err := WriteFileAtomic(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	// The manifest last: a directory is a run once it has one.
	return WriteFileAtomic(filepath.Join(dir, ManifestFile), b.Files[ManifestFile])
}
