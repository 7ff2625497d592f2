package tokens

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// resetMemo empties the in-process memo, as a new process starts.
func resetMemo() {
	for i := range counts.shards {
		m := &counts.shards[i]
		m.mu.Lock()
		m.cur, m.old = nil, nil
		m.mu.Unlock()
	}
}

// Counts kept in a store are read back by the next "process" without the
// encoder; a flipped bit and a torn tail cost a recount, never a wrong count.
func TestStoreKeepsCountsAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.bin")
	texts := make([]string, 200)
	for i := range texts {
		texts[i] = fmt.Sprintf("%s (store test %d)", samples[i%len(samples)], i)
	}
	resetMemo()
	s, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int, len(texts))
	for i, x := range texts {
		want[i] = Count(x)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st == nil || st.Size() != int64(len(texts)*recordLen) {
		t.Fatalf("store file holds %v bytes, want %d records", st, len(texts))
	}

	resetMemo()
	s, err = OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	before := encoded.Load()
	for i, x := range texts {
		if got := Count(x); got != want[i] {
			t.Fatalf("text %d: stored count %d, encoder %d", i, got, want[i])
		}
	}
	if n := encoded.Load() - before; n != 0 {
		t.Fatalf("%d texts went through the encoder again; want 0 (all stored)", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Size() != int64(len(texts)*recordLen) {
		t.Fatalf("a rerun with nothing new appended: %d bytes", st.Size())
	}

	// Damage: flip a bit in record 3's count, and tear the last record.
	b, _ := os.ReadFile(path)
	b[3*recordLen+16] ^= 0x04
	b = b[:len(b)-5]
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	resetMemo()
	s, err = OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Damaged() != 1 || s.Len() != len(texts)-2 {
		t.Fatalf("damaged %d, loaded %d; want 1 damaged and %d loaded", s.Damaged(), s.Len(), len(texts)-2)
	}
	before = encoded.Load()
	for i, x := range texts {
		if got := Count(x); got != want[i] {
			t.Fatalf("after damage: text %d: count %d, want %d", i, got, want[i])
		}
	}
	if n := encoded.Load() - before; n != 2 {
		t.Fatalf("%d texts recounted; want the damaged and the torn one (2)", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Size()%recordLen != 0 {
		t.Fatalf("store file is %d bytes, not whole records (torn tail kept)", st.Size())
	}
}

// Len is the number of counts the store was opened with.
func (s *Store) Len() int { return len(s.loaded) }
