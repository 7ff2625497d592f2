package jsonenc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func marshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func checkString(t testing.TB, s string) {
	t.Helper()
	got := String([]byte("x"), s)
	if want := append([]byte("x"), marshal(t, s)...); !bytes.Equal(got, want) {
		t.Fatalf("String(%q) = %s, json.Marshal %s", s, got[1:], want[1:])
	}
}

// Every byte value alone and inside text, every escape Marshal makes,
// invalid and truncated UTF-8, and long safe runs.
func TestStringIsMarshal(t *testing.T) {
	for c := range 256 {
		checkString(t, string([]byte{byte(c)}))
		checkString(t, "ab"+string([]byte{byte(c)})+"cd")
	}
	for _, s := range []string{"", "plain", `"quoted"`, `back\slash`, "<b>&amp;</b>", "tab\tnl\nrc\rbs\bff\f", "\x00\x1f\x7f",
		"é ü 日本 😀", "\u2028\u2029", "a\u2028b\u2029c", "\xff\xfe", "\xe2\x80", "\xe2\x80\xa8", "\xed\xa0\x80", "\xf4\x90\x80\x80",
		"\xc3", "é\xc3", "\ufffd", strings.Repeat("long safe run ", 500) + "<" + strings.Repeat("x", 300)} {
		checkString(t, s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", " ", "<", ">", "&", "\"", "\\", "\n", "\x01", "é", "\u2028", "\u2029", "\xff", "\xe2\x80", "日", "😀", "\x7f"}
	for range 20000 {
		var sb strings.Builder
		for range rng.IntN(40) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		checkString(t, sb.String())
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "a<b>&c", "\xff", "\u2028", "é\x00\"\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkString(t, s) })
}

func checkFloat(t testing.TB, f float64) {
	t.Helper()
	if !Finite(f) {
		if _, err := json.Marshal(f); err == nil {
			t.Fatalf("%v: Finite false but json.Marshal accepts it", f)
		}
		return
	}
	if got, want := Float(nil, f, 64), marshal(t, f); !bytes.Equal(got, want) {
		t.Fatalf("Float(%v, 64) = %s, json.Marshal %s", f, got, want)
	}
	f32 := float32(f)
	if math.IsInf(float64(f32), 0) {
		return
	}
	if got, want := Float(nil, float64(f32), 32), marshal(t, f32); !bytes.Equal(got, want) {
		t.Fatalf("Float(%v, 32) = %s, json.Marshal %s", f32, got, want)
	}
}

// Float against Marshal at the format's edges and on random bit patterns
// of both widths.
func TestFloatIsMarshal(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1.0 / 3, 1e-6, 9.999999e-7, 1e-7, 2.5e-7, 1e20, 1e21, 9.99999e20, -1e21,
		123456789.125, 3.4e38, 5e-324, math.MaxFloat64, math.SmallestNonzeroFloat32, math.MaxFloat32, 1e-45, math.NaN(), math.Inf(1), math.Inf(-1)} {
		checkFloat(t, f)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		checkFloat(t, math.Float64frombits(rng.Uint64()))
		checkFloat(t, float64(math.Float32frombits(rng.Uint32())))
		checkFloat(t, rng.Float64()*math.Pow(10, float64(rng.IntN(60)-30)))
	}
}

func FuzzFloat(f *testing.F) {
	for _, x := range []float64{0, 1e-7, 1e21, 0.25} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) { checkFloat(t, x) })
}

func TestTimeIsMarshal(t *testing.T) {
	east := time.FixedZone("x", 5*3600+30*60)
	for _, tm := range []time.Time{{}, time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC), time.Date(2026, 11, 30, 18, 1, 2, 3000, east),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.FixedZone("y", -7*3600)), time.Now(), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)} {
		got, ok := Time(nil, tm)
		if want := marshal(t, tm); !ok || !bytes.Equal(got, want) {
			t.Fatalf("Time(%v) = %s (ok %v), json.Marshal %s", tm, got, ok, want)
		}
	}
	for _, tm := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2000, 1, 1, 0, 0, 0, 0, time.FixedZone("z", 24*3600))} {
		if _, ok := Time(nil, tm); ok {
			t.Fatalf("Time(%v) accepted a time json.Marshal refuses", tm)
		}
		if _, err := json.Marshal(tm); err == nil {
			t.Fatalf("json.Marshal accepts %v", tm)
		}
	}
}

func TestStringsIsMarshal(t *testing.T) {
	for _, ss := range [][]string{nil, {}, {""}, {"a", "<b>", "\xff"}} {
		if got, want := Strings(nil, ss), marshal(t, ss); !bytes.Equal(got, want) {
			t.Fatalf("Strings(%q) = %s, json.Marshal %s", ss, got, want)
		}
	}
}

type declines struct{ X float64 }

func (d declines) AppendJSON(b []byte) ([]byte, bool) {
	if !Finite(d.X) {
		return b, false
	}
	return append(b, "HAND"...), true
}

// Append uses a type's own encoder when it accepts, and encoding/json
// (its bytes, its error) otherwise.
func TestAppendFallsBackToMarshal(t *testing.T) {
	b, err := Append([]byte("<"), declines{X: 1})
	if err != nil || string(b) != "<HAND" {
		t.Fatalf("Append with an accepting encoder: %q, %v", b, err)
	}
	_, err = Append(nil, declines{X: math.NaN()})
	var ue *json.UnsupportedValueError
	if !errors.As(err, &ue) {
		t.Fatalf("Append of a declined NaN: error %v, want encoding/json's UnsupportedValueError", err)
	}
	b, err = Append([]byte("<"), map[string]any{"a": []int{1}})
	if err != nil || string(b) != `<{"a":[1]}` {
		t.Fatalf("Append of a map: %q, %v", b, err)
	}
}

// BenchmarkString: a rendered LoCoMo-like context (about 4 KB: lines of
// ASCII text, a newline each, an apostrophe or quote here and there).
func BenchmarkString(b *testing.B) {
	var sb strings.Builder
	for i := range 32 {
		fmt.Fprintf(&sb, "[2023-05-08 13:%02d] Caroline: I went to the LGBTQ support group yesterday and it was so \"powerful\", thanks!\n", i)
	}
	s := sb.String()
	b.SetBytes(int64(len(s)))
	var buf []byte
	for b.Loop() {
		buf = String(buf[:0], s)
	}
}
