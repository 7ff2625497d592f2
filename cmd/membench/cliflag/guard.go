package cliflag

import (
	"path/filepath"

	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/runlog"
)

// GuardOut refuses an output path inside a run folder, or the folder
// itself: a run's files are its record, and a command told to write
// R/manifest.json (view --out, bundle) would overwrite one. Symbolic links
// are followed, so a link into a run folder is refused too. flag names
// the option in the error ("--out").
func GuardOut(flag, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return badinput.Errorf("%s %s: %v", flag, path, err)
	}
	for _, p := range []string{abs, resolved(abs)} {
		for dir := p; ; dir = filepath.Dir(dir) {
			if runlog.IsRunDir(dir) {
				elsewhere := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-"+filepath.Base(p))
				return badinput.Errorf("%s %s: that is inside the run folder %s, whose files are the run's record; write it outside, e.g. %s %s", flag, path, dir, flag, elsewhere)
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return nil
}

// resolved is abs with the symbolic links of its longest existing prefix
// followed (the rest is yet to be made).
func resolved(abs string) string {
	dir, rest := abs, ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}
