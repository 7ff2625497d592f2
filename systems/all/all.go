// Package all registers every memory system; import it for its side effects.
package all

import (
	_ "github.com/membench/membench/systems/fullcontext"
	_ "github.com/membench/membench/systems/turns"
)
