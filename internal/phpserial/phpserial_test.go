package phpserial

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// list builds an *Array with keys 0..n-1.
func list(vals ...any) *Array {
	a := NewArray()
	for _, v := range vals {
		if err := a.Append(v); err != nil {
			panic(err)
		}
	}
	return a
}

// assoc builds an *Array from alternating key, value arguments.
func assoc(kv ...any) *Array {
	a := NewArray()
	for i := 0; i < len(kv); i += 2 {
		a.Set(kv[i], kv[i+1])
	}
	return a
}

func object(class string, kv ...any) *Object {
	o := NewObject(class)
	for i := 0; i < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Variables, so that pointOne+pointTwo is computed in float64 at run time
// (a constant expression would be exactly 0.3).
var pointOne, pointTwo = 0.1, 0.2

// equal compares decoded values structurally, including entry order, and
// treats NaN as equal to NaN.
func equal(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if !ok {
			return false
		}
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.IsNaN(x) && math.IsNaN(y)
		}
		return x == y && math.Signbit(x) == math.Signbit(y)
	case *Array:
		y, ok := b.(*Array)
		return ok && entriesEqual(x.Entries(), y.Entries())
	case *Object:
		y, ok := b.(*Object)
		return ok && x.Class == y.Class && entriesEqual(x.Props(), y.Props())
	case *CustomObject:
		y, ok := b.(*CustomObject)
		return ok && *x == *y
	}
	return reflect.DeepEqual(a, b)
}

