package uselite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// ModelSHA256 is Load(dir).ModelSHA256() without decoding the weights:
// the same files hashed in the same order (model.json, each weight group's
// shards as model.json lists them, vocab.json). It reads every file, so a
// missing or unreadable one is an error here, but it does not check that
// the weights make a model; Load does.
func ModelSHA256(dir string) (string, error) {
	files, err := modelFileList(dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// stampFile keeps ModelSHA256's result in the model directory with the
// size, modification time and (on Linux) inode and change time of every
// file it hashed.
const stampFile = ".membench-model-sha256"

type stamp struct {
	SHA256 string      `json:"sha256"`
	Files  []fileStamp `json:"files"`
}

type fileStamp struct {
	Name    string `json:"name"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mod_time_ns"`
	Inode   uint64 `json:"inode,omitempty"`
	Change  int64  `json:"change_time_ns,omitempty"`
}

// StampedModelSHA256 is ModelSHA256, kept in dir/.membench-model-sha256
// with the size, modification time, inode and change time of each file it
// read (as git's index keeps them): while none of them changes, the model
// files are not read and hashed again on every run that names USE-lite. A
// file written, replaced, added to the model's list or gone makes it hash
// again (and rewrite the stamp, when the directory is writable: a
// read-only model directory just hashes every time). The change
// time matters because unpacking an archive restores modification times,
// and a model of the same shape has files of the same sizes. Outside Linux
// only size and modification time are compared.
func StampedModelSHA256(dir string) (string, error) {
	files, err := modelFileList(dir)
	if err != nil {
		return "", err
	}
	now := make([]fileStamp, len(files))
	for i, f := range files {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			return "", err
		}
		ino, ctime := changeStamp(st)
		now[i] = fileStamp{Name: f, Size: st.Size(), ModTime: st.ModTime().UnixNano(), Inode: ino, Change: ctime}
	}
	var old stamp
	if b, err := os.ReadFile(filepath.Join(dir, stampFile)); err == nil && json.Unmarshal(b, &old) == nil &&
		len(old.SHA256) == 64 && slices.Equal(old.Files, now) {
		return old.SHA256, nil
	}
	sum, err := ModelSHA256(dir)
	if err != nil {
		return "", err
	}
	if b, err := json.Marshal(stamp{SHA256: sum, Files: now}); err == nil {
		writeStamp(filepath.Join(dir, stampFile), b)
	}
	return sum, nil
}

// modelFileList is the files ModelSHA256 reads, in its order.
func modelFileList(dir string) ([]string, error) {
	path := filepath.Join(dir, "model.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m struct {
		WeightsManifest []struct {
			Paths []string `json:"paths"`
		} `json:"weightsManifest"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: not a TF.js model file: %w", path, err)
	}
	files := []string{"model.json"}
	for _, g := range m.WeightsManifest {
		for _, p := range g.Paths {
			files = append(files, filepath.FromSlash(p))
		}
	}
	return append(files, "vocab.json"), nil
}

// writeStamp replaces path atomically; failing to is no error (the hash
// is computed again next time).
func writeStamp(path string, b []byte) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-stamp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Chmod(tmp.Name(), 0o644) != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}
