package locomoplus

import "testing"

func FuzzParseGap(f *testing.F) {
	for _, s := range []string{"two months later", "about 6 weeks later", "a couple of months later", "several years later", "", "a", "99999999999 days"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseGap(s)
		if err == nil && (d <= 0 || d > 1000*365) {
			t.Fatalf("ParseGap(%q) = %d days with no error", s, d)
		}
	})
}
