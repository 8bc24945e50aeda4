package phpjson

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestMarshalMatchesPHPJSONEncode(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"slashes are escaped", "http://a/b", `"http:\/\/a\/b"`},
		{"non-ASCII becomes \\u escapes", "Café ✨", `"Caf\u00e9 \u2728"`},
		{"astral characters become surrogate pairs", "🎉", `"\ud83c\udf89"`},
		{"control characters", "a\nb\t\x01", `"a\nb\t\u0001"`},
		{"empty object is an empty array", NewObject(), `[]`},
		{"keys keep insertion order", Obj("b", 1, "a", true), `{"b":1,"a":true}`},
		{"setting an existing key keeps its place", Obj("a", 1, "b", 2).Set("a", 3), `{"a":3,"b":2}`},
		{"float keeps a decimal", 1.0, `1.0`},
		{"numbers keep their text", json.Number("12.50"), `12.50`},
		{"nested lists", []any{nil, []string{"x"}}, `[null,["x"]]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Marshal(tc.in)
			if err != nil || string(got) != tc.want {
				t.Errorf("Marshal = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestDecodeKeepsOrderAndNumbers(t *testing.T) {
	v, err := Decode([]byte(`{"z":1.50,"a":[1,{"k":null}],"z2":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*Object)
	if got := o.Keys(); len(got) != 3 || got[0] != "z" || got[1] != "a" {
		t.Errorf("keys = %v", got)
	}
	if n, _ := o.Get("z"); n != json.Number("1.50") {
		t.Errorf("number = %#v, want json.Number(1.50)", n)
	}
	if out := string(MustMarshal(o)); out != `{"z":1.50,"a":[1,{"k":null}],"z2":"x"}` {
		t.Errorf("round trip = %s", out)
	}
}

func TestDecodeRejectsMalformedJSONLikePHP(t *testing.T) {
	for _, in := range []string{`{"a":`, `{"a":1}x`, `{'a':1}`, ``, `[1,]`} {
		_, err := Decode([]byte(in))
		se, ok := err.(*SyntaxError)
		if !ok || se.Code != 4 || se.Message != "Syntax error" {
			t.Errorf("Decode(%q) error = %v, want PHP syntax error 4", in, err)
		}
	}
}

// json_decode's default depth is 512: 512 nested arrays decode, 513 are JSON_ERROR_DEPTH. A deep
// body must neither be accepted nor exhaust the decoder's stack.
func TestDecodeRefusesNestingBeyondPHPDepth(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	if _, err := Decode(nest(512)); err != nil {
		t.Errorf("512 levels: %v", err)
	}
	for _, n := range []int{513, 1 << 20} {
		_, err := Decode(nest(n))
		if se, ok := err.(*SyntaxError); !ok || se.Code != 1 || se.Message != "Maximum stack depth exceeded" {
			t.Errorf("%d levels: error = %v, want PHP depth error 1", n, err)
		}
	}
}

func TestDeleteAndIsList(t *testing.T) {
	o := Obj("0", "a", "1", "b")
	if !o.IsList() {
		t.Error("0,1 keys form a list")
	}
	o.Delete("0")
	if o.IsList() || o.Len() != 1 {
		t.Errorf("after delete: list=%v len=%d", o.IsList(), o.Len())
	}
}

// Objects past smallObject keys are found through their index; small and large alike keep PHP's
// array semantics: insertion order, a re-set key keeps its place, a deleted key's place closes.
func TestObjectKeepsOrderAndFindsKeysAtEverySize(t *testing.T) {
	for _, n := range []int{3, smallObject, smallObject + 1, 40} {
		t.Run(fmt.Sprintf("%d keys", n), func(t *testing.T) {
			o := NewObject()
			var want []string
			for i := 0; i < n; i++ {
				k := fmt.Sprintf("k%d", i)
				o.Set(k, i)
				want = append(want, k)
			}
			o.Set("k0", "again") // keeps its place
			keysBefore := append([]string(nil), o.Keys()...)
			held := o.Keys()
			o.Delete("k1")
			o.Delete("missing")
			want = append(want[:1:1], want[2:]...)
			if !reflect.DeepEqual(o.Keys(), want) {
				t.Fatalf("keys %v, want %v", o.Keys(), want)
			}
			if !reflect.DeepEqual(held, keysBefore) {
				t.Errorf("Delete changed the key list returned before it: %v", held)
			}
			for i, k := range want {
				v, ok := o.Get(k)
				wantV := any(i + 1)
				if i == 0 {
					wantV = "again"
				}
				if !ok || v != wantV {
					t.Errorf("Get(%s) = %v %v, want %v", k, v, ok, wantV)
				}
			}
			if _, ok := o.Get("k1"); ok || o.Has("k1") {
				t.Error("a deleted key is still found")
			}
			o.Set("k1", "back") // a deleted key comes back at the end
			if ks := o.Keys(); ks[len(ks)-1] != "k1" || o.Len() != n {
				t.Errorf("re-added key not last: %v", ks)
			}
			if vs := o.Values(); len(vs) != n || vs[0] != "again" || vs[n-1] != "back" {
				t.Errorf("values %v", vs)
			}
			b, err := Marshal(o)
			if err != nil || !strings.HasPrefix(string(b), `{"k0":"again",`) || !strings.HasSuffix(string(b), `"k1":"back"}`) {
				t.Errorf("encoded %s (%v)", b, err)
			}
		})
	}
}
