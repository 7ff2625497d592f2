// Package jsonenctest holds hand-written JSON encoders to json.Marshal in
// tests: it sets every field of a value by reflection and compares the
// encoder's bytes with json.Marshal's, so a field added to a type without
// teaching its encoder fails a test.
package jsonenctest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/membench/membench/internal/jsonenc"
)

var timeType = reflect.TypeFor[time.Time]()

// Fill sets v (addressable) and everything under it to a value other than
// its zero value, derived from path (so siblings differ); strings carry
// characters Marshal escapes. It fails on a kind it does not know.
func Fill(t testing.TB, v reflect.Value, path string) {
	t.Helper()
	n := len(path)
	if v.Type() == timeType {
		v.Set(reflect.ValueOf(time.Date(2026, 11, 30, 23, n%60, 7, n*1000+1, time.FixedZone("", 3600))))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(path + " <&> \"x\" é\u2028")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(n))
	case reflect.Float64, reflect.Float32:
		v.SetFloat(0.25 + float64(n)/3)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		Fill(t, p.Elem(), path+"*")
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			Fill(t, s.Index(i), path+"[]"+string(rune('a'+i)))
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := range 2 {
			k := reflect.New(v.Type().Key()).Elem()
			Fill(t, k, path+"{k}"+string(rune('a'+i)))
			e := reflect.New(v.Type().Elem()).Elem()
			Fill(t, e, path+"{v}"+string(rune('a'+i)))
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Interface:
		v.Set(reflect.ValueOf(path + " <any>"))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				Fill(t, v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		}
	default:
		t.Fatalf("%s: a %s field; teach jsonenctest.Fill (and the type's encoder) to write it", path, v.Type())
	}
}

// Check compares jsonenc.Append(v) with json.Marshal(v).
func Check(t testing.TB, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal(%T): %v", v, err)
	}
	m, ok := v.(jsonenc.Marshaler)
	if !ok {
		t.Fatalf("%T has no AppendJSON", v)
	}
	got, ok := m.AppendJSON([]byte("prefix"))
	if !ok {
		t.Fatalf("%T: AppendJSON declined a value json.Marshal encodes:\n %s", v, want)
	}
	if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len("prefix"):], want) {
		t.Fatalf("%T: AppendJSON wrote\n %s\njson.Marshal\n %s\n(a field added to the type must be taught to its AppendJSON)", v, got, want)
	}
}

// EveryField checks T's encoder against json.Marshal on T's zero value,
// on T with every field set (recursively), and on T with each top-level
// field set alone (omitempty's both sides).
func EveryField[T jsonenc.Marshaler](t *testing.T) {
	t.Helper()
	var zero T
	Check(t, zero)
	var all T
	Fill(t, reflect.ValueOf(&all).Elem(), "v")
	Check(t, all)
	rt := reflect.TypeFor[T]()
	for i := range rt.NumField() {
		if !rt.Field(i).IsExported() {
			continue
		}
		var one T
		Fill(t, reflect.ValueOf(&one).Elem().Field(i), rt.Field(i).Name)
		Check(t, one)
	}
}
