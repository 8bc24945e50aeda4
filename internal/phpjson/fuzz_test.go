package phpjson

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzDecode holds the JSON body decoder to its contract on any input: it never panics; it fails
// only with a *SyntaxError (the reader cannot fail); what it accepts encodes, and the encoding
// decodes to a value that encodes the same again; reading the stream byte by byte changes nothing;
// a budget sees every value and its error comes back as it is; and a reader's own error is never
// reported as a syntax error of a document that was valid so far. Under plain `go test` only the
// seeds run.
func FuzzDecode(f *testing.F) {
	seeds := []string{
		``, ` `, `null`, `true`, `false`, `0`, `-0`, `1e400`, `-1.5E-10`, `12.50`, `"x"`, `"\u00e9\ud83c\udf89"`,
		`"\ud800"`, `"\u0000"`, "\"\xff\xfe\"", `[]`, `{}`, `[1,"a",null,{}]`, `{"a":1,"a":2}`, `{"b":[],"a":{"c":[1]}}`,
		`{"title":"T","start_date":"2027-01-01 10:00","categories":[1,"x"],"venue":{"venue":"V"}}`,
		`[1,1,1,1,1,1,1,1,1,1]`, `[{},{},{},{}]`, `{"0":"a","1":"b"}`, `{"":1}`, `[1,]`, `{"a"}`, `{1:2}`, `]`, `}`,
		`[1] [2]`, `"a" x`, `01`, `1.`, `.5`, `+1`, `NaN`, `tru`, `"unterminated`, `[` + strings.Repeat(`[`, 600),
		strings.Repeat(`[`, 512) + strings.Repeat(`]`, 512), strings.Repeat(`[`, 513) + strings.Repeat(`]`, 513),
		`{"a":` + strings.Repeat(`{"a":`, 20) + `1` + strings.Repeat(`}`, 21), "\ufeff{}", "{\"a\":1}\x00",
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint16(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, stopAt uint16) {
		v, err := Decode(data)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Decode(%q) failed with %T %v, want a *SyntaxError", data, err, err)
			}
			if v != nil {
				t.Fatalf("Decode(%q) failed but returned %#v", data, v)
			}
		} else {
			out, err := Marshal(v)
			if err != nil {
				t.Fatalf("decoded value of %q does not encode: %v", data, err)
			}
			v2, err := Decode(out)
			if err != nil {
				t.Fatalf("encoding %q of %q does not decode: %v", out, data, err)
			}
			if out2, err := Marshal(v2); err != nil || !bytes.Equal(out, out2) {
				t.Fatalf("encoding of %q is not stable: %q then %q (%v)", data, out, out2, err)
			}
		}

		// The same document read one byte at a time, with a budget that counts every value.
		values := 0
		count := func(size int) error {
			if size <= 0 {
				t.Fatalf("budget charged %d bytes", size)
			}
			values++
			return nil
		}
		vs, errs := DecodeReader(iotest.OneByteReader(bytes.NewReader(data)), count)
		if (err == nil) != (errs == nil) {
			t.Fatalf("Decode(%q) = %v but DecodeReader byte by byte = %v", data, err, errs)
		}
		if err == nil && !bytes.Equal(MustMarshal(v), MustMarshal(vs)) {
			t.Fatalf("Decode and DecodeReader disagree on %q", data)
		}
		if err == nil && values == 0 {
			t.Fatalf("DecodeReader(%q) charged no value", data)
		}

		// A budget that refuses a value stops the decoding with its own error.
		errFull := errors.New("budget full")
		seen := 0
		_, errb := DecodeReader(bytes.NewReader(data), func(int) error {
			if seen++; seen > int(stopAt) {
				return errFull
			}
			return nil
		})
		if err == nil && values > int(stopAt) && errb != errFull {
			t.Fatalf("DecodeReader(%q) with a budget of %d values of %d: %v, want the budget's error", data, stopAt, values, errb)
		}
		if errb == errFull && seen != int(stopAt)+1 {
			t.Fatalf("DecodeReader(%q) went on after the budget refused (%d charges)", data, seen)
		}

		// A reader failing after the whole text (a body cut short, a deadline) is that failure, not
		// a syntax error, when the text was valid so far.
		errCut := errors.New("connection reset")
		_, errr := DecodeReader(io.MultiReader(bytes.NewReader(data), iotest.ErrReader(errCut)), nil)
		if err == nil && errr != errCut {
			t.Fatalf("DecodeReader(%q then a read error) = %v, want the read error", data, errr)
		}
		var se *SyntaxError
		if errr != errCut && !errors.As(errr, &se) {
			t.Fatalf("DecodeReader(%q then a read error) = %T %v", data, errr, errr)
		}
	})
}
