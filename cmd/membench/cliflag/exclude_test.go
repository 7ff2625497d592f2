package cliflag

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/clierr"
)

// --exclude-group takes group names ("none" for none) and the deprecated
// --exclude-category LoCoMo's numbers; both write one list, whose default
// the first use of either replaces.
func TestExcludeGroups(t *testing.T) {
	parse := func(args ...string) ([]string, error) {
		c := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		var got []string
		ExcludeGroups(c, &got, []string{"abstention"}, "")
		c.SetArgs(args)
		err := c.Execute()
		return got, err
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"abstention"}},
		{[]string{"--exclude-group", "none"}, []string{}},
		{[]string{"--exclude-group", "temporal, cue", "--exclude-group", "abstention"}, []string{"temporal", "cue", "abstention"}},
		{[]string{"--exclude-category", "0"}, []string{}},
		{[]string{"--exclude-category", "5"}, []string{"abstention"}},
		{[]string{"--exclude-category", "2,4"}, []string{"temporal", "single-hop"}},
		{[]string{"--exclude-category", "1", "--exclude-group", "cue"}, []string{"multi-hop", "cue"}},
	} {
		got, err := parse(tc.args...)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%v: %v (%v), want %v", tc.args, got, err, tc.want)
		}
	}
	for _, bad := range [][]string{{"--exclude-group", "a,,b"}, {"--exclude-category", "6"}, {"--exclude-category", "x"}} {
		if _, err := parse(bad...); err == nil || clierr.Code(err) != 2 || !strings.Contains(err.Error(), "give ") {
			t.Errorf("%v: %v, want a bad-input error saying what to give", bad, err)
		}
	}
}
