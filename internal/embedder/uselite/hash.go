package uselite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// ModelSHA256 is Load(dir).ModelSHA256() without decoding the weights:
// the same files hashed in the same order (model.json, each weight group's
// shards as model.json lists them, vocab.json). It reads every file, so a
// missing or unreadable one is an error here, but it does not check that
// the weights make a model; Load does.
func ModelSHA256(dir string) (string, error) {
	path := filepath.Join(dir, "model.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var m struct {
		WeightsManifest []struct {
			Paths []string `json:"paths"`
		} `json:"weightsManifest"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", fmt.Errorf("%s: not a TF.js model file: %w", path, err)
	}
	h := sha256.New()
	h.Write(raw)
	for _, group := range m.WeightsManifest {
		for _, p := range group.Paths {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil {
				return "", fmt.Errorf("weight shard: %w", err)
			}
			h.Write(b)
		}
	}
	vocab, err := os.ReadFile(filepath.Join(dir, "vocab.json"))
	if err != nil {
		return "", err
	}
	h.Write(vocab)
	return hex.EncodeToString(h.Sum(nil)), nil
}
