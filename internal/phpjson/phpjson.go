// Package phpjson encodes and decodes JSON the way WordPress does: objects keep their key order,
// output escapes "/" and every non-ASCII character like PHP's json_encode with default flags, and
// decoded numbers keep their source text (json.Number) so PHP-style coercions can be applied later.
package phpjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Object is a JSON object with ordered keys (a PHP associative array).
//
// Keys and values sit in two parallel slices, found by a linear scan while the object is small
// (almost every record a request builds is) and through an index map once it is larger: an object
// costs two growing slices rather than a map, which would be a large share of the bytes a request
// allocates.
type Object struct {
	keys  []string
	vals  []any          // vals[i] is the value of keys[i]
	index map[string]int // key -> position, once there are more than smallObject keys
}

// smallObject is the largest object looked up by scanning its keys.
const smallObject = 16

// NewObject returns an empty object.
func NewObject() *Object { return &Object{} }

// Obj builds an object from alternating key/value pairs.
func Obj(kv ...any) *Object {
	o := &Object{keys: make([]string, 0, len(kv)/2), vals: make([]any, 0, len(kv)/2)}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// find is the position of key, or -1.
func (o *Object) find(key string) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// reindex rebuilds the index map when the object is large enough to need one.
func (o *Object) reindex() {
	o.index = nil
	if len(o.keys) <= smallObject {
		return
	}
	o.index = make(map[string]int, len(o.keys))
	for i, k := range o.keys {
		o.index[k] = i
	}
}

// Set assigns key, keeping its position when it already exists (PHP array semantics).
func (o *Object) Set(key string, v any) *Object {
	if i := o.find(key); i >= 0 {
		o.vals[i] = v
		return o
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	if o.index != nil {
		o.index[key] = len(o.keys) - 1
	} else if len(o.keys) > smallObject {
		o.reindex()
	}
	return o
}

// Get returns the value of key.
func (o *Object) Get(key string) (any, bool) {
	if o == nil {
		return nil, false
	}
	if i := o.find(key); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Has reports whether key is set.
func (o *Object) Has(key string) bool { _, ok := o.Get(key); return ok }

// Delete removes key. The key list Keys returned before stays as it was.
func (o *Object) Delete(key string) {
	i := o.find(key)
	if i < 0 {
		return
	}
	o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
	o.vals = append(o.vals[:i:i], o.vals[i+1:]...)
	o.reindex()
}

// Keys returns the keys in order.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// Len returns the number of keys.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// IsList reports whether the keys are "0", "1", ... in order (a PHP list decoded from a form).
func (o *Object) IsList() bool {
	for i, k := range o.keys {
		if k != strconv.Itoa(i) {
			return false
		}
	}
	return true
}

// Values returns the values in key order.
func (o *Object) Values() []any {
	if o == nil {
		return []any{}
	}
	return append(make([]any, 0, len(o.vals)), o.vals...)
}

// MarshalJSON lets encoding/json callers embed Objects.
func (o *Object) MarshalJSON() ([]byte, error) { return Marshal(o) }

// Marshal encodes v like PHP's json_encode($v) (escaped slashes and unicode).
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := encode(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// MarshalTo is Marshal into a buffer the caller owns (and may reuse: responses are encoded into
// pooled buffers rather than grown from nothing each time).
func MarshalTo(b *bytes.Buffer, v any) error { return encode(b, v) }

// MustMarshal is Marshal for values built by this program, which cannot fail to encode.
func MustMarshal(v any) []byte {
	b, err := Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func encode(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		writeString(b, x)
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.New("phpjson: unsupported float")
		}
		b.WriteString(formatFloat(x))
	case json.Number:
		b.WriteString(string(x))
	case Raw:
		b.Write(x)
	case *Object:
		if x == nil {
			b.WriteString("null")
			return nil
		}
		// PHP encodes an empty array as [] whatever it stood for.
		if len(x.keys) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := encode(b, x.vals[i]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encode(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, e)
		}
		b.WriteByte(']')
	case []*Object:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encode(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := NewObject()
		for _, k := range keys {
			o.Set(k, x[k])
		}
		return encode(b, o)
	case json.Marshaler:
		raw, err := x.MarshalJSON()
		if err != nil {
			return err
		}
		b.Write(raw)
	default:
		return fmt.Errorf("phpjson: cannot encode %T", v)
	}
	return nil
}

// formatFloat renders floats as PHP 7.1+ does with serialize_precision -1.
func formatFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

const hexDigits = "0123456789abcdef"

// writeString escapes like json_encode: \/ for slashes, \uXXXX (UTF-16) for non-ASCII; invalid UTF-8
// becomes U+FFFD (PHP would fail the whole response; a replacement character is kinder).
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '/':
				b.WriteString(`\/`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			default:
				if c < 0x20 {
					b.WriteString(`\u00`)
					b.WriteByte(hexDigits[c>>4])
					b.WriteByte(hexDigits[c&0xf])
				} else {
					b.WriteByte(c)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			r -= 0x10000
			writeU(b, 0xD800+(r>>10))
			writeU(b, 0xDC00+(r&0x3FF))
			continue
		}
		writeU(b, r)
	}
	b.WriteByte('"')
}

func writeU(b *bytes.Buffer, r rune) {
	b.WriteString(`\u`)
	b.WriteByte(hexDigits[(r>>12)&0xf])
	b.WriteByte(hexDigits[(r>>8)&0xf])
	b.WriteByte(hexDigits[(r>>4)&0xf])
	b.WriteByte(hexDigits[r&0xf])
}

// SyntaxError describes malformed JSON the way PHP's json_last_error reports it.
type SyntaxError struct {
	Code    int    // PHP JSON_ERROR_* code
	Message string // json_last_error_msg()
}

func (e *SyntaxError) Error() string { return e.Message }

// Decode parses JSON into nil, bool, json.Number, string, []any and *Object, keeping key order.
// Duplicate keys keep the last value, as json_decode does.
func Decode(data []byte) (any, error) {
	return DecodeReader(bytes.NewReader(data), nil)
}

// Budget is charged for every value as it is decoded (scalars, arrays, objects), with an estimate of
// the bytes the value takes (a string's or key's length plus a fixed overhead). A non-nil error stops
// the decoding at once: DecodeReader returns that error as it is, so a caller can bound what one
// document may cost before it has been read whole.
type Budget func(size int) error

// Fixed per-value overheads the budget is charged, besides the text of strings, numbers and keys.
const (
	scalarCost    = 32
	containerCost = 64
	keyCost       = 32
)

type budgetError struct{ err error }

func (e budgetError) Error() string { return e.err.Error() }

// DecodeReader is Decode over a stream, value by value: with a budget, a huge document is refused as
// soon as it exceeds it, without holding it. Errors of r other than EOF and of the budget are returned
// as they are; anything else wrong is a *SyntaxError.
func DecodeReader(r io.Reader, budget Budget) (any, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	d := &decoder{dec: dec, budget: budget}
	v, err := d.value(0)
	if err == nil {
		if _, err = dec.Token(); err == io.EOF {
			return v, nil
		}
		if err == nil {
			return nil, &SyntaxError{Code: 4, Message: "Syntax error"}
		}
	}
	var be budgetError
	switch {
	case errors.As(err, &be):
		return nil, be.err
	case errors.Is(err, errDepth):
		return nil, &SyntaxError{Code: 1, Message: "Maximum stack depth exceeded"}
	case isReadError(err):
		return nil, err
	}
	return nil, &SyntaxError{Code: 4, Message: "Syntax error"}
}

// isReadError tells the reader's own failures from what encoding/json reports about the text.
func isReadError(err error) bool {
	var se *json.SyntaxError
	var ue *json.UnmarshalTypeError
	return !errors.As(err, &se) && !errors.As(err, &ue) && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) &&
		err != errBadKey && err != errDelim && err != errDepth
}

type decoder struct {
	dec    *json.Decoder
	budget Budget
}

func (d *decoder) charge(size int) error {
	if d.budget == nil {
		return nil
	}
	if err := d.budget(size); err != nil {
		return budgetError{err}
	}
	return nil
}

// MaxDepth is json_decode's default depth: arrays and objects nested deeper are refused
// (JSON_ERROR_DEPTH), which also bounds the decoder's recursion.
const MaxDepth = 512

var (
	errDepth  = errors.New("maximum stack depth exceeded")
	errBadKey = errors.New("bad key")
	errDelim  = errors.New("unexpected delimiter")
)

func (d *decoder) value(depth int) (any, error) {
	dec := d.dec
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth++; depth > MaxDepth {
			return nil, errDepth
		}
		if err := d.charge(containerCost); err != nil {
			return nil, err
		}
		switch t {
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errBadKey
				}
				if err := d.charge(keyCost + len(k)); err != nil {
					return nil, err
				}
				v, err := d.value(depth)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			list := []any{}
			for dec.More() {
				v, err := d.value(depth)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return list, nil
		}
		return nil, errDelim
	case string:
		return t, d.charge(scalarCost + len(t))
	case json.Number:
		return t, d.charge(scalarCost + len(t))
	default:
		return t, d.charge(scalarCost)
	}
}
