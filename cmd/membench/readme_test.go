package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench/internal/testutil"
)

// walkedDocs are the files whose ```sh blocks TestReadmeExamplesRun runs,
// in this order, in one copy of the repository: the README, then the docs
// that took commands over from it (docs/testing.md lists them for readers).
var walkedDocs = []string{"README.md", "docs/datasets.md", "docs/models.md", "docs/bundles.md", "docs/testing.md"}

// readmeCommand is one command of a ```sh block of a walked file.
type readmeCommand struct {
	file    string // the file, relative to the repository
	line    int    // line it starts on
	cmd     string // continuation lines joined
	comment string // its trailing comment, or the comment heading its block
	block   int    // which sh block of its file it is in
}

// trailingComment splits "cmd   # comment" (a # after whitespace).
var trailingComment = regexp.MustCompile(`\s+#\s?(.*)$`)

// readmeCommands reads every command of the README's sh blocks. A
// comment line that starts with "needs" applies to the commands below it
// in its block.
func readmeCommands(t *testing.T, readme []byte) []readmeCommand {
	t.Helper()
	var out []readmeCommand
	in, blockComment, block := false, "", 0
	var cur *readmeCommand
	sc := bufio.NewScanner(bytes.NewReader(readme))
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case !in && strings.HasPrefix(l, "```sh"):
			in, blockComment = true, ""
			block++
			continue
		case in && strings.HasPrefix(l, "```"):
			in = false
			continue
		case !in:
			continue
		}
		trim := strings.TrimSpace(l)
		if cur == nil {
			if trim == "" {
				continue
			}
			if strings.HasPrefix(trim, "#") {
				if c := strings.TrimSpace(strings.TrimPrefix(trim, "#")); strings.HasPrefix(c, "needs") {
					blockComment = c
				}
				continue
			}
			cur = &readmeCommand{line: n, block: block}
		} else {
			cur.cmd += " "
		}
		cont := strings.HasSuffix(trim, `\`)
		cur.cmd += strings.TrimSpace(strings.TrimSuffix(trim, `\`))
		if cont {
			continue
		}
		if m := trailingComment.FindStringSubmatchIndex(cur.cmd); m != nil {
			cur.comment = strings.TrimSpace(cur.cmd[m[2]:m[3]])
			cur.cmd = cur.cmd[:m[0]]
		}
		if blockComment != "" {
			cur.comment = blockComment
		}
		out, cur = append(out, *cur), nil
	}
	return out
}

// copyTree copies the repository's files (tracked and untracked, not
// ignored: what a fresh clone plus your edits holds) into dst.
func copyTree(t *testing.T, root, dst string) {
	t.Helper()
	ls, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("git ls-files in %s: %v (the README test copies the repository's files)", root, err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(ls), "\x00"), "\x00") {
		src := filepath.Join(root, f)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the worktree, or a symlink
		}
		to := filepath.Join(dst, f)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		in, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		o, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, st.Mode().Perm())
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(o, in)
		in.Close()
		if cerr := o.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Every command of the walked files' sh blocks runs as written, in order,
// in a fresh copy of the repository: the rule the README states and
// docs/testing.md spells out. The whole list runs twice in a row (a user
// following it again), and then the copy is as git had it: every file the
// commands wrote is under an ignored folder, so a later `go test` there
// (this test's own copy of the tree included) sees the checkout as it was.
func TestReadmeExamplesRun(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	var cmds []readmeCommand
	for _, f := range walkedDocs {
		doc, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		fc := readmeCommands(t, doc)
		for i := range fc {
			fc[i].file = f
		}
		cmds = append(cmds, fc...)
	}
	base := t.TempDir()
	repo, home, path := filepath.Join(base, "membench"), filepath.Join(base, "home"), filepath.Join(base, "bin")
	copyTree(t, root, repo)
	gitIn := func(args ...string) string {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=readme", "-c", "user.email=readme@test", "-c", "commit.gpgsign=false"}, args...)...)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	gitIn("init", "-q")
	gitIn("add", "-A")
	gitIn("commit", "-q", "-m", "the tree as copied")
	for _, d := range []string{home, path} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(bin, filepath.Join(path, "membench")); err != nil {
		t.Fatal(err)
	}
	// The shared data sit beside the clone here (../shared), as the README
	// assumes; elsewhere the commands that read them are skipped.
	shared := ""
	if s := filepath.Join(filepath.Dir(root), "shared"); dirExists(s) {
		shared = s
	} else if dirExists("/work/shared") {
		shared = "/work/shared"
	}
	if shared != "" {
		if err := os.Symlink(shared, filepath.Join(base, "shared")); err != nil {
			t.Fatal(err)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "MEMBENCH_") || strings.HasPrefix(k, "OPENAI_") || k == "HOME" || k == "PATH" || k == "CI" || k == "XDG_CACHE_HOME" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "PATH="+path+string(os.PathListSeparator)+os.Getenv("PATH"))
	// A block is one walk through shared data: without them its every
	// command is skipped, as later ones build on what the first one read.
	type blockKey struct {
		file  string
		block int
	}
	readsShared := map[blockKey]bool{}
	for _, c := range cmds {
		if strings.Contains(c.cmd, "../shared/") {
			readsShared[blockKey{c.file, c.block}] = true
		}
	}
	ran := 0
	for pass := 1; pass <= 2; pass++ {
		for _, c := range cmds {
			switch {
			case strings.HasPrefix(c.comment, "needs"):
				if pass == 2 {
					continue
				}
				t.Logf("%s:%d skipped (%s): %s", c.file, c.line, c.comment, c.cmd)
				continue
			case readsShared[blockKey{c.file, c.block}] && shared == "":
				if pass == 2 {
					continue
				}
				t.Logf("%s:%d skipped (no shared data beside the clone): %s", c.file, c.line, c.cmd)
				continue
			case c.cmd == "go install ./cmd/membench":
				if pass == 1 {
					t.Logf("%s:%d done already: the binary this test built is on PATH as membench", c.file, c.line)
				}
				continue
			}
			// `go run ./cmd/membench` is the binary this test built.
			line := strings.ReplaceAll(c.cmd, "go run ./cmd/membench", "membench")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			cmd := exec.CommandContext(ctx, "bash", "-c", line)
			cmd.Dir, cmd.Env = repo, env
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Fatalf("%s:%d %s (pass %d)\nexit: %v\n%s", c.file, c.line, c.cmd, pass, err, out)
			}
			ran++
		}
	}
	ran /= 2
	if st := gitIn("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("the walked docs' commands left files git sees (write them under results/ or a temp dir):\n%s", st)
	}
	// The rule must leave real work to check.
	if ran < 10 {
		t.Fatalf("only %d commands ran; the skip rule is too wide", ran)
	}
	t.Logf("%d commands of %s ran, %d skipped", ran, strings.Join(walkedDocs, ", "), len(cmds)-ran)
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// The parser: continuation lines join, trailing and heading "needs"
// comments are kept, and nothing outside sh blocks is read.
func TestReadmeCommandsParse(t *testing.T) {
	t.Parallel()
	src := "text\n```sh\n# needs a key: all\nexport K=1\n```\n```sh\nmembench run \\\n  --system x   # a note\n# a plain comment\nmembench view --run A   # needs Ctrl-C\n```\n```go\nnot sh\n```\n"
	got := readmeCommands(t, []byte(src))
	if len(got) != 3 {
		t.Fatalf("got %+v", got)
	}
	if got[0].cmd != "export K=1" || got[0].comment != "needs a key: all" {
		t.Errorf("block comment: %+v", got[0])
	}
	if got[1].cmd != "membench run --system x" || got[1].comment != "a note" || got[1].line != 7 {
		t.Errorf("continuation: %+v", got[1])
	}
	if got[2].comment != "needs Ctrl-C" {
		t.Errorf("trailing needs: %+v", got[2])
	}
}

// A reader meets `go install` before the first bare `membench` command
// (issue 37: the quick start once ran `membench version` first).
func TestReadmeInstallsFirst(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range readmeCommands(t, readme) {
		if c.cmd == "go install ./cmd/membench" {
			return
		}
		if regexp.MustCompile(`(^|[;&|(]\s*)membench\b`).MatchString(c.cmd) {
			t.Fatalf("README:%d runs membench before `go install ./cmd/membench`: %s", c.line, c.cmd)
		}
	}
	t.Fatal("README never says `go install ./cmd/membench`")
}
