package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	root "github.com/membench/membench"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
)

// numericTypes are pflag's type names of numeric values.
var numericTypes = map[string]bool{
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"float32": true, "float64": true, "duration": true, "count": true,
	"intSlice": true, "int32Slice": true, "int64Slice": true, "uintSlice": true,
	"float32Slice": true, "float64Slice": true, "durationSlice": true,
}

// notYetBounded lists numeric flags kept out of this test, with why; each
// is a pflag builtin that accepts any value of its type.
var notYetBounded = map[string]string{
	"membench view --port": "cmd/membench/view is changed on another branch; it switches to cliflag.Int(…, 0, 65535)",
}

// Every numeric flag of every command is registered through cliflag with
// a range, and refuses NaN, infinities, numbers too large to hold and the
// nearest values past its range with exit 2 and a message naming it,
// while the flags are parsed (before the command does anything).
func TestNumericFlagsRefuseValuesOutsideTheirRange(t *testing.T) {
	t.Parallel()
	type flag struct{ path, name string }
	var bounded []flag
	eachCommand(newRoot(nil), func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			_, isBounded := f.Value.(cliflag.Bounded)
			if !numericTypes[f.Value.Type()] && !isBounded {
				return
			}
			id := c.CommandPath() + " --" + f.Name
			if !isBounded {
				if notYetBounded[id] == "" {
					t.Errorf("%s is a %s flag without a range; register it with cliflag.Int, Float64, Duration, Uint64 or Size", id, f.Value.Type())
				}
				return
			}
			bounded = append(bounded, flag{c.CommandPath(), f.Name})
		})
	})
	if len(bounded) < 15 {
		t.Fatalf("found only %d bounded numeric flags; is the walk reaching every command?", len(bounded))
	}
	for _, fl := range bounded {
		// A fresh root for each value: parsed flags keep their values.
		root := newRoot(nil)
		args := strings.Fields(fl.path)[1:]
		c, _, err := root.Find(args)
		if err != nil {
			t.Fatal(err)
		}
		f := c.Flags().Lookup(fl.name)
		for _, v := range f.Value.(cliflag.Bounded).Outside() {
			root := newRoot(nil)
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetArgs(append(append([]string{}, args...), "--"+fl.name+"="+v))
			err := root.ExecuteContext(context.Background())
			if clierr.Code(err) != 2 || !strings.Contains(err.Error(), "--"+fl.name) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s --%s=%s: %v (exit %d); want exit 2 and one line naming --%s", fl.path, fl.name, v, err, clierr.Code(err), fl.name)
			}
		}
	}
}

// A YAML config's numbers get the same checks as the flags.
func TestYAMLNumbersOutOfRangeExitTwo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ yaml, want string }{
		{"max_build_failures: .nan\n", "--max-build-failures"},
		{"max_build_failures: .inf\n", "--max-build-failures"},
		{"turn_step: 48h\n", "--turn-step"},
		{"concurrency: 1000000\n", "--concurrency"},
		{"system: flat\nconcurrency: 0\n", "c.yaml:2: concurrency: 0"}, // refused like --concurrency 0, not read as unset
	} {
		cfg := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(cfg, []byte(c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		out, code := membench(t, nil, "run", "--quiet", "--config", cfg, "--results", filepath.Join(dir, "r"))
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("config %q: exit %d, output %q; want exit 2 naming %s", c.yaml, code, clip(out), c.want)
		}
	}
	// A sweep file's run config is read the same way.
	sw := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(sw, []byte("system: flat\nconcurrency: 0\n---\ngrid:\n  k: [1, 2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := membench(t, nil, "sweep", "--quiet", "--config", sw, "--out", filepath.Join(dir, "sw")); code != 2 || !strings.Contains(out, "s.yaml:2: concurrency: 0") {
		t.Errorf("sweep: exit %d, output %q; want exit 2 naming s.yaml:2: concurrency: 0", code, clip(out))
	}
}

// Every --concurrency defaults to the run config's default, the one
// source of it.
func TestConcurrencyDefaultIsTheConfigs(t *testing.T) {
	want := strconv.Itoa(root.Config{}.WithDefaults().Concurrency)
	var seen int
	eachCommand(newRoot(nil), func(c *cobra.Command) {
		if fl := c.Flags().Lookup("concurrency"); fl != nil {
			seen++
			if fl.DefValue != want {
				t.Errorf("%s --concurrency defaults to %s; the config's default is %s", c.CommandPath(), fl.DefValue, want)
			}
		}
	})
	if seen < 4 {
		t.Fatalf("found --concurrency on %d commands; is the walk reaching every command?", seen)
	}
}

// --concurrency 0 would start no worker; every command that takes the
// flag refuses it in one line naming the flag and its range.
func TestConcurrencyZeroRefused(t *testing.T) {
	t.Parallel()
	var names []string
	var argv [][]string
	eachCommand(newRoot(nil), func(c *cobra.Command) {
		if c.Flags().Lookup("concurrency") != nil {
			name := strings.TrimPrefix(c.CommandPath(), "membench ")
			args := append(strings.Fields(name), "--concurrency", "0")
			if c.Flags().Lookup("results") != nil {
				// Should the value be taken, nothing is written here.
				args = append(args, "--results", t.TempDir())
			}
			names, argv = append(names, name), append(argv, args)
		}
	})
	for _, want := range []string{"run", "sweep", "judge", "audit judge"} {
		if !slices.Contains(names, want) {
			t.Fatalf("the walk found --concurrency on %q, not on %s", names, want)
		}
	}
	for _, args := range argv {
		out, code := membench(t, nil, args...)
		line := strings.TrimSpace(out)
		if code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, `"--concurrency"`) || !strings.Contains(line, "from 1 to 10000") {
			t.Errorf("membench %s: exit %d\n%s\nwant exit 2, one line naming --concurrency and 1 to 10000", strings.Join(args, " "), code, out)
		}
	}
	t.Logf("checked --concurrency 0 on: %s", strings.Join(names, ", "))
}
