package testutil

import (
	"bytes"
	"testing"
)

// ClobberPageHolding returns a copy of an SQLite file's bytes b with the
// page of pageSize bytes that holds needle overwritten, as a torn write
// would leave it: a page a lookup meets, not one read at open (the test
// fails when needle is missing or on the first page).
func ClobberPageHolding(tb testing.TB, b, needle []byte, pageSize int) []byte {
	tb.Helper()
	i := bytes.Index(b, needle)
	if i < 0 {
		tb.Fatalf("%q not found in the file", needle)
	}
	start := i / pageSize * pageSize
	if start == 0 {
		tb.Fatalf("%q is on the first page", needle)
	}
	out := append([]byte(nil), b...)
	for j := start; j < start+pageSize && j < len(out); j++ {
		out[j] = 0xA5
	}
	return out
}
