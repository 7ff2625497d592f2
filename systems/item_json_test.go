package systems

import (
	"testing"

	"github.com/membench/membench/internal/jsonenc/jsonenctest"
)

// A field added to Item without teaching its AppendJSON fails here.
func TestItemJSONCoversEveryField(t *testing.T) {
	jsonenctest.EveryField[Item](t)
}
