// Package datasets is the `membench datasets` command: list, fetch and
// verify the public benchmark files in the dataset registry.
package datasets

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/clienv"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	core "github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/synth"
	"github.com/membench/membench/internal/suggest"
	"github.com/membench/membench/llm"
)

// NewCmd builds `membench datasets`.
func NewCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "datasets",
		Short: "List, fetch and verify benchmark dataset files",
		Long: "Datasets are fetched (or added from a local copy) into $MEMBENCH_HOME/datasets\n" +
			"(default ~/.cache/membench/datasets). locomo and longmemeval-s are checked against\n" +
			"sha256 sums pinned in membench; the other files have no published sum, so the sha256\n" +
			"of the copy you install is recorded beside it (FILE.sha256) and verify checks against\n" +
			"that. The embedded sample needs no fetch.",
		Example: `  membench datasets list
  membench datasets list --json
  membench datasets fetch locomo
  membench datasets add locomo ../shared/datasets/locomo10.json
  membench datasets verify locomo
  membench datasets synth --shape locomo --questions 20 --seed 1 --out /tmp/synth-locomo.json`,
	}
	cmd.AddCommand(listCmd(), fetchCmd(), addCmd(), verifyCmd(), synthCmd())
	return cmd
}

func unknown(name string) error {
	return clierr.Bad("unknown dataset %q%s (known: %s)", name, suggest.Hint(name, core.RegistryNames()), strings.Join(core.RegistryNames(), ", "))
}

// Options are the inputs of datasets list, fetch, add and verify.
type Options struct {
	Name  string // registry name (verify: "" = identify File, or with no File every installed dataset)
	File  string // add: the local copy; verify: this file instead of the installed copy
	Dir   string // "" = the default directory under Home
	URL   string // fetch: mirror URL, or a directory ending in /
	Force bool   // fetch: download even if a verified copy is installed
	JSON  bool
	Home  string // MEMBENCH_HOME, read at the edge
	Out   io.Writer
	// MaxBytes caps the bytes read (0 = core.DefaultMaxBytes).
	MaxBytes int64
}

// runE fills o from the command line (NAME, then FILE) and runs run.
func runE(o *Options, run func(context.Context, *Options) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		o.Name = ""
		if len(args) > 0 {
			o.Name = args[0]
		}
		if len(args) > 1 {
			o.File = args[1]
		}
		o.Home, o.Out = clienv.Host(cmd.Context()).Home, cmd.OutOrStdout()
		return run(cmd.Context(), o)
	}
}

// dir is --dir, else the default directory under Home.
func (o *Options) dir() string { return cmp.Or(o.Dir, core.DefaultDir(o.Home)) }

// lookup finds o.Name's registry entry for verb (fetch, add, verify); the
// embedded sample has none.
func (o *Options) lookup(verb string) (core.Entry, error) {
	e, ok := core.File(o.Name)
	if !ok {
		if s, err := core.Lookup(o.Name); err == nil && s.Embedded {
			return e, clierr.Bad("dataset %s is embedded in the binary; nothing to %s", o.Name, verb)
		} else if err == nil && len(s.Fetch) == 0 {
			return e, clierr.Bad("dataset %s has no registered file to %s; give run its file with --data FILE", o.Name, verb)
		}
		return e, unknown(o.Name)
	}
	return e, nil
}

func listCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "list",
		Short: "Show the registry: name, installed?, checksum, url",
		Example: `  membench datasets list
  membench datasets list --json`,
		Args: cobra.NoArgs,
		RunE: runE(o, RunList),
	}
	c.Flags().StringVar(&o.Dir, "dir", "", "dataset directory (default $MEMBENCH_HOME/datasets or ~/.cache/membench/datasets)")
	cliflag.JSON(c, &o.JSON)
	return c
}

// ListEntry is one line of `datasets list --json`.
type ListEntry struct {
	Name      string `json:"name"`
	File      string `json:"file,omitempty"`
	Installed bool   `json:"installed"`
	Path      string `json:"path,omitempty"`  // where it is (or would be) installed
	Bytes     int64  `json:"bytes,omitempty"` // installed size
	SHA256    string `json:"sha256,omitempty"`
	URL       string `json:"url,omitempty"`
	Embedded  bool   `json:"embedded,omitempty"` // the sample, built in
}

