package run

import (
	"reflect"
	"strings"

	"github.com/membench/membench"
)

// flagOf names the flag of a Config field whose flag is not its YAML key
// with - for _; "" marks a key with no flag of its own (model is set by
// --llm/--model, options by --opt, quiet goes to the log, not the file).
var flagOf = map[string]string{
	"judges":        "judge-spec",
	"results_dir":   "results",
	"model":         "",
	"options":       "",
	"quiet":         "",
	"paper_prompts": "",
}

// Merge lays the flag values in flags over the file's config in base,
// field by field, where use says the flag applies (set by the user, or no
// file given). Every Config field with a YAML key takes part, so a new
// setting needs only its field and its flag.
func Merge(base *membench.Config, flags membench.Config, use func(flag string) bool) {
	dst, src := reflect.ValueOf(base).Elem(), reflect.ValueOf(flags)
	for i := 0; i < dst.NumField(); i++ {
		key, _, _ := strings.Cut(dst.Type().Field(i).Tag.Get("yaml"), ",")
		if key == "" || key == "-" {
			continue
		}
		name, ok := flagOf[key]
		if !ok {
			name = strings.ReplaceAll(key, "_", "-")
		}
		if name != "" && use(name) {
			dst.Field(i).Set(src.Field(i))
		}
	}
}
