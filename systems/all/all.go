// Package all registers every memory system; import it for its side effects.
package all

import (
	_ "github.com/membench/membench/systems/abstain"
	_ "github.com/membench/membench/systems/adapter"
	_ "github.com/membench/membench/systems/extractrerank"
	_ "github.com/membench/membench/systems/flat"
	_ "github.com/membench/membench/systems/fullcontext"
	_ "github.com/membench/membench/systems/graph"
	_ "github.com/membench/membench/systems/structmem"
	_ "github.com/membench/membench/systems/turns"
	_ "github.com/membench/membench/systems/turnsgraph"
)
