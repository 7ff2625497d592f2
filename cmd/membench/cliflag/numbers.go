package cliflag

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/membench/membench"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/datasets"
)

// Every numeric flag is registered through the functions below, with the
// range its value may take: a value outside it, NaN, an infinity or a
// number too large to hold is refused while the flags are parsed, so the
// command exits 2 naming the flag before it does any work. The values'
// types keep pflag's names, so help reads as before.

// Bounded is a numeric flag value with a range (tests walk every command's
// flags and find them by this interface).
type Bounded interface {
	// Range is the accepted range as the error message prints it.
	Range() string
	// Outside lists values the flag must refuse: NaN and infinities where
	// they parse, and the nearest values past each end.
	Outside() []string
}

// Float64 registers --name, a finite float from lo to hi.
func Float64(c *cobra.Command, dst *float64, name string, def, lo, hi float64, usage string) {
	register(c, dst, name, def, lo, hi, usage)
}

// Int registers --name, a whole number from lo to hi.
func Int(c *cobra.Command, dst *int, name string, def, lo, hi int, usage string) {
	register(c, dst, name, def, lo, hi, usage)
}

// Uint64 registers --name, any whole number from 0 to 2^64-1 (seeds).
func Uint64(c *cobra.Command, dst *uint64, name string, def uint64, usage string) {
	register(c, dst, name, def, 0, math.MaxUint64, usage)
}

// Duration registers --name, a duration from lo to hi.
func Duration(c *cobra.Command, dst *time.Duration, name string, def, lo, hi time.Duration, usage string) {
	register(c, dst, name, def, lo, hi, usage)
}

// Size registers --name, a size in bytes from lo to hi, written as bytes
// or with a unit ("4GiB", "500MB"; datasets.ParseByteSize).
func Size(c *cobra.Command, dst *int64, name string, def, lo, hi int64, usage string) {
	register(c, dst, name, def, lo, hi, usage)
}

func register[T number](c *cobra.Command, dst *T, name string, def, lo, hi T, usage string) {
	*dst = def
	c.Flags().Var(&bounded[T]{dst, lo, hi}, name, usage)
}

// errRange says what the flag takes; pflag puts the flag's name and the
// value given in front of it, and keeps it reachable, so the command
// exits 2 on it even where no root command marks flag errors as bad input.
func errRange(r string) error { return clierr.Bad("give %s", r) }

// number is what a bounded flag holds: int64 is a size in bytes.
type number interface {
	int | int64 | uint64 | float64 | time.Duration
}

// bounded is a numeric flag value refused outside lo..hi.
type bounded[T number] struct {
	dst    *T
	lo, hi T
}

// kind is how one type of bounded value is read and written.
type kind[T number] struct {
	typ     string // pflag's name for the type, shown in help
	noun    string // "a number": what Range says the flag takes
	notA    string // what a value that does not parse is told it is not ("": only the range)
	parse   func(string) (T, error)
	format  func(T) string
	outside func(lo, hi T) []string
}

func kindOf[T number]() kind[T] {
	var k any
	switch any(*new(T)).(type) {
	case float64:
		k = floatKind
	case int:
		k = intKind
	case uint64:
		k = uintKind
	case time.Duration:
		k = durationKind
	case int64:
		k = sizeKind
	}
	return k.(kind[T])
}

func (v *bounded[T]) Set(s string) error {
	k := kindOf[T]()
	n, err := k.parse(strings.TrimSpace(s))
	if err != nil && !errors.Is(err, strconv.ErrRange) && k.notA != "" {
		return fmt.Errorf("%s; %w", k.notA, errRange(v.Range()))
	}
	if err != nil || n < v.lo || n > v.hi {
		return errRange(v.Range())
	}
	*v.dst = n
	return nil
}

func (v *bounded[T]) String() string {
	if v.dst == nil {
		return kindOf[T]().format(0)
	}
	return kindOf[T]().format(*v.dst)
}

func (v *bounded[T]) Type() string { return kindOf[T]().typ }

func (v *bounded[T]) Range() string {
	k := kindOf[T]()
	return k.noun + " from " + k.format(v.lo) + " to " + k.format(v.hi)
}

func (v *bounded[T]) Outside() []string { return kindOf[T]().outside(v.lo, v.hi) }

var floatKind = kind[float64]{
	typ: "float64", noun: "a number", notA: "not a number",
	parse: func(s string) (float64, error) {
		f, err := strconv.ParseFloat(s, 64)
		if err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
			err = strconv.ErrRange // refused whatever the range
		}
		return f, err
	},
	format: fmtFloat,
	outside: func(lo, hi float64) []string {
		return []string{"NaN", "nan", "Inf", "+Inf", "-Inf", "infinity", "1e999", "-1e999",
			fmtFloat(math.Nextafter(lo, math.Inf(-1))), fmtFloat(math.Nextafter(hi, math.Inf(1)))}
	},
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

var intKind = kind[int]{
	typ: "int", noun: "a whole number", notA: "not a whole number",
	parse: func(s string) (int, error) {
		n, err := strconv.ParseInt(s, 0, 64)
		return int(n), err
	},
	format: strconv.Itoa,
	outside: func(lo, hi int) []string {
		out := []string{"NaN", "Inf", "1.5", "99999999999999999999", "-99999999999999999999"}
		if lo > math.MinInt {
			out = append(out, strconv.Itoa(lo-1))
		}
		if hi < math.MaxInt {
			out = append(out, strconv.Itoa(hi+1))
		}
		return out
	},
}

var uintKind = kind[uint64]{
	typ: "uint64", noun: "a whole number",
	parse:  func(s string) (uint64, error) { return strconv.ParseUint(s, 0, 64) },
	format: func(n uint64) string { return strconv.FormatUint(n, 10) },
	outside: func(_, _ uint64) []string {
		return []string{"NaN", "Inf", "-1", "1.5", "18446744073709551616"}
	},
}

var durationKind = kind[time.Duration]{
	typ: "duration", noun: "a duration", notA: "not a duration such as 30s",
	parse:  time.ParseDuration,
	format: time.Duration.String,
	outside: func(lo, hi time.Duration) []string {
		out := []string{"NaN", "Inf", "1", "99999999999h"}
		if lo > math.MinInt64 {
			out = append(out, (lo - 1).String())
		}
		if hi < math.MaxInt64 {
			out = append(out, (hi + 1).String())
		}
		return out
	},
}

var sizeKind = kind[int64]{
	typ: "size", noun: "a size", notA: "not a size such as 4GiB",
	parse:  datasets.ParseByteSize,
	format: datasets.ByteSize,
	outside: func(lo, hi int64) []string {
		return []string{"NaN", "Inf", "-1", "4 parsecs", datasets.ByteSize(lo - 1), strconv.FormatInt(hi+1, 10)}
	},
}

// Concurrency registers --concurrency N, from 1 to MaxConcurrency, the
// same on every command with the run config's default: 0 would start no
// worker, so it is refused rather than read as the default.
func Concurrency(c *cobra.Command, dst *int, usage string) {
	Int(c, dst, "concurrency", membench.Config{}.WithDefaults().Concurrency, 1, MaxConcurrency, usage)
}

// MaxConcurrency bounds every --concurrency, MaxK every retrieval budget
// (--k, --reference-k): the run config's own bounds.
const (
	MaxConcurrency = membench.MaxConcurrency
	MaxK           = membench.MaxK
)
