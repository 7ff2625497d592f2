package analysis

import (
	"fmt"
	"strings"

	"github.com/membench/membench/runlog"
)

// The notes figures over runs carry: what is offline, what is synthetic,
// and which runs are imported peers.

// runOfflineNote is the line a statistic over this run carries when any of
// it comes from offline heuristics; "" when none does.
func runOfflineNote(m runlog.Manifest) string {
	off := m.OfflineList()
	if len(off) == 0 {
		return ""
	}
	return "offline heuristics (" + strings.Join(off, ", ") + "): measures the pipeline, not model quality"
}

// SyntheticNote is the line every figure computed from this run carries
// when its dataset is synthetic; "" otherwise.
func SyntheticNote(m runlog.Manifest) string {
	if !m.Synthetic {
		return ""
	}
	return "SYNTHETIC dataset (" + m.Dataset + ", written by `membench datasets synth`): measures scale and plumbing, not a benchmark"
}

// syntheticNotes is the SYNTHETIC line for runs of which any is on a
// synthetic dataset, naming them; "" when none is.
func syntheticNotes(ms ...*runlog.Manifest) string {
	var names []string
	for _, m := range ms {
		if m != nil && m.Synthetic {
			names = append(names, m.RunID)
		}
	}
	if len(names) == 0 {
		return ""
	}
	list := strings.Join(names, ", ")
	if len(names) > 3 {
		list = fmt.Sprintf("%d runs, e.g. %s", len(names), strings.Join(names[:3], ", "))
	}
	return "SYNTHETIC dataset (" + list + ": written by `membench datasets synth`): measures scale and plumbing, not a benchmark"
}

// importedPeer reports whether the run is imported peer results; imports
// written before Peer was recorded are known by their embedder.
func importedPeer(m *runlog.Manifest) bool {
	return m.Peer || m.Embedder == runlog.PeerEmbedder
}

// offlineNote names the offline parts of each side, "" when none.
func offlineNote(srcs ...*Source) string {
	var parts []string
	for _, s := range srcs {
		if s == nil || s.Manifest == nil {
			continue
		}
		if off := s.Manifest.OfflineList(); len(off) > 0 {
			parts = append(parts, s.Path+": "+strings.Join(off, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "offline heuristics (" + strings.Join(parts, "; ") + "): these figures measure the pipeline, not model quality"
}
