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
	*dst = def
	c.Flags().Var(&floatValue{dst, lo, hi}, name, usage)
}

// Int registers --name, a whole number from lo to hi.
func Int(c *cobra.Command, dst *int, name string, def, lo, hi int, usage string) {
	*dst = def
	c.Flags().Var(&intValue{dst, lo, hi}, name, usage)
}

// Uint64 registers --name, any whole number from 0 to 2^64-1 (seeds).
func Uint64(c *cobra.Command, dst *uint64, name string, def uint64, usage string) {
	*dst = def
	c.Flags().Var(&uintValue{dst}, name, usage)
}

// Duration registers --name, a duration from lo to hi.
func Duration(c *cobra.Command, dst *time.Duration, name string, def, lo, hi time.Duration, usage string) {
	*dst = def
	c.Flags().Var(&durationValue{dst, lo, hi}, name, usage)
}

// Size registers --name, a size in bytes from lo to hi, written as bytes
// or with a unit ("4GiB", "500MB"; datasets.ParseByteSize).
func Size(c *cobra.Command, dst *int64, name string, def, lo, hi int64, usage string) {
	*dst = def
	c.Flags().Var(&sizeValue{dst, lo, hi}, name, usage)
}

// errRange says what the flag takes; pflag puts the flag's name and the
// value given in front of it, and keeps it reachable, so the command
// exits 2 on it even where no root command marks flag errors as bad input.
func errRange(r string) error { return clierr.Bad("give %s", r) }

type floatValue struct {
	dst    *float64
	lo, hi float64
}

func (v *floatValue) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("not a number; %w", errRange(v.Range()))
	}
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < v.lo || f > v.hi {
		return errRange(v.Range())
	}
	*v.dst = f
	return nil
}

func (v *floatValue) String() string {
	if v.dst == nil {
		return "0"
	}
	return strconv.FormatFloat(*v.dst, 'g', -1, 64)
}
func (v *floatValue) Type() string { return "float64" }
func (v *floatValue) Range() string {
	return "a number from " + fmtFloat(v.lo) + " to " + fmtFloat(v.hi)
}
func (v *floatValue) Outside() []string {
	return []string{"NaN", "nan", "Inf", "+Inf", "-Inf", "infinity", "1e999", "-1e999",
		fmtFloat(math.Nextafter(v.lo, math.Inf(-1))), fmtFloat(math.Nextafter(v.hi, math.Inf(1)))}
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

type intValue struct {
	dst    *int
	lo, hi int
}

func (v *intValue) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 0, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("not a whole number; %w", errRange(v.Range()))
	}
	if err != nil || n < int64(v.lo) || n > int64(v.hi) {
		return errRange(v.Range())
	}
	*v.dst = int(n)
	return nil
}

func (v *intValue) String() string {
	if v.dst == nil {
		return "0"
	}
	return strconv.Itoa(*v.dst)
}
func (v *intValue) Type() string  { return "int" }
func (v *intValue) Range() string { return fmt.Sprintf("a whole number from %d to %d", v.lo, v.hi) }
func (v *intValue) Outside() []string {
	out := []string{"NaN", "Inf", "1.5", "99999999999999999999", "-99999999999999999999"}
	if v.lo > math.MinInt {
		out = append(out, strconv.Itoa(v.lo-1))
	}
	if v.hi < math.MaxInt {
		out = append(out, strconv.Itoa(v.hi+1))
	}
	return out
}

type uintValue struct{ dst *uint64 }

func (v *uintValue) Set(s string) error {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 0, 64)
	if err != nil {
		return errRange(v.Range())
	}
	*v.dst = n
	return nil
}

func (v *uintValue) String() string {
	if v.dst == nil {
		return "0"
	}
	return strconv.FormatUint(*v.dst, 10)
}
func (v *uintValue) Type() string  { return "uint64" }
func (v *uintValue) Range() string { return "a whole number from 0 to 18446744073709551615" }
func (v *uintValue) Outside() []string {
	return []string{"NaN", "Inf", "-1", "1.5", "18446744073709551616"}
}

type durationValue struct {
	dst    *time.Duration
	lo, hi time.Duration
}

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("not a duration such as 30s; %w", errRange(v.Range()))
	}
	if d < v.lo || d > v.hi {
		return errRange(v.Range())
	}
	*v.dst = d
	return nil
}

func (v *durationValue) String() string {
	if v.dst == nil {
		return "0s"
	}
	return v.dst.String()
}
func (v *durationValue) Type() string { return "duration" }
func (v *durationValue) Range() string {
	return "a duration from " + v.lo.String() + " to " + v.hi.String()
}
func (v *durationValue) Outside() []string {
	out := []string{"NaN", "Inf", "1", "99999999999h"}
	if v.lo > math.MinInt64 {
		out = append(out, (v.lo - 1).String())
	}
	if v.hi < math.MaxInt64 {
		out = append(out, (v.hi + 1).String())
	}
	return out
}

// Concurrency registers --concurrency N, from 1 to MaxConcurrency
// (default 4), the same on every command: 0 would start no worker, so it
// is refused rather than read as the default.
func Concurrency(c *cobra.Command, dst *int, usage string) {
	Int(c, dst, "concurrency", 4, 1, MaxConcurrency, usage)
}

// MaxConcurrency bounds every --concurrency, MaxK every retrieval budget
// (--k, --reference-k): the run config's own bounds.
const (
	MaxConcurrency = membench.MaxConcurrency
	MaxK           = membench.MaxK
)

type sizeValue struct {
	dst    *int64
	lo, hi int64
}

func (v *sizeValue) Set(s string) error {
	n, err := datasets.ParseByteSize(s)
	if err != nil {
		return fmt.Errorf("not a size such as 4GiB; %w", errRange(v.Range()))
	}
	if n < v.lo || n > v.hi {
		return errRange(v.Range())
	}
	*v.dst = n
	return nil
}

func (v *sizeValue) String() string {
	if v.dst == nil {
		return "0"
	}
	return datasets.ByteSize(*v.dst)
}
func (v *sizeValue) Type() string { return "size" }
func (v *sizeValue) Range() string {
	return "a size from " + datasets.ByteSize(v.lo) + " to " + datasets.ByteSize(v.hi)
}
func (v *sizeValue) Outside() []string {
	return []string{"NaN", "Inf", "-1", "4 parsecs", datasets.ByteSize(v.lo - 1), strconv.FormatInt(v.hi+1, 10)}
}
