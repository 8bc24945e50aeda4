package phpserial

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzMaybeUnserialize extends FuzzUnmarshal (decode, encode, decode again) to the way calendard
// reads option and meta rows: maybe_unserialize over text that may or may not be serialized, with
// PHP's surrounding whitespace, trailing bytes after a value, and the accessors that read what came
// out. No panic; UnmarshalPrefix agrees with Unmarshal and consumes a prefix; text that is not
// serialized comes back as it is. Under plain `go test` only the seeds run.
func FuzzMaybeUnserialize(f *testing.F) {
	for _, s := range []string{
		"", "N;", " N; ", "b:0;", "i:12;rest", "s:0:\"\";", "s:3:\"abc\";x", "s:5:\"abc\";", "s:-1:\"\";",
		"s:99999999999999999999:\"a\";", "a:1:{s:13:\"administrator\";b:1;}", "a:2:{i:0;s:1:\"a\";i:0;s:1:\"b\";}",
		"a:1:{i:9223372036854775807;N;}", "a:1:{s:20:\"-9223372036854775808\";N;}", "a:-1:{}", "a:1:{}",
		"a:1:{a:0:{}i:1;}", "O:8:\"stdClass\":1:{s:1:\"a\";r:1;}", "O:1:\"A\":0:{}", "C:1:\"X\":0:{}", "E:3:\"A:B\";",
		"d:1e400;", "d:-INF;", "d:0x1;", "i:99999999999999999999;", "a:1:{i:0;R:9;}", `a:3:{i:0;s:2:"ok";i:1;d:0.5;i:2;b:1;}`,
		strings.Repeat("a:1:{i:0;", 100) + "N;" + strings.Repeat("}", 100), "\t\n\r\x00\x0bN;", "s:1:\"\xff\";",
		`a:2:{s:4:"name";s:8:"calendar";s:8:"password";s:34:"$P$BxxxxxxxxxxxxxxxxxxxxxxxxxxxxX/";}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		serialized := IsSerialized(s)
		v, err := MaybeUnserialize(s)
		if !serialized && (err != nil || v != s) {
			t.Fatalf("MaybeUnserialize(%q) changed text that is not serialized: %#v, %v", s, v, err)
		}
		pv, n, perr := UnmarshalPrefix(s)
		if perr == nil && (n <= 0 || n > len(s)) {
			t.Fatalf("UnmarshalPrefix(%q) consumed %d bytes", s, n)
		}
		if full, ferr := Unmarshal(s); ferr == nil {
			if perr != nil || n != len(s) {
				t.Fatalf("Unmarshal(%q) succeeded but UnmarshalPrefix gave %d, %v", s, n, perr)
			}
			a, _ := Marshal(full)
			b, _ := Marshal(pv)
			if a != b {
				t.Fatalf("Unmarshal and UnmarshalPrefix disagree on %q", s)
			}
		} else if perr == nil && n == len(s) {
			t.Fatalf("UnmarshalPrefix(%q) consumed everything but Unmarshal failed: %v", s, ferr)
		}
		for _, val := range []any{v, pv} {
			_ = ToBool(val)
			_, _ = ToInt(val)
			_, _ = ToString(val)
			if arr, ok := val.(*Array); ok {
				for _, e := range arr.Entries() {
					_, _ = arr.Get(e.Key)
					_ = arr.Bool(e.Key)
					_, _ = arr.Int(e.Key)
					_, _ = arr.String(e.Key)
					_, _ = arr.Array(e.Key)
				}
				_ = arr.NextIndex()
			}
		}
		if k, ok := NumericKey(s); ok && strconv.FormatInt(k, 10) != s {
			t.Fatalf("NumericKey(%q) = %d is not canonical", s, k)
		}
	})
}
