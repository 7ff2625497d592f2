package llm

import (
	"reflect"
	"testing"

	"github.com/membench/membench/internal/jsonenc/jsonenctest"
)

// A field added to cacheKey or Message must reach the hash: with every
// field set, hashOf still equals the sha256 of json.Marshal's bytes. If
// hashOf skipped a field, two keys differing only there would collide.
func TestCacheKeyHashCoversEveryField(t *testing.T) {
	var k cacheKey
	jsonenctest.Fill(t, reflect.ValueOf(&k).Elem(), "key")
	k.Version = cacheVersion // hash sets it
	got, ok := hashOf(k)
	if !ok {
		t.Fatal("hashOf refused a key json.Marshal accepts")
	}
	if want := marshalHash(t, k); got != want {
		t.Fatalf("hashOf %s, sha256 of json.Marshal %s: a field of cacheKey or Message is missing from hashOf (llm/cachekey.go)", got, want)
	}
}
