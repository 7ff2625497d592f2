// Command peers converts other systems' published per-question results
// into membench run directories (judgments.jsonl, answers.jsonl,
// predictions.jsonl) and checks the published accuracies against them.
//
//	go run ./scripts/peers --in ../shared/peers --data ../shared/datasets/locomo10.json --out results/peers
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/study/peers"
)

func main() {
	in := flag.String("in", "../shared/peers", "directory holding the peers' folders (zep/, memobase/, ...)")
	data := flag.String("data", "../shared/datasets/locomo10.json", "LoCoMo file to match questions against")
	lme := flag.String("lme-data", "", "LongMemEval file to check LongMemEval ids against (optional)")
	out := flag.String("out", "results/peers", "output directory; each system gets OUT/<system>/")
	var only multi
	flag.Var(&only, "only", "convert only this system (repeatable), e.g. zep, memobase-v0.0.37")
	format := flag.String("format", "", "convert one custom file set instead: zep, memobase, backboard, core, longmemeval")
	files := flag.String("files", "", "with --format: glob of the files, relative to --in")
	system := flag.String("system", "", "with --format: system name (with version)")
	flag.Parse()

	srcs := peers.Known()
	if *format != "" {
		if *files == "" || *system == "" {
			fail("--format needs --files GLOB and --system NAME")
		}
		ds := "locomo"
		if *format == string(peers.FormatLongMemEval) {
			ds = "longmemeval"
		}
		srcs = []peers.Source{{System: *system, Format: peers.Format(*format), Glob: *files, Dataset: ds}}
	}
	if len(only) > 0 {
		srcs = slices.DeleteFunc(srcs, func(s peers.Source) bool { return !slices.Contains(only, s.System) })
		if len(srcs) == 0 {
			fail(fmt.Sprintf("--only %v names no known system; known: %s", only, knownNames()))
		}
	}
	loco, err := datasets.Load("locomo", *data, datasets.LoadOptions{})
	if err != nil {
		fail(fmt.Sprintf("--data: %v", err))
	}
	var lmeDS *datasets.Dataset
	if *lme != "" {
		if lmeDS, err = datasets.Load("longmemeval", *lme, datasets.LoadOptions{}); err != nil {
			fail(fmt.Sprintf("--lme-data: %v", err))
		}
	}
	var rows []string
	for _, s := range srcs {
		items, fs, err := peers.LoadFiles(s.Format, *in, s.Glob)
		if err != nil {
			fail(fmt.Sprintf("%s: %v", s.System, err))
		}
		var ms []peers.Matched
		var rep peers.MatchReport
		src := loco.Source
		switch {
		case s.Dataset == "locomo":
			ms, rep = peers.Match(items, loco)
		case lmeDS != nil:
			ms, rep = peers.Match(items, lmeDS)
			src = lmeDS.Source
		default:
			ms = peers.Unchecked(items)
			rep = peers.MatchReport{Items: len(items)}
			src = "unchecked (no --lme-data)"
		}
		dir := filepath.Join(*out, s.System)
		if err := peers.WriteRun(dir, s.System, s.Dataset, src, ms, rep); err != nil {
			fail(fmt.Sprintf("%s: write %s: %v", s.System, dir, err))
		}
		if s.Dataset != "locomo" && lmeDS == nil {
			fmt.Printf("%s: %d files, %d items, ids not checked (no --lme-data), ungraded %d -> %s\n", s.System, len(fs), len(items), countUngraded(items), dir)
		} else {
			fmt.Printf("%s: %d files, %d items, matched %d (%d after normalising text), unmatched %d, category mismatches %d, ungraded %d -> %s\n",
				s.System, len(fs), rep.Items, rep.Matched, rep.Normalized, rep.Unmatched, rep.CategoryMismatch, rep.Ungraded, dir)
		}
		for _, u := range rep.UnmatchedSample {
			fmt.Printf("  unmatched: %s\n", u)
		}
		for _, u := range rep.MismatchSample {
			fmt.Printf("  category: %s\n", u)
		}
		if s.Dataset == "locomo" {
			overall, by := peers.Accuracy(ms, []int{1, 2, 3, 4})
			rows = append(rows, locomoRow(s, overall, by))
		} else {
			overall, _ := peers.Accuracy(ms, nil)
			rows = append(rows, lmeRow(s, overall, ms))
		}
	}
	fmt.Println()
	fmt.Println("| system | n (cat 1-4) | overall: ours / published | multi-hop (1) | temporal (2) | open-domain (3) | single-hop (4) |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Println(r)
	}
}

func locomoRow(s peers.Source, overall peers.Tally, by map[int]peers.Tally) string {
	cell := func(ours float64, pub float64, has bool) string {
		if !has {
			return fmt.Sprintf("%.2f / -", ours)
		}
		return fmt.Sprintf("%.2f / %.2f (%+.2f)", ours, pub, ours-pub)
	}
	var pubO float64
	var pubC map[int]float64
	if s.Published != nil {
		pubO, pubC = s.Published.Overall, s.Published.ByCategory
	}
	cols := []string{s.System, fmt.Sprintf("%d/%d", overall.Correct, overall.N), cell(overall.Pct(), pubO, s.Published != nil)}
	for c := 1; c <= 4; c++ {
		p, ok := pubC[c]
		cols = append(cols, cell(by[c].Pct(), p, ok))
	}
	return "| " + strings.Join(cols, " | ") + " |"
}

// lmeRow also gives the count with only a lowercase "yes" as correct, which
// is how the lugmans report counted.
func lmeRow(s peers.Source, overall peers.Tally, ms []peers.Matched) string {
	strict := 0
	for _, m := range ms {
		if m.Raw == "yes" {
			strict++
		}
	}
	pub := "-"
	if s.Published != nil {
		pub = fmt.Sprintf("%.2f (%+.2f)", s.Published.Overall, overall.Pct()-s.Published.Overall)
	}
	return fmt.Sprintf("| %s (LongMemEval) | %d/%d | %.2f / %s; lowercase-only: %.2f | | | | |", s.System, overall.Correct, overall.N, overall.Pct(), pub,
		peers.Tally{Correct: strict, N: overall.N}.Pct())
}

func countUngraded(items []peers.Item) int {
	n := 0
	for _, it := range items {
		if !it.Graded {
			n++
		}
	}
	return n
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func knownNames() string {
	var n []string
	for _, s := range peers.Known() {
		n = append(n, s.System)
	}
	return strings.Join(n, ", ")
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "peers:", msg)
	os.Exit(2)
}