// RunList prints the registry and which files are installed; hashing is
// left to verify because the LongMemEval files are hundreds of MB.
func RunList(_ context.Context, o *Options) error {
	dir := o.dir()
	var list []ListEntry
	for _, n := range core.Names() {
		if s, _ := core.Lookup(n); s.Embedded {
			list = append(list, ListEntry{Name: n, Installed: true, Embedded: true})
		}
	}
	for _, e := range core.Registry {
		le := ListEntry{Name: e.Name, File: e.File, Path: filepath.Join(dir, e.File), SHA256: e.SHA256, URL: e.URL}
		if st, err := os.Stat(le.Path); err == nil {
			le.Installed, le.Bytes = true, st.Size()
		}
		list = append(list, le)
	}
	if o.JSON {
		return cliflag.PrintJSON(o.Out, map[string]any{"directory": dir, "datasets": list})
	}
	w := tabwriter.NewWriter(o.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tINSTALLED\tSHA256\tURL")
	for _, le := range list {
		switch {
		case le.Embedded:
			fmt.Fprintf(w, "%s\tembedded\t-\t(built in)\n", le.Name)
		case le.Installed:
			fmt.Fprintf(w, "%s\tyes (%s)\t%s\t%s\n", le.Name, humanBytes(le.Bytes), checksum(le), le.URL)
		default:
			fmt.Fprintf(w, "%s\tno\t%s\t%s\n", le.Name, checksum(le), le.URL)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "\ndirectory: %s\n", dir)
	return nil
}

// checksum says what a copy is checked against: the sum pinned in the
// registry, else the one recorded when the copy was installed.
func checksum(le ListEntry) string {
	if le.SHA256 != "" {
		return le.SHA256 + " (pinned)"
	}
	if rec := core.ReadRecord(le.Path); rec != "" {
		return rec + " (recorded at install; none published)"
	}
	return "(none published; recorded when fetched or added)"
}

func humanBytes(n int64) string {
	for i, unit := range []string{"GiB", "MiB", "KiB"} {
		if size := int64(1) << (30 - 10*i); n >= size {
			return fmt.Sprintf("%.1f %s", float64(n)/float64(size), unit)
		}
	}
	return fmt.Sprintf("%d B", n)
}

func fetchCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "fetch NAME",
		Short: "Download a dataset file and check its sha256",
		Example: `  membench datasets fetch locomo
  membench datasets fetch longmemeval-s --out /data/membench`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: cliflag.CompleteRegistry,
		RunE:              runE(o, RunFetch),
	}
	c.Flags().StringVar(&o.Dir, "out", "", "destination directory (default $MEMBENCH_HOME/datasets or ~/.cache/membench/datasets)")
	c.Flags().StringVar(&o.URL, "url", "", "download from this URL instead (a URL ending in / is a mirror directory; the file name is appended)")
	c.Flags().BoolVar(&o.Force, "force", false, "download even if a verified copy is installed")
	maxDataSize(c, &o.MaxBytes)
	return c
}

// RunFetch downloads the file unless a verified copy is there.
func RunFetch(ctx context.Context, o *Options) error {
	e, err := o.lookup("fetch")
	if err != nil {
		return err
	}
	out, dir := o.Out, o.dir()
	dest := filepath.Join(dir, e.File)
	if !o.Force {
		if r, err := core.Verify(dest, e, o.MaxBytes); err == nil {
			fmt.Fprintf(out, "%s already installed at %s (sha256 %s, %s); use --force to download again\n", e.Name, dest, r.SHA256, r.Status)
			return nil
		}
	}
	fmt.Fprintf(out, "fetching %s into %s ...\n", e.Name, dir)
	r, err := core.Fetch(ctx, e, dir, o.URL, o.MaxBytes)
	if err != nil {
		return llm.RedactErr(err) // --url may carry a mirror's credentials
	}
	report(out, e, r)
	return nil
}

func addCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "add NAME FILE",
		Short: "Register a local copy of a dataset file (checked and copied like a download)",
		Long: `Copies FILE into the dataset directory under the registry name's file name, so
runs find it without --data. It is checked like a download: against the pinned
sha256 and size where membench has them; its sha256 is recorded beside the copy
(FILE.sha256) either way. Same as: datasets fetch NAME --url file:///abs/path/FILE.`,
		Example: `  membench datasets add locomo ../shared/datasets/locomo10.json
  membench datasets add locomo-plus ../shared/datasets/locomo-plus/locomo_plus.json
  membench datasets add longmemeval-oracle ~/Downloads/longmemeval_oracle.json`,
		Args: cobra.ExactArgs(2),
		RunE: runE(o, RunAdd),
	}
	c.Flags().StringVar(&o.Dir, "dir", "", "destination directory (default $MEMBENCH_HOME/datasets or ~/.cache/membench/datasets)")
	maxDataSize(c, &o.MaxBytes)
	return c
}

// maxDataSize registers --max-data-size, as run and score have it.
func maxDataSize(c *cobra.Command, dst *int64) {
	cliflag.Size(c, dst, "max-data-size", core.DefaultMaxBytes, 1<<10, 1<<50, "read at most this much of the file (a larger one is refused), e.g. 8GiB")
}

// RunAdd installs a local copy.
func RunAdd(_ context.Context, o *Options) error {
	e, err := o.lookup("add")
	if err != nil {
		return err
	}
	r, err := core.AddLocal(e, o.dir(), o.File, o.MaxBytes)
	if err != nil {
		return clierr.AsBad(err)
	}
	report(o.Out, e, r)
	return nil
}

func verifyCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "verify [NAME | --file F]",
		Short: "Check installed (or given) files against the registry's sha256",
		Long: `With a NAME, checks that dataset's installed copy (or --file F) against its
sha256. With --file F alone, says which dataset F is. With neither, checks
every installed dataset and names the ones not installed; it fails (exit 1)
when an installed copy does not match.`,
		Example: `  membench datasets verify
  membench datasets verify locomo
  membench datasets verify --file ../shared/datasets/locomo10.json`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: cliflag.CompleteRegistry,
		RunE:              runE(o, RunVerify),
	}
	c.Flags().StringVar(&o.Dir, "dir", "", "dataset directory (default $MEMBENCH_HOME/datasets or ~/.cache/membench/datasets)")
	c.Flags().StringVar(&o.File, "file", "", "verify this file instead of the installed copy")
	maxDataSize(c, &o.MaxBytes)
	return c
}

// RunVerify checks a file against the registry's checksum.
func RunVerify(_ context.Context, o *Options) error {
	out := o.Out
	if o.Name == "" {
		if o.File == "" {
			return verifyAll(out, o.dir(), o.MaxBytes)
		}
		return identify(out, o.File, o.MaxBytes)
	}
	e, err := o.lookup("verify")
	if err != nil {
		return err
	}
	path := cmp.Or(o.File, filepath.Join(o.dir(), e.File))
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return clierr.Bad("%s: no such file; run `membench datasets fetch %s` or pass --file F", path, e.Name)
	}
	r, err := core.Verify(path, e, o.MaxBytes)
	if err != nil {
		return err
	}
	report(out, e, r)
	return nil
}

// verifyAll checks every registry entry installed in dir and names the
// ones that are not there. An absent dataset is no failure (most users
// fetch one or two); a copy that does not match is.
func verifyAll(out io.Writer, dir string, maxBytes int64) error {
	var absent, failed []string
	for _, e := range core.Registry {
		path := filepath.Join(dir, e.File)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			absent = append(absent, e.Name)
			continue
		}
		r, err := core.Verify(path, e, maxBytes)
		if err != nil {
			fmt.Fprintf(out, "%s: FAILED  %s  %v\n", e.Name, path, err)
			failed = append(failed, e.Name)
			continue
		}
		report(out, e, r)
	}
	switch {
	case len(absent) == len(core.Registry):
		fmt.Fprintf(out, "no dataset installed in %s; fetch one with `membench datasets fetch NAME` (%s); the embedded sample needs none\n", dir, strings.Join(absent, ", "))
	case len(absent) > 0:
		fmt.Fprintf(out, "not installed in %s: %s (`membench datasets fetch NAME` installs one)\n", dir, strings.Join(absent, ", "))
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d installed dataset(s) do not match their checksum: %s; fetch them again with `membench datasets fetch NAME --force`", len(failed), strings.Join(failed, ", "))
	}
	return nil
}

