package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/systems/structmem"
)

func runDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	at := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	s := structmem.Snapshot{System: "structmem", ConversationID: "conv-1", Speakers: []string{"Ana", "Ben"},
		Entries: []structmem.Entry{
			{ID: "e1", Kind: "factual", Text: "Ana adopted a greyhound named Biscuit.", Time: at, Event: "a", SourceText: "Ana: I adopted a greyhound, her name is Biscuit."},
			{ID: "e2", Kind: "factual", Text: "Ana bought a red sailboat in Lisbon.", Time: at, Event: "a", SourceText: "Ana: I adopted a greyhound, her name is Biscuit."},
		}}
	f, err := os.Create(filepath.Join(dir, "memory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := s.WriteJSONL(f); err != nil {
		t.Fatal(err)
	}
	return dir
}

func execute(args ...string) (string, error) {
	c := NewCmd()
	var out bytes.Buffer
	c.SetOut(&out)
	c.SetErr(&out)
	c.SetArgs(args)
	err := c.Execute()
	return out.String(), err
}

func TestExtractionCommand(t *testing.T) {
	dir := runDir(t)
	out, err := execute("extraction", "--run", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "50.00% (1/2) [") || !strings.Contains(out, "not a real model") {
		t.Errorf("output:\n%s", out)
	}
	out, err = execute("extraction", "--run", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Resumed int `json:"resumed"`
		Rows    []struct {
			Conversation string
			Cells        map[string]struct{ Unsupported, Judged int }
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Resumed != 2 || r.Rows[1].Cells["offline"].Unsupported != 1 {
		t.Errorf("json %s: %+v %v", out, r, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "audit_extraction.md")); err != nil {
		t.Error(err)
	}
}

func TestBadInputExitCode(t *testing.T) {
	for _, args := range [][]string{
		{"extraction"},
		{"extraction", "--run", t.TempDir()},
		{"links", "--run", t.TempDir()},
		{"extraction", "--run", runDir(t), "--audit-model", "name=x,colour=red"},
		{"extraction", "--run", runDir(t), "--sample", "-1"},
	} {
		_, err := execute(args...)
		if clierr.Code(err) != 2 {
			t.Errorf("%v: err %v, exit %d; want 2", args, err, clierr.Code(err))
		}
	}
}

func TestRunExtractionWithOptions(t *testing.T) {
	dir := runDir(t)
	var out bytes.Buffer
	o := &Options{Runs: []string{dir}, Concurrency: 1, NoCache: true, Out: &out}
	if err := RunExtraction(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "50.00% (1/2) [") || !strings.Contains(out.String(), "written: "+filepath.Join(dir, "audit_extraction.md")) {
		t.Errorf("output:\n%s", out.String())
	}
	o.Concurrency = 0
	if err := RunExtraction(context.Background(), o); clierr.Code(err) != 2 {
		t.Errorf("concurrency 0: err %v, want exit 2", err)
	}
	if err := RunLinks(context.Background(), &Options{Runs: []string{t.TempDir()}, Concurrency: 1, Out: &out}); clierr.Code(err) != 2 {
		t.Errorf("links without memory.jsonl: err %v, want exit 2", err)
	}
}
