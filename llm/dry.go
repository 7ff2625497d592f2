package llm

import "github.com/membench/membench"

// A dry model stands in for a paid one when a run's spend is estimated
// (membench run --estimate): the offline heuristics reply, so the system's
// own code decides how many calls it makes and renders every prompt for
// real, while the model keeps the paid model's ID, so its usage is billed
// at that model's price. It never reaches a server.
type dryModel struct {
	*Offline
	id membench.ModelID
}

func newDry(spec Spec) *dryModel {
	return &dryModel{NewOffline(), membench.ModelID{Backend: spec.Backend, Model: spec.Model, BaseURL: shownBaseURL(spec)}}
}

func (d *dryModel) ID() membench.ModelID { return d.id }

// DryEmbedder stands in for a paid embedder (an estimate's dry run): inner
// computes the vectors, and the paid embedder's name is kept, so the
// tokens embedded are billed at its price.
func DryEmbedder(name string, inner Embedder) Embedder {
	return &dryEmbedder{name: name, Embedder: inner}
}

type dryEmbedder struct {
	name string
	Embedder
}

func (d *dryEmbedder) Name() string { return d.name }
