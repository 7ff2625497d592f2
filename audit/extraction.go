package audit

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"
)

// Files an audit writes into the run directory.
const (
	ExtractionFile   = "audit_extraction.jsonl"
	ExtractionReport = "audit_extraction.md"
	LinksFile        = "audit_links.jsonl"
	LinksReport      = "audit_links.md"
)

// extractionItems lists every entry of the dump with its judge input.
func extractionItems(dir string, mems []memory) ([]item, error) {
	var items []item
	for _, s := range mems {
		for _, e := range s.Entries {
			if e.SourceText == "" {
				return nil, inputErr("%s: conversation %s, entry %s has no source_text; re-run the build with this membench version", filepath.Join(dir, runlog.MemoryFile), s.ConversationID, e.ID)
			}
			items = append(items, item{conv: s.ConversationID, id: e.ID, inputs: ExtractionInput{
				Speakers: s.Speakers, Speaker: e.Speaker, Kind: e.Kind,
				Date: dateLabel(e.Time), Source: e.SourceText, Entry: e.Text,
			}})
		}
	}
	return items, nil
}

// Extraction audits the entries of dir/memory.jsonl: each judge decides
// whether each entry's source utterance supports it. Verdicts are appended
// to dir/audit_extraction.jsonl (pairs already there are not asked again)
// and the table is written to dir/audit_extraction.md.
func Extraction(ctx context.Context, dir string, opts Options) (*Result, error) {
	return run(ctx, kindExtraction, []string{dir}, opts)
}

// newResult tallies the verdicts recs on the audited items (of all) into
// the result of kind k over runs.
func newResult(k kind, runs []string, opts Options, audited, all []item, recs map[string]Record, resumed int, usage []membench.Tally) *Result {
	r := &Result{Kind: k.name, Runs: runs, Items: len(audited), Total: len(all), Resumed: resumed, Usage: usage, Offline: true,
		Unit: linkUnit(all), Rows: tally(sortGroups(audited), opts.Judges, recs)}
	if opts.Sample > 0 && opts.Sample < len(all) {
		r.Sample, r.Seed = opts.Sample, opts.Seed
	}
	for _, j := range opts.Judges {
		r.Judges = append(r.Judges, j.Name)
		if j.Model.ID().Backend != "offline" {
			r.Offline = false
		}
	}
	return r
}

func writeReport(path string, r *Result) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# StructMem %s audit\n\nRuns: %v\n\n", r.Kind, r.Runs)
	if err := r.Table().Markdown(&b); err != nil {
		return err
	}
	return runlog.WriteFileAtomic(path, b.Bytes())
}

// dateLabel is the human date an extraction prompt shows ("8 May 2023"),
// as structmem's own prompts write it; empty when undated.
func dateLabel(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2 January 2006")
}
