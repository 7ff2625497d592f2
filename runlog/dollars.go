package runlog

// Dollars is a run's model spend in US dollars by stage, as priced when
// the summary was written (package llm/prices computes it; runlog only
// holds it). An amount is unknown, never zero, when one of its models has
// no price.
type Dollars struct {
	PricesAsOf string            `json:"prices_as_of"`
	PricesFrom string            `json:"prices_from"` // "default" or the --prices file
	Stages     map[string]Amount `json:"stages"`      // build, retrieve, answer, judge, embed
	Total      Amount            `json:"total"`
	// Redone is the spend on work no result rests on (cut off, redone).
	Redone *Amount `json:"redone,omitempty"`
	// Line is the summary's dollars note as printed.
	Line string `json:"line"`
}

// Amount is dollars that may be unknown: USD is null then, and Unpriced
// names the models without a price.
type Amount struct {
	USD      *float64 `json:"usd"`
	Unpriced []string `json:"unpriced,omitempty"`
	Offline  bool     `json:"offline,omitempty"` // no priced model did the work
}
