package llm

import (
	"reflect"
	"testing"
)

// fillAll sets every field of v (a struct, through a pointer), recursively
// into slices of structs, to a value other than its zero value, and fails
// on a field type it does not know.
func fillAll(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString(path + " <&> \"x\"")
	case reflect.Int:
		v.SetInt(int64(len(path)))
	case reflect.Float64:
		v.SetFloat(0.25 + float64(len(path)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillAll(t, p.Elem(), path+"*")
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fillAll(t, s.Index(i), path+"[]")
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			fillAll(t, v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	default:
		t.Fatalf("%s: a %s field; teach hashOf (llm/cachekey.go) and this test to write it", path, v.Type())
	}
}

// A field added to cacheKey or Message must reach the hash: with every
// field set, hashOf still equals the sha256 of json.Marshal's bytes. If
// hashOf skipped a field, two keys differing only there would collide.
func TestCacheKeyHashCoversEveryField(t *testing.T) {
	var k cacheKey
	fillAll(t, reflect.ValueOf(&k).Elem(), "key")
	k.Version = cacheVersion // hash sets it
	got, ok := hashOf(k)
	if !ok {
		t.Fatal("hashOf refused a key json.Marshal accepts")
	}
	if want := marshalHash(t, k); got != want {
		t.Fatalf("hashOf %s, sha256 of json.Marshal %s: a field of cacheKey or Message is missing from hashOf (llm/cachekey.go)", got, want)
	}
}
