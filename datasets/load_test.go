package datasets_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/datasets"
	_ "github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/datasets/longmemeval"
	"github.com/membench/membench/datasets/sample"
)

func TestLoadDispatch(t *testing.T) {
	home := t.TempDir()
	// The environment must not matter: the home comes in LoadOptions.
	t.Setenv("MEMBENCH_HOME", t.TempDir())
	at := datasets.LoadOptions{Home: home}

	ds, err := datasets.Load("sample", "", datasets.LoadOptions{})
	if err != nil || ds.Name != "sample" {
		t.Fatalf("sample: %v", err)
	}
	if _, err := datasets.Load("sample", "x.json", datasets.LoadOptions{}); err == nil {
		t.Error("sample with a file should be refused")
	}
	_, err = datasets.Load("nope", "", datasets.LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "locomo, longmemeval, ") || !strings.Contains(err.Error(), "sample") {
		t.Errorf("unknown name error %v should list known names", err)
	}
	_, err = datasets.Load("locomo", "", at)
	want := filepath.Join(home, "datasets", "locomo10.json")
	if err == nil || !strings.Contains(err.Error(), "membench datasets fetch locomo") || !strings.Contains(err.Error(), "--data FILE") || !strings.Contains(err.Error(), want) {
		t.Errorf("missing default error: %v", err)
	}
	if _, err := datasets.Load("longmemeval", "", at); err == nil || !strings.Contains(err.Error(), "fetch longmemeval-s") {
		t.Errorf("missing longmemeval error: %v", err)
	}

	// A file at the default path is found without --data.
	if err := os.MkdirAll(filepath.Join(home, "datasets"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(want, sampleJSON(t), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err = datasets.Load("locomo", "", at)
	if err != nil || ds.Name != "locomo" || ds.Source != want || len(ds.Conversations) != 1 {
		t.Fatalf("default path load: %v %+v", err, ds)
	}
	ds, err = datasets.Load("longmemeval", filepath.Join("testdata", "longmemeval_mini.json"), datasets.LoadOptions{})
	if err != nil || len(ds.Conversations) != 3 {
		t.Fatalf("explicit longmemeval: %v", err)
	}
}

func TestDefaultPath(t *testing.T) {
	if got := datasets.DefaultPath("/mb", "locomo"); got != filepath.FromSlash("/mb/datasets/locomo10.json") {
		t.Errorf("locomo -> %s", got)
	}
	if got := datasets.DefaultPath("/mb", "longmemeval"); got != datasets.DefaultPath("/mb", "longmemeval-s") || !strings.HasSuffix(got, "longmemeval_s_cleaned.json") {
		t.Errorf("longmemeval -> %s", got)
	}
	t.Setenv("HOME", "/home/u")
	if got := datasets.DefaultDir(""); got != filepath.FromSlash("/home/u/.cache/membench/datasets") {
		t.Errorf("DefaultDir without MEMBENCH_HOME = %s", got)
	}
}

func twoConvs(t *testing.T) *datasets.Dataset {
	t.Helper()
	ds, err := longmemeval.Load(filepath.Join("testdata", "longmemeval_mini.json"), datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestFilter(t *testing.T) {
	ds := twoConvs(t)
	got, err := ds.Filter([]string{"q_pref_1_abs", "q_pref_1"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Conversations) != 2 || got.Conversations[0].ID != "q_pref_1" || got.Conversations[1].ID != "q_pref_1_abs" {
		t.Errorf("filter kept %v", ids(got))
	}
	if got.SHA256 != ds.SHA256 || len(ds.Conversations) != 3 {
		t.Error("filter changed the original or lost the hash")
	}
	got, err = ds.Filter(nil, 2)
	if err != nil || len(got.Questions()) != 2 || len(got.Conversations) != 2 {
		t.Errorf("limit 2: %v %v", err, ids(got))
	}
	_, err = ds.Filter([]string{"conv-99", "q_pref_1"}, 0)
	if err == nil || !strings.Contains(err.Error(), "conv-99") || !strings.Contains(err.Error(), "q_count_2") {
		t.Errorf("unknown id error %v should name it and the known ids", err)
	}
	if _, err := ds.Filter(nil, -1); err == nil {
		t.Error("negative limit accepted")
	}

	// Limit inside one conversation trims its questions without touching the original.
	s, _ := sample.Load(datasets.LoadOptions{})
	one, err := s.Filter([]string{"sample-1"}, 5)
	if err != nil || len(one.Questions()) != 5 || len(s.Questions()) < 15 {
		t.Errorf("sample limit: %v %d/%d", err, len(one.Questions()), len(s.Questions()))
	}
}

func ids(d *datasets.Dataset) []string {
	var out []string
	for _, c := range d.Conversations {
		out = append(out, c.ID)
	}
	return out
}

func TestLoadRegistryNameSaysHowToRun(t *testing.T) {
	_, err := datasets.Load("longmemeval-oracle", "", datasets.LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "--dataset longmemeval --data") {
		t.Fatalf("want a hint to use --dataset longmemeval --data, got %v", err)
	}
}
