package runlog

// ShardInfo is what a shard's manifest says about its place in the whole:
// which part it is, and the whole set it is a part of (so merge can check
// that shards cut the same set and cover it exactly once).
type ShardInfo struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// The whole set before sharding: conversations, questions and the
	// sha256 of its question ids in dataset order.
	SetConversations int    `json:"set_conversations"`
	SetQuestions     int    `json:"set_questions"`
	SetSHA256        string `json:"set_sha256"`
}
