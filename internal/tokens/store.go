package tokens

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"slices"
	"sync"
	"sync/atomic"
)

// A Store keeps token counts on disk between processes, so a rerun (the
// same contexts and prompts, counted again in a new process) reads them
// instead of running the encoder: counting is most of a warm run's CPU.
//
// The file is fixed-size records appended at Close: a 128-bit key (the
// first 16 bytes of the text's sha256), the count, and a CRC-32C over both.
// A record that fails its check is skipped (the text is counted again) and
// counted in Damaged; a torn tail is cut off. Several processes may share
// the file: each appends its new counts in one write.
type Store struct {
	path    string
	mu      sync.Mutex
	loaded  map[storeKey]int32
	fresh   []byte // records counted since opening, not yet written
	damaged int64
}

type storeKey [16]byte

const recordLen = 16 + 4 + 4

// maxStoreBytes bounds the file: a bigger one is started afresh (about
// 2.8 million distinct texts).
const maxStoreBytes = 64 << 20

var storeTable = crc32.MakeTable(crc32.Castagnoli)

// stores are the open stores; Count consults them on a memo miss.
var stores atomic.Pointer[[]*Store]

var storesMu sync.Mutex // serialises changes to stores

// OpenStore loads path's counts (a missing file is empty) and attaches the
// store: until Close, counts missing from the memo are looked up in it and
// new counts are kept for it.
func OpenStore(path string) (*Store, error) {
	s := &Store{path: path, loaded: map[storeKey]int32{}}
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("token counts %s: %w", path, err)
	}
	if len(b) > maxStoreBytes {
		b = nil
		if err := os.Truncate(path, 0); err != nil {
			return nil, fmt.Errorf("token counts %s: %w", path, err)
		}
	}
	for off := 0; off+recordLen <= len(b); off += recordLen {
		r := b[off : off+recordLen]
		if binary.LittleEndian.Uint32(r[20:]) != crc32.Checksum(r[:20], storeTable) {
			s.damaged++
			continue
		}
		s.loaded[storeKey(r[:16])] = int32(binary.LittleEndian.Uint32(r[16:20]))
	}
	if tail := len(b) % recordLen; tail != 0 {
		// A torn record from an interrupted write: cut it, or every record
		// appended after it would be misaligned.
		if err := os.Truncate(path, int64(len(b)-tail)); err != nil {
			return nil, fmt.Errorf("token counts %s: %w", path, err)
		}
	}
	storesMu.Lock()
	defer storesMu.Unlock()
	var next []*Store
	if cur := stores.Load(); cur != nil {
		next = slices.Clone(*cur)
	}
	next = append(next, s)
	stores.Store(&next)
	return s, nil
}

// Damaged is the number of records that failed their check when loaded.
func (s *Store) Damaged() int64 { return s.damaged }

// Close detaches the store and appends the counts made while it was open.
func (s *Store) Close() error {
	storesMu.Lock()
	if cur := stores.Load(); cur != nil {
		next := slices.DeleteFunc(slices.Clone(*cur), func(o *Store) bool { return o == s })
		stores.Store(&next)
	}
	storesMu.Unlock()
	s.mu.Lock()
	fresh := s.fresh
	s.fresh = nil
	s.mu.Unlock()
	if len(fresh) == 0 {
		return nil
	}
	f, err := os.OpenFile(s.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("token counts %s: %w", s.path, err)
	}
	if _, err := f.Write(fresh); err != nil {
		f.Close()
		return fmt.Errorf("token counts %s: %w", s.path, err)
	}
	return f.Close()
}

func keyOf(text string) storeKey {
	h := sha256.Sum256([]byte(text))
	return storeKey(h[:16])
}

// fromStores looks text up in the open stores.
func fromStores(list []*Store, k storeKey) (int, bool) {
	for _, s := range list {
		s.mu.Lock()
		n, ok := s.loaded[k]
		s.mu.Unlock()
		if ok {
			return int(n), true
		}
	}
	return 0, false
}

// keep records a new count in every open store that lacks it.
func keep(list []*Store, k storeKey, n int) {
	var r [recordLen]byte
	copy(r[:16], k[:])
	binary.LittleEndian.PutUint32(r[16:20], uint32(n))
	binary.LittleEndian.PutUint32(r[20:], crc32.Checksum(r[:20], storeTable))
	for _, s := range list {
		s.mu.Lock()
		if _, ok := s.loaded[k]; !ok {
			s.loaded[k] = int32(n)
			s.fresh = append(s.fresh, r[:]...)
		}
		s.mu.Unlock()
	}
}
