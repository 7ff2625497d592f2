package cliflag

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/clierr"
)

// --exclude-group takes group names ("none" for none); its first use
// replaces the default, later ones add to it.
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
	} {
		got, err := parse(tc.args...)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%v: %v (%v), want %v", tc.args, got, err, tc.want)
		}
	}
	for _, bad := range [][]string{{"--exclude-group", "a,,b"}, {"--exclude-group", ","}} {
		if _, err := parse(bad...); err == nil || clierr.Code(err) != 2 || !strings.Contains(err.Error(), "give ") {
			t.Errorf("%v: %v, want a bad-input error saying what to give", bad, err)
		}
	}
}