// identify hashes a file with no name given and says which entry it is.
func identify(out io.Writer, file string, maxBytes int64) error {
	if _, err := os.Stat(file); err != nil {
		return clierr.Bad("--file %s: %v", file, err)
	}
	for _, e := range core.Registry {
		if e.SHA256 == "" {
			continue
		}
		if r, err := core.Verify(file, e, maxBytes); err == nil {
			report(out, e, r)
			return nil
		}
	}
	r, err := core.Verify(file, core.Entry{Name: "file"}, maxBytes)
	if err != nil {
		return err
	}
	return fmt.Errorf("%s (sha256 %s, %d bytes) matches no registry checksum; pass a NAME to compare against one entry", file, r.SHA256, r.Size)
}

func report(out io.Writer, e core.Entry, r *core.Result) {
	if r.Verified {
		fmt.Fprintf(out, "%s: ok  %s  sha256 %s  %d bytes\n", e.Name, r.Path, r.SHA256, r.Size)
		return
	}
	if r.Status == core.Recorded {
		fmt.Fprintf(out, "%s: ok  %s  sha256 %s  %d bytes (%s; no published checksum)\n", e.Name, r.Path, r.SHA256, r.Size, core.Recorded)
		return
	}
	note := "not verified"
	if core.ReadRecord(r.Path) == r.SHA256 {
		note += "; sha256 recorded in " + core.RecordPath(r.Path)
	}
	fmt.Fprintf(out, "%s: %s  %s  sha256 %s  %d bytes (%s)\n", e.Name, r.Status, r.Path, r.SHA256, r.Size, note)
}

func synthCmd() *cobra.Command {
	var shape, out string
	var n int
	var seed uint64
	c := &cobra.Command{
		Use:   "synth --shape SHAPE --questions N --seed S --out FILE",
		Short: "Write a SYNTHETIC file in a real dataset's schema, for scale tests",
		Long: "Writes a generated file in the schema of LongMemEval S or M (50 or 500 sessions of 10 turns\n" +
			"per question) or LoCoMo (20 sessions of 16 turns, 20 questions per conversation). The text\n" +
			"comes from small word lists: the file measures memory, speed and plumbing, never model\n" +
			"quality. Its results are not benchmark results; keep them apart from real runs.",
		Example: "  membench datasets synth --shape locomo --questions 20 --seed 1 --out /tmp/synth-locomo.json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sh, ok := synth.Lookup(shape)
			if !ok {
				return clierr.Bad("--shape %q: use one of %s", shape, strings.Join(synth.Names(), ", "))
			}
			if n <= 0 {
				return clierr.Bad("--questions %d: give a positive number of questions", n)
			}
			if out == "" {
				return clierr.Bad("--out: name the file to write")
			}
			tmp := out + ".tmp"
			f, err := os.Create(tmp)
			if err != nil {
				return clierr.Bad("--out %s: %v", out, err)
			}
			if err := synth.Write(f, sh, n, seed); err != nil {
				f.Close()
				os.Remove(tmp)
				return err
			}
			if err := f.Close(); err != nil {
				os.Remove(tmp)
				return err
			}
			if err := os.Rename(tmp, out); err != nil {
				return err
			}
			st, _ := os.Stat(out)
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: SYNTHETIC %s-shaped file, %d questions, seed %d, %s; run it with --dataset %s --data %s\n",
				out, sh.Name, n, seed, humanBytes(st.Size()), sh.Dataset, out)
			return nil
		},
	}
	c.Flags().StringVar(&shape, "shape", "", "layout: "+strings.Join(synth.Names(), ", "))
	cliflag.Int(c, &n, "questions", 10, 1, synth.MaxQuestions, "number of questions")
	cliflag.Uint64(c, &seed, "seed", 1, "random seed (same seed, same bytes)")
	c.Flags().StringVar(&out, "out", "", "file to write")
	return c
}
