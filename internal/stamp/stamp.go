// Package stamp says which membench is running: the module version, or
// the commit (and uncommitted changes) it was built from.
package stamp

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// Build says which membench is running: what `membench version` prints and
// every manifest records.
type Build struct {
	// Version is the module version (v1.2.3) of a release build, "" else.
	Version string `json:"version,omitempty"`
	// Revision is the commit the binary was built from, "" when unknown.
	Revision string `json:"revision,omitempty"`
	// Dirty is true when that tree had uncommitted changes.
	Dirty bool `json:"dirty,omitempty"`
	// From says where Revision and Dirty come from: "build" (the Go
	// toolchain's VCS stamp), "checkout" (git, asked at run time in the
	// source tree the binary was compiled from, because the build carries
	// no stamp, e.g. GOFLAGS=-buildvcs=false or `go run`), or "".
	From string `json:"from,omitempty"`
}

// String is the version as one word: "v1.2.3", "devel+REVISION12" with
// "-dirty" for uncommitted changes, or "dev" when nothing is known.
func (b Build) String() string {
	switch {
	case b.Version != "":
		return b.Version
	case b.Revision == "":
		return "dev"
	}
	rev := b.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if b.Dirty {
		rev += "-dirty"
	}
	return "devel+" + rev
}

// fromBuildInfo reads the module version and the VCS stamp.
func fromBuildInfo(bi *debug.BuildInfo) Build {
	var b Build
	if bi == nil {
		return b
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision, b.From = s.Value, "build"
		case "vcs.modified":
			b.Dirty = s.Value == "true"
		}
	}
	return b
}

// sourceRoot is the module's directory as this file was compiled, when it
// still holds membench's go.mod ("" for -trimpath builds or a moved tree).
func sourceRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.Contains(mod, []byte("module github.com/membench/membench\n")) {
		return ""
	}
	return root
}

// fromCheckout asks git in dir for the commit and uncommitted changes.
// The two commands run at once: on a busy machine each takes a tenth of a
// second or more, and a rerun with nothing left to do waits for them.
func fromCheckout(dir string) (Build, bool) {
	var st []byte
	var stErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		st, stErr = exec.Command("git", "-C", dir, "status", "--porcelain").Output()
	}()
	rev, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	<-done
	if err != nil || stErr != nil {
		return Build{}, false
	}
	return Build{Revision: strings.TrimSpace(string(rev)), Dirty: len(bytes.TrimSpace(st)) > 0, From: "checkout"}, true
}

var buildOnce = sync.OnceValue(func() Build {
	bi, _ := debug.ReadBuildInfo()
	b := fromBuildInfo(bi)
	if b.Version != "" || b.Revision != "" {
		return b
	}
	// No stamp: the source tree this binary was compiled from, never the
	// working directory (which may be another repository).
	if root := sourceRoot(); root != "" {
		if c, ok := fromCheckout(root); ok {
			return c
		}
	}
	return b
})

// Of is this binary's Build.
func Of() Build { return buildOnce() }

// Version is Of().String(): what manifests record as "membench".
func Version() string { return buildOnce().String() }
