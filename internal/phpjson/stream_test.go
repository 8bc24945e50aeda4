package phpjson

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// endless yields "[1,1,1,…" forever and counts what was read.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		if e.n == 0 {
			p[i] = '['
		} else if e.n%2 == 1 {
			p[i] = '1'
		} else {
			p[i] = ','
		}
		e.n++
	}
	return len(p), nil
}

// A budget stops a huge document as soon as it is exceeded: the stream is not read whole and the
// budget's own error comes back.
func TestDecodeReaderStopsAtTheBudget(t *testing.T) {
	errFull := errors.New("full")
	values := 0
	src := &endless{}
	_, err := DecodeReader(src, func(size int) error {
		if values++; values > 1000 {
			return errFull
		}
		return nil
	})
	if err != errFull {
		t.Fatalf("err = %v, want the budget's error", err)
	}
	if src.n > 64<<10 {
		t.Errorf("read %d bytes to refuse 1000 values", src.n)
	}
}

func TestDecodeReaderChargesEveryValue(t *testing.T) {
	var sizes []int
	v, err := DecodeReader(strings.NewReader(`{"ab":[1,"xyz",null,{}]}`), func(size int) error {
		sizes = append(sizes, size)
		return nil
	})
	if err != nil || v == nil {
		t.Fatal(v, err)
	}
	// object, key "ab", array, 1, "xyz", null, {}
	want := []int{containerCost, keyCost + 2, containerCost, scalarCost + 1, scalarCost + 3, scalarCost, containerCost}
	if len(sizes) != len(want) {
		t.Fatalf("charges %v, want %v", sizes, want)
	}
	for i := range want {
		if sizes[i] != want[i] {
			t.Errorf("charges %v, want %v", sizes, want)
			break
		}
	}
}

type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }

// The reader's failures are not syntax errors: the caller must tell a slow or oversized body from
// malformed JSON.
func TestDecodeReaderPassesReadErrors(t *testing.T) {
	errSlow := errors.New("i/o timeout")
	if _, err := DecodeReader(io.MultiReader(strings.NewReader(`{"a":`), failing{errSlow}), nil); err != errSlow {
		t.Errorf("err = %v, want the reader's", err)
	}
	for _, bad := range []string{`{"a":`, `[1,2`, `{"a":1}x`, `{1:2}`, `]`, `"\x`} {
		var se *SyntaxError
		if _, err := DecodeReader(strings.NewReader(bad), nil); !errors.As(err, &se) || se.Code != 4 {
			t.Errorf("%q: err = %v, want a syntax error", bad, err)
		}
	}
	var se *SyntaxError
	if _, err := Decode([]byte(strings.Repeat("[", MaxDepth+1))); !errors.As(err, &se) || se.Code != 1 {
		t.Errorf("deep: err = %v, want a depth error", err)
	}
}
