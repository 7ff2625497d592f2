package run

import (
	"reflect"
	"strings"
	"testing"

	"github.com/membench/membench"
)

// Every run setting a YAML file can give has a flag of the name merge
// looks for, so adding a setting is its field and its flag.
func TestEveryConfigKeyHasItsFlag(t *testing.T) {
	flags := NewCmd().Flags()
	typ := reflect.TypeOf(membench.Config{})
	for i := 0; i < typ.NumField(); i++ {
		key, _, _ := strings.Cut(typ.Field(i).Tag.Get("yaml"), ",")
		if key == "" || key == "-" {
			continue
		}
		name, ok := flagOf[key]
		if !ok {
			name = strings.ReplaceAll(key, "_", "-")
		}
		if name != "" && flags.Lookup(name) == nil {
			t.Errorf("config key %s: no --%s flag; add one, or name its flag in flagOf", key, name)
		}
	}
}

// A flag the user set wins over the file; the file keeps the rest.
func TestMergeTakesSetFlagsOnly(t *testing.T) {
	file := membench.Config{K: 5, Concurrency: 2, Judges: []string{"f1"}, ResultsDir: "from-file"}
	flags := membench.Config{K: 9, Concurrency: 7, Judges: []string{"em"}, ResultsDir: "from-flag"}
	Merge(&file, flags, func(f string) bool { return f == "k" || f == "judge-spec" })
	want := membench.Config{K: 9, Concurrency: 2, Judges: []string{"em"}, ResultsDir: "from-file"}
	if !reflect.DeepEqual(file, want) {
		t.Errorf("merged %+v, want %+v", file, want)
	}
}