func entriesEqual(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || !equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

func TestUnmarshalScalars(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want any
	}{
		{"null decodes to nil", `N;`, nil},
		{"false decodes to false", `b:0;`, false},
		{"true decodes to true", `b:1;`, true},
		{"zero decodes to int64 zero", `i:0;`, int64(0)},
		{"negative int decodes", `i:-42;`, int64(-42)},
		{"max int64 decodes", `i:9223372036854775807;`, int64(math.MaxInt64)},
		{"min int64 decodes", `i:-9223372036854775808;`, int64(math.MinInt64)},
		{"explicit plus sign is accepted like PHP", `i:+5;`, int64(5)},
		{"leading zeros are accepted like PHP", `i:007;`, int64(7)},
		{"int overflow clamps to max like PHP", `i:99999999999999999999;`, int64(math.MaxInt64)},
		{"negative int overflow clamps to min like PHP", `i:-9223372036854775809;`, int64(math.MinInt64)},
		{"float decodes", `d:0.1;`, 0.1},
		{"integral float decodes", `d:1;`, 1.0},
		{"negative zero keeps its sign", `d:-0;`, math.Copysign(0, -1)},
		{"exponent form decodes", `d:1.0E+25;`, 1e25},
		{"negative exponent decodes", `d:1.0E-5;`, 1e-5},
		{"lower-case exponent is accepted", `d:1e5;`, 1e5},
		{"leading dot is accepted", `d:.5;`, 0.5},
		{"trailing dot is accepted", `d:5.;`, 5.0},
		{"huge exponent overflows to INF like zend_strtod", `d:1e999;`, math.Inf(1)},
		{"INF decodes", `d:INF;`, math.Inf(1)},
		{"-INF decodes", `d:-INF;`, math.Inf(-1)},
		{"NAN decodes", `d:NAN;`, math.NaN()},
		{"empty string decodes", `s:0:"";`, ""},
		{"string decodes", `s:5:"hello";`, "hello"},
		{"length counts UTF-8 bytes, not characters", `s:6:"héllo";`, "héllo"},
		{"4-byte UTF-8 decodes", `s:4:"🎉";`, "🎉"},
		{"quotes and semicolons inside are data", `s:7:"a";b:"}";`, `a";b:"}`},
		{"NUL and newline bytes are data", "s:3:\"a\x00\n\";", "a\x00\n"},
		{"invalid UTF-8 bytes are kept verbatim", "s:2:\"\xff\xfe\";", "\xff\xfe"},
		{"legacy S: string unescapes hex", `S:3:"\61bc";`, "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Unmarshal(tt.in)
			if err != nil {
				t.Fatalf("Unmarshal(%q) error: %v", tt.in, err)
			}
			if !equal(got, tt.want) {
				t.Fatalf("Unmarshal(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestUnmarshalContainers(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want any
	}{
		{"empty array", `a:0:{}`, NewArray()},
		{"list keeps integer keys", `a:2:{i:0;s:1:"a";i:1;s:1:"b";}`, list("a", "b")},
		{"keys stay in stored order, not sorted", `a:3:{s:1:"z";i:1;i:5;i:2;s:1:"a";i:3;}`,
			assoc("z", int64(1), 5, int64(2), "a", int64(3))},
		{"gaps in integer keys are preserved", `a:2:{i:1;s:1:"x";i:3;s:1:"y";}`, assoc(1, "x", 3, "y")},
		{"numeric string key becomes an integer key like PHP", `a:1:{s:1:"5";b:1;}`, assoc(int64(5), true)},
		{"zero-padded string key stays a string", `a:1:{s:2:"05";b:1;}`, assoc("05", true)},
		{"duplicate key overwrites in place like PHP", `a:3:{i:0;s:1:"a";i:1;s:1:"b";i:0;s:1:"c";}`, list("c", "b")},
		{"nested arrays", `a:1:{s:1:"k";a:1:{i:0;N;}}`, assoc("k", list(nil))},
		{"object keeps class and property order", `O:8:"stdClass":2:{s:1:"b";i:1;s:1:"a";i:2;}`,
			object("stdClass", "b", int64(1), "a", int64(2))},
		{"object integer property names become strings", `O:8:"stdClass":1:{i:5;s:1:"x";}`, object("stdClass", "5", "x")},
		{"object numeric string property stays a string", `O:8:"stdClass":1:{s:1:"5";s:1:"x";}`, object("stdClass", "5", "x")},
		{"object member count may carry a sign like PHP", `O:8:"stdClass":+0:{}`, object("stdClass")},
		{"namespaced class name", `O:7:"Foo\Bar":0:{}`, object(`Foo\Bar`)},
		{"custom object keeps data verbatim", `C:11:"ArrayObject":21:{x:i:0;a:0:{};m:a:0:{}}`,
			&CustomObject{Class: "ArrayObject", Data: "x:i:0;a:0:{};m:a:0:{}"}},
		{"r: back-reference to an object", `a:2:{i:0;O:8:"stdClass":0:{}i:1;r:2;}`,
			list(object("stdClass"), Reference{Index: 2})},
		{"R: reference to an earlier value", `a:2:{i:0;s:1:"x";i:1;R:2;}`, list("x", Reference{Index: 2, ByRef: true})},
		{"R: reference to the enclosing array", `a:1:{i:0;R:1;}`, list(Reference{Index: 1, ByRef: true})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Unmarshal(tt.in)
			if err != nil {
				t.Fatalf("Unmarshal(%q) error: %v", tt.in, err)
			}
			if !equal(got, tt.want) {
				t.Fatalf("Unmarshal(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestUnmarshalRejectsMalformedInput(t *testing.T) {
	deep := strings.Repeat("a:1:{i:0;", MaxDepth+1) + "N;" + strings.Repeat("}", MaxDepth+1)
	tests := []struct {
		name string
		in   string
	}{
		{"empty input", ``},
		{"lone tag", `N`},
		{"unknown type", `x:1;`},
		{"boolean other than 0 or 1", `b:2;`},
		{"boolean without semicolon", `b:1`},
		{"int without digits", `i:;`},
		{"int without semicolon", `i:1`},
		{"int with garbage", `i:1x;`},
		{"float without digits", `d:;`},
		{"float with two dots", `d:1.2.3;`},
		{"float with empty exponent", `d:1e;`},
		{"lower-case inf", `d:inf;`},
		{"string shorter than its length", `s:5:"abc";`},
		{"string longer than its length", `s:2:"abc";`},
		{"string with negative length", `s:-1:"";`},
		{"string without closing semicolon", `s:1:"a"`},
		{"string length overflow", `s:99999999999999999999:"a";`},
		{"array missing a value", `a:1:{i:0;}`},
		{"array missing the closing brace", `a:1:{i:0;i:1;`},
		{"array with fewer elements than declared", `a:2:{i:0;i:1;}`},
		{"array with more elements than declared", `a:1:{i:0;i:1;i:1;i:2;}`},
		{"array count larger than the data", `a:999999999:{}`},
		{"array key that is an array", `a:1:{a:0:{}i:1;}`},
		{"array key that is null", `a:1:{N;i:1;}`},
		{"array key that is a float", `a:1:{d:1.5;i:1;}`},
		{"array key that is a reference", `a:1:{R:1;i:1;}`},
		{"object with empty class name", `O:0:"":0:{}`},
		{"object class name with a space", `O:3:"a b":0:{}`},
		{"object class name starting with a backslash", `O:4:"\Foo":0:{}`},
		{"object class name with a NUL byte", "O:3:\"a\x00b\":0:{}"},
		{"object with negative member count", `O:8:"stdClass":-1:{}`},
		{"object missing the closing brace", `O:8:"stdClass":0:{`},
		{"custom object data without closing brace", `C:3:"Foo":2:{abc`},
		{"custom object data length beyond the data", `C:3:"Foo":9:{}`},
		{"R: at top level has nothing to refer to", `R:1;`},
		{"R:0 is not a valid slot", `a:1:{i:0;R:0;}`},
		{"R: beyond the values seen so far", `a:1:{i:0;R:3;}`},
		{"r: to a value that is not an object", `a:2:{i:0;s:1:"x";i:1;r:2;}`},
		{"r: to itself", `a:1:{i:0;r:2;}`},
		{"trailing bytes after the value", `i:1;i:2;`},
		{"trailing newline after the value", "N;\n"},
		{"S: string with a bad escape", `S:1:"\zz";`},
		{"nesting deeper than PHP's default max depth", deep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Unmarshal(tt.in)
			if err == nil {
				t.Fatalf("Unmarshal(%q) = %#v, want an error", tt.in, v)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is %T, want *SyntaxError", err, err)
			}
		})
	}
}

func TestUnmarshalAcceptsMaxDepth(t *testing.T) {
	in := strings.Repeat("a:1:{i:0;", MaxDepth) + "N;" + strings.Repeat("}", MaxDepth)
	if _, err := Unmarshal(in); err != nil {
		t.Fatalf("nesting of exactly MaxDepth was rejected: %v", err)
	}
}

func TestMarshal(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"nil is N", nil, `N;`},
		{"false", false, `b:0;`},
		{"true", true, `b:1;`},
		{"int64", int64(-7), `i:-7;`},
		{"Go int is accepted", 42, `i:42;`},
		{"uint8 is accepted", uint8(255), `i:255;`},
		{"string uses byte length", "héllo", `s:6:"héllo";`},
		{"[]byte is a string", []byte("ab"), `s:2:"ab";`},
		{"empty string", "", `s:0:"";`},
		{"[]any is a list", []any{"a", 1, nil}, `a:3:{i:0;s:1:"a";i:1;i:1;i:2;N;}`},
		{"[]string is a list", []string{"x"}, `a:1:{i:0;s:1:"x";}`},
		{"map keys are sorted and numeric keys become ints", map[string]any{"b": 1, "a": true, "10": "x"},
			`a:3:{i:10;s:1:"x";s:1:"a";b:1;s:1:"b";i:1;}`},
		{"map[string]string", map[string]string{"k": "v"}, `a:1:{s:1:"k";s:1:"v";}`},
		{"nil *Array is null", (*Array)(nil), `N;`},
		{"object", object("WP_Post", "ID", int64(3)), `O:7:"WP_Post":1:{s:2:"ID";i:3;}`},
		{"custom object", &CustomObject{Class: "Foo", Data: "xyz"}, `C:3:"Foo":3:{xyz}`},
		{"reference", Reference{Index: 2, ByRef: true}, `R:2;`},
		{"object reference", Reference{Index: 3}, `r:3;`},
		{"float32 widens exactly", float32(0.5), `d:0.5;`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in)
			if err != nil {
				t.Fatalf("Marshal(%#v) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("Marshal(%#v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestMarshalFloatLikePHP checks the serialize_precision=-1 formatting of
// zend_gcvt: shortest round-trip digits, plain notation while the decimal
// point is within 17 digits and no more than 4 places after it, "X.YE±N"
// otherwise.
func TestMarshalFloatLikePHP(t *testing.T) {
	tests := []struct {
		name string
		in   float64
		want string
	}{
		{"zero", 0, `d:0;`},
		{"negative zero", math.Copysign(0, -1), `d:-0;`},
		{"integral value has no fraction", 1, `d:1;`},
		{"hundred", 100, `d:100;`},
		{"one tenth", 0.1, `d:0.1;`},
		{"negative fraction", -1.5, `d:-1.5;`},
		{"shortest round-trip digits", pointOne + pointTwo, `d:0.30000000000000004;`},
		{"one third", 1.0 / 3, `d:0.3333333333333333;`},
		{"0.0001 stays plain", 0.0001, `d:0.0001;`},
		{"0.00001 switches to exponent form", 0.00001, `d:1.0E-5;`},
		{"small with several digits", 1.5e-7, `d:1.5E-7;`},
		{"1e15 stays plain", 1e15, `d:1000000000000000;`},
		{"1e16 stays plain (17 digits)", 1e16, `d:10000000000000000;`},
		{"1e17 switches to exponent form", 1e17, `d:1.0E+17;`},
		{"large with digits", 123456789012345678, `d:1.2345678901234568E+17;`},
		{"1e25", 1e25, `d:1.0E+25;`},
		{"two-digit exponent stays unpadded", 1.7e300, `d:1.7E+300;`},
		{"largest double", math.MaxFloat64, `d:1.7976931348623157E+308;`},
		{"smallest denormal", 5e-324, `d:5.0E-324;`},
		{"int64 boundary value as float", -1.8446744073709552e19, `d:-1.8446744073709552E+19;`},
		{"INF", math.Inf(1), `d:INF;`},
		{"-INF", math.Inf(-1), `d:-INF;`},
		{"NAN", math.NaN(), `d:NAN;`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("Marshal(%v) = %q, want %q", tt.in, got, tt.want)
			}
			back, err := Unmarshal(got)
			if err != nil || !equal(back, tt.in) {
				t.Fatalf("Unmarshal(%q) = %v, %v; want %v", got, back, err, tt.in)
			}
		})
	}
}

func TestMarshalRejectsUnsupportedValues(t *testing.T) {
	selfRef := NewArray()
	selfRef.Set("me", selfRef)
	tests := []struct {
		name string
		in   any
	}{
		{"struct", struct{ A int }{1}},
		{"channel", make(chan int)},
		{"map with non-string keys", map[int]string{1: "a"}},
		{"uint64 beyond int64", uint64(math.MaxUint64)},
		{"object with empty class name", &Object{}},
		{"object with invalid class name", NewObject("a b")},
		{"reference to slot zero", Reference{}},
		{"array that contains itself", selfRef},
		{"array holding an unsupported value", list(struct{}{})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := Marshal(tt.in); err == nil {
				t.Fatalf("Marshal(%T) = %q, want an error", tt.in, got)
			}
		})
	}
}

// TestRoundTripCanonical: anything PHP's serialize() can produce must come
// back byte for byte.
func TestRoundTripCanonical(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"null", `N;`},
		{"bool", `b:1;`},
		{"int", `i:-123;`},
		{"float", `d:3.14;`},
		{"float exponent", `d:6.02214076E+23;`},
		{"special floats in a list", `a:3:{i:0;d:INF;i:1;d:-INF;i:2;d:NAN;}`},
		{"utf-8 string", `s:15:"Ünïcödé ✓";`},
		{"binary string", "s:4:\"\x00\xff\"\n\";"},
		{"empty array", `a:0:{}`},
		{"mixed keys in insertion order", `a:4:{s:1:"b";i:1;i:7;s:1:"x";s:1:"a";N;i:-2;b:0;}`},
		{"negative and large keys", `a:2:{i:-9223372036854775808;i:0;i:9223372036854775807;i:1;}`},
		{"nested", `a:2:{s:5:"outer";a:1:{s:5:"inner";a:1:{i:0;a:0:{}}}s:4:"next";s:0:"";}`},
		{"object with mangled properties", "O:3:\"Foo\":3:{s:6:\"\x00Foo\x00a\";i:1;s:4:\"\x00*\x00b\";i:2;s:1:\"c\";N;}"},
		{"object inside array", `a:1:{i:0;O:8:"stdClass":1:{s:1:"x";d:0.5;}}`},
		{"custom object", `C:11:"ArrayObject":21:{x:i:0;a:0:{};m:a:0:{}}`},
		{"references", `a:4:{i:0;O:8:"stdClass":0:{}i:1;r:2;i:2;s:1:"s";i:3;R:4;}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertRoundTrip(t, tt.in)
		})
	}
}

// TestRoundTripWordPressValues uses real values from the reference site.
func TestRoundTripWordPressValues(t *testing.T) {
	for _, tt := range fixtureValues {
		t.Run(tt.name+" round-trips byte for byte", func(t *testing.T) {
			assertRoundTrip(t, tt.value)
		})
	}
}

func assertRoundTrip(t *testing.T, in string) {
	t.Helper()
	v, err := Unmarshal(in)
	if err != nil {
		t.Fatalf("Unmarshal error: %v", err)
	}
	out, err := Marshal(v)
	if err != nil {
		t.Fatalf("Marshal error: %v", err)
	}
	if out != in {
		t.Fatalf("round trip changed the bytes:\n in: %q\nout: %q", in, out)
	}
}

func TestNonCanonicalInputIsNormalised(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plus sign dropped", `i:+5;`, `i:5;`},
		{"leading zeros dropped", `i:007;`, `i:7;`},
		{"float written the PHP way", `d:1e5;`, `d:100000;`},
		{"numeric string key written as int", `a:1:{s:2:"12";N;}`, `a:1:{i:12;N;}`},
		{"S: string written as s:", `S:3:"\61bc";`, `s:3:"abc";`},
		{"duplicate keys collapse", `a:2:{i:0;i:1;i:0;i:2;}`, `a:1:{i:0;i:2;}`},
		{"object int property written as string", `O:1:"A":1:{i:0;N;}`, `O:1:"A":1:{s:1:"0";N;}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Unmarshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("Marshal(Unmarshal(%q)) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestArrayKeyNormalisation(t *testing.T) {
	tests := []struct {
		name    string
		key     any
		wantKey any
	}{
		{"canonical numeric string becomes int", "5", int64(5)},
		{"negative numeric string becomes int", "-3", int64(-3)},
		{"zero string becomes int", "0", int64(0)},
		{"min int64 string becomes int", "-9223372036854775808", int64(math.MinInt64)},
		{"leading zero stays string", "05", "05"},
		{"minus zero stays string", "-0", "-0"},
		{"plus sign stays string", "+5", "+5"},
		{"spaces stay string", " 5", " 5"},
		{"decimal stays string", "1.5", "1.5"},
		{"overflow stays string", "9223372036854775808", "9223372036854775808"},
		{"lone minus stays string", "-", "-"},
		{"empty string stays string", "", ""},
		{"Go int becomes int64", 7, int64(7)},
		{"uint16 becomes int64", uint16(7), int64(7)},
		{"true becomes 1 like PHP", true, int64(1)},
		{"false becomes 0 like PHP", false, int64(0)},
		{"nil becomes empty string like PHP", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewArray()
			a.Set(tt.key, "v")
			e := a.Entries()
			if len(e) != 1 || e[0].Key != tt.wantKey {
				t.Fatalf("Set(%#v) stored key %#v, want %#v", tt.key, e[0].Key, tt.wantKey)
			}
			if v, ok := a.Get(tt.wantKey); !ok || v != "v" {
				t.Fatalf("Get(%#v) = %v, %v; want v, true", tt.wantKey, v, ok)
			}
		})
	}
}

func TestArrayOperations(t *testing.T) {
	t.Run("Get with string finds integer key", func(t *testing.T) {
		a := assoc(5, "x")
		if v, ok := a.Get("5"); !ok || v != "x" {
			t.Fatalf(`Get("5") = %v, %v`, v, ok)
		}
	})
	t.Run("Get of a missing or unsupported key reports absence", func(t *testing.T) {
		a := assoc("k", "x")
		for _, k := range []any{"missing", 1.5, struct{}{}} {
			if v, ok := a.Get(k); ok {
				t.Fatalf("Get(%#v) = %v, true", k, v)
			}
		}
	})
	t.Run("Set on an existing key keeps its position", func(t *testing.T) {
		a := assoc("a", 1, "b", 2, "c", 3)
		a.Set("a", 9)
		got, _ := Marshal(a)
		if want := `a:3:{s:1:"a";i:9;s:1:"b";i:2;s:1:"c";i:3;}`; got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	})
	t.Run("Delete removes the entry and keeps the rest in order", func(t *testing.T) {
		a := assoc("a", 1, "b", 2, "c", 3)
		a.Delete("b")
		a.Delete("absent")
		got, _ := Marshal(a)
		if want := `a:2:{s:1:"a";i:1;s:1:"c";i:3;}`; got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
		if v, ok := a.Get("c"); !ok || v != 3 {
			t.Fatalf("Get(c) after delete = %v, %v", v, ok)
		}
	})
	t.Run("Append on an empty array uses key 0", func(t *testing.T) {
		a := NewArray()
		if err := a.Append("x"); err != nil {
			t.Fatal(err)
		}
		if e := a.Entries(); e[0].Key != int64(0) {
			t.Fatalf("key = %#v", e[0].Key)
		}
	})
	t.Run("Append follows the largest integer key, ignoring string keys", func(t *testing.T) {
		a := assoc(1, "x", "s", "y", 3, "z")
		_ = a.Append("new")
		got, _ := Marshal(a)
		if want := `a:4:{i:1;s:1:"x";s:1:"s";s:1:"y";i:3;s:1:"z";i:4;s:3:"new";}`; got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	})
	t.Run("Append does not reuse a deleted largest key, like PHP unset", func(t *testing.T) {
		a := list("a", "b", "c")
		a.Delete(2)
		_ = a.Append("d")
		if _, ok := a.Get(3); !ok {
			t.Fatalf("expected key 3, entries %v", a.Entries())
		}
	})
	t.Run("Append after a decoded gap list continues after the largest key", func(t *testing.T) {
		v, _ := Unmarshal(`a:2:{i:1;N;i:3;N;}`)
		a := v.(*Array)
		if n := a.NextIndex(); n != 4 {
			t.Fatalf("NextIndex = %d, want 4", n)
		}
	})
	t.Run("Append after only negative keys continues after them (PHP 8)", func(t *testing.T) {
		v, _ := Unmarshal(`a:1:{i:-3;N;}`)
		a := v.(*Array)
		_ = a.Append("x")
		if _, ok := a.Get(-2); !ok {
			t.Fatalf("expected key -2, entries %v", a.Entries())
		}
	})
	t.Run("Append fails when the next key would overflow", func(t *testing.T) {
		a := assoc(int64(math.MaxInt64), "x")
		if err := a.Append("y"); !errors.Is(err, ErrNextKeyOccupied) {
			t.Fatalf("Append error = %v, want ErrNextKeyOccupied", err)
		}
		if a.Len() != 1 {
			t.Fatalf("Len = %d after failed append", a.Len())
		}
	})
	t.Run("Entries returns a copy", func(t *testing.T) {
		a := list("x")
		e := a.Entries()
		e[0].Value = "changed"
		if v, _ := a.Get(0); v != "x" {
			t.Fatalf("mutating Entries changed the array: %v", v)
		}
	})
	t.Run("zero Array is usable", func(t *testing.T) {
		var a Array
		a.Set("k", "v")
		if v, ok := a.Get("k"); !ok || v != "v" || a.Len() != 1 {
			t.Fatalf("zero Array Set/Get failed: %v %v %d", v, ok, a.Len())
		}
	})
	t.Run("nil Array reads as empty", func(t *testing.T) {
		var a *Array
		if a.Len() != 0 || a.Entries() != nil || a.Has("x") {
			t.Fatal("nil Array is not empty")
		}
	})
	t.Run("Set with an unsupported key type panics", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Fatal("expected a panic")
			}
		}()
		NewArray().Set(1.5, "x")
	})
}

func TestObjectOperations(t *testing.T) {
	o := NewObject("stdClass")
	o.Set("5", "five")
	o.Set("a", 1)
	o.Set("5", "FIVE")
	if o.Len() != 2 {
		t.Fatalf("Len = %d, want 2", o.Len())
	}
	if v, ok := o.Get("5"); !ok || v != "FIVE" {
		t.Fatalf(`Get("5") = %v, %v`, v, ok)
	}
	got, _ := Marshal(o)
	if want := `O:8:"stdClass":2:{s:1:"5";s:4:"FIVE";s:1:"a";i:1;}`; got != want {
		t.Fatalf("numeric property name was not kept as a string: %s", got)
	}
	o.Delete("5")
	if _, ok := o.Get("5"); ok || o.Len() != 1 {
		t.Fatal("Delete did not remove the property")
	}
	if err := o.props.Append("x"); err == nil {
		t.Fatal("appending to an object property table should fail")
	}
}

func TestTypedAccessors(t *testing.T) {
	v, err := Unmarshal(`a:9:{s:3:"str";s:5:"hello";s:3:"int";i:42;s:3:"num";s:3:"7px";s:4:"flag";b:1;s:3:"off";s:1:"0";s:3:"nil";N;s:3:"arr";a:1:{i:0;i:1;}s:3:"emp";a:0:{}s:3:"flt";d:2.5;}`)
	if err != nil {
		t.Fatal(err)
	}
	a := v.(*Array)
	t.Run("String returns strings and converts scalars", func(t *testing.T) {
		cases := map[string]string{"str": "hello", "int": "42", "flag": "1", "nil": "", "flt": "2.5"}
		for k, want := range cases {
			if got, ok := a.String(k); !ok || got != want {
				t.Errorf("String(%q) = %q, %v; want %q", k, got, ok, want)
			}
		}
	})
	t.Run("String of an array or missing key is not ok", func(t *testing.T) {
		for _, k := range []string{"arr", "missing"} {
			if _, ok := a.String(k); ok {
				t.Errorf("String(%q) ok, want not ok", k)
			}
		}
	})
	t.Run("Int converts like PHP", func(t *testing.T) {
		cases := map[string]int64{"int": 42, "num": 7, "flag": 1, "nil": 0, "flt": 2, "str": 0}
		for k, want := range cases {
			if got, ok := a.Int(k); !ok || got != want {
				t.Errorf("Int(%q) = %d, %v; want %d", k, got, ok, want)
			}
		}
		if _, ok := a.Int("arr"); ok {
			t.Error("Int(arr) ok, want not ok")
		}
	})
	t.Run("Bool uses PHP truthiness", func(t *testing.T) {
		cases := map[string]bool{"str": true, "int": true, "flag": true, "off": false, "nil": false, "arr": true, "emp": false, "missing": false}
		for k, want := range cases {
			if got := a.Bool(k); got != want {
				t.Errorf("Bool(%q) = %v, want %v", k, got, want)
			}
		}
	})
	t.Run("Array returns nested arrays only", func(t *testing.T) {
		if inner, ok := a.Array("arr"); !ok || inner.Len() != 1 {
			t.Errorf("Array(arr) = %v, %v", inner, ok)
		}
		if _, ok := a.Array("str"); ok {
			t.Error("Array(str) ok, want not ok")
		}
	})
}

func TestToInt(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want int64
	}{
		{"numeric string", "123", 123},
		{"leading whitespace is skipped", "  \t12", 12},
		{"numeric prefix is used", "12abc", 12},
		{"non-numeric string is zero", "abc", 0},
		{"empty string is zero", "", 0},
		{"exponent string", "1e3", 1000},
		{"decimal string truncates", "-1.9", -1},
		{"leading-dot decimal", ".5", 0},
		{"hex is not parsed", "0x1A", 0},
		{"huge numeric string clamps", "99999999999999999999", math.MaxInt64},
		{"huge negative numeric string clamps", "-99999999999999999999", math.MinInt64},
		{"float truncates toward zero", -2.7, -2},
		{"NaN is zero", math.NaN(), 0},
		{"infinity is zero", math.Inf(1), 0},
		{"out-of-range float wraps modulo 2^64", 1e19, -8446744073709551616},
		{"true is one", true, 1},
		{"nil is zero", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ToInt(tt.in)
			if !ok || got != tt.want {
				t.Fatalf("ToInt(%#v) = %d, %v; want %d", tt.in, got, ok, tt.want)
			}
		})
	}
}

func TestToStringFloatUsesPHPPrecision(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{pointOne + pointTwo, "0.3"},
		{1e15, "1.0E+15"},
		{100000000000000, "1.0E+14"},
		{10000000000000, "10000000000000"},
		{-0.5, "-0.5"},
		{1.0 / 3, "0.33333333333333"},
	}
	for _, tt := range tests {
		t.Run("formats "+tt.want, func(t *testing.T) {
			if got, _ := ToString(tt.in); got != tt.want {
				t.Fatalf("ToString(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestToBool(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want bool
	}{
		{"nil is false", nil, false},
		{"zero is false", int64(0), false},
		{"non-zero is true", int64(-1), true},
		{"zero float is false", 0.0, false},
		{"NaN is true", math.NaN(), true},
		{`"0" is false`, "0", false},
		{`"" is false`, "", false},
		{`"0.0" is true`, "0.0", true},
		{`" " is true`, " ", true},
		{"empty array is false", NewArray(), false},
		{"non-empty array is true", list(nil), true},
		{"object is true", NewObject("stdClass"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ToBool(tt.in); got != tt.want {
				t.Fatalf("ToBool(%#v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestIsSerialized(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"null", `N;`, true},
		{"null with surrounding whitespace", " N;\n", true},
		{"array", `a:0:{}`, true},
		{"string", `s:1:"x";`, true},
		{"int", `i:5;`, true},
		{"negative float with exponent", `d:-1.0E+25;`, true},
		{"bool", `b:1;`, true},
		{"object", `O:8:"stdClass":0:{}`, true},
		{"plain text", `hello`, false},
		{"number as text", `12345`, false},
		{"too short", `i:;`, false},
		{"no colon", `a;0;{}`, false},
		{"wrong last character", `a:0:{}x`, false},
		{"string without closing quote", `s:1:"x;`, false},
		{"int with letters", `i:5a;`, false},
		{"custom objects are not recognised by WordPress", `C:3:"Foo":0:{}`, false},
		{"empty", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsSerialized(tt.in); got != tt.want {
				t.Fatalf("IsSerialized(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestMaybeUnserialize(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    any
		wantErr bool
	}{
		{"plain string is returned unchanged", "hello", "hello", false},
		{"serialized int is decoded", "i:5;", int64(5), false},
		{"surrounding whitespace is trimmed first", "\n a:1:{i:0;b:1;} \n", list(true), false},
		{"malformed serialized data becomes false", `a:1:{i:0;}`, false, true},
		{"serialized false decodes to false without error", `b:0;`, false, false},
		{"trailing bytes are ignored like PHP", `a:0:{}garbage;`, NewArray(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MaybeUnserialize(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, wantErr %v", err, tt.wantErr)
			}
			if !equal(got, tt.want) {
				t.Fatalf("MaybeUnserialize(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestUnmarshalPrefixReportsConsumedBytes(t *testing.T) {
	v, n, err := UnmarshalPrefix(`i:5;rest`)
	if err != nil || v != int64(5) || n != 4 {
		t.Fatalf("UnmarshalPrefix = %v, %d, %v; want 5, 4, nil", v, n, err)
	}
}

func FuzzUnmarshal(f *testing.F) {
	seeds := []string{
		`N;`, `b:1;`, `i:-5;`, `d:0.1;`, `d:NAN;`, `s:3:"abc";`, `a:0:{}`,
		`a:2:{i:0;s:1:"a";s:1:"k";a:1:{i:0;N;}}`, `O:8:"stdClass":1:{s:1:"x";i:1;}`,
		`C:3:"Foo":3:{xyz}`, `a:2:{i:0;O:8:"stdClass":0:{}i:1;r:2;}`, `a:2:{i:0;s:1:"x";i:1;R:2;}`,
		`S:3:"\61bc";`, `i:+007;`, `a:1:{s:1:"5";N;}`, `a:2:{i:0;i:1;i:0;i:2;}`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	for _, fv := range fixtureValues {
		f.Add(fv.value)
	}
	f.Fuzz(func(t *testing.T, in string) {
		v, err := Unmarshal(in)
		if err != nil {
			return
		}
		out, err := Marshal(v)
		if err != nil {
			t.Fatalf("decoded value of %q does not marshal: %v", in, err)
		}
		// out is the canonical form: it must decode again and re-encode to
		// itself. (Re-decoding may only fail when a duplicate key shifted
		// the slot numbers that a reference points at.)
		v2, err := Unmarshal(out)
		if err != nil {
			if !containsReference(v) {
				t.Fatalf("canonical form %q of %q does not decode: %v", out, in, err)
			}
			return
		}
		out2, err := Marshal(v2)
		if err != nil || out2 != out {
			t.Fatalf("canonical form is not stable: %q -> %q (%v)", out, out2, err)
		}
	})
}

func containsReference(v any) bool {
	switch x := v.(type) {
	case Reference:
		return true
	case *Array:
		for _, e := range x.entries {
			if containsReference(e.Value) {
				return true
			}
		}
	case *Object:
		for _, e := range x.props.entries {
			if containsReference(e.Value) {
				return true
			}
		}
	}
	return false
}
