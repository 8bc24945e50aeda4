// Package phpserial is an order-preserving codec for PHP's serialize() /
// unserialize() format, as stored by WordPress in wp_options, wp_usermeta,
// wp_postmeta and friends.
//
// Decoded values are nil, bool, int64, float64, string, *Array, *Object,
// *CustomObject and Reference. Arrays and objects keep their entries in
// insertion order, so a value written by PHP's serialize() re-encodes to the
// identical bytes, which lets calendard read-modify-write WordPress rows
// without disturbing anything it did not mean to change.
package phpserial

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// ErrNextKeyOccupied is returned by Append when the largest integer key is
// already math.MaxInt64, the case in which PHP refuses "$a[] = v".
var ErrNextKeyOccupied = errors.New("phpserial: cannot append, the next integer key is already occupied")

// Entry is one key/value pair of an Array (Key is int64 or string) or one
// property of an Object (Key is always a string).
type Entry struct {
	Key   any
	Value any
}

// Array is an ordered PHP array. Keys are int64 or string; a string key that
// is a canonical decimal integer ("5", "-3", but not "05", "+5" or "-0") is
// stored as the integer, exactly as PHP does. The zero value is an empty array
// ready to use.
type Array struct {
	entries []Entry
	index   map[any]int // key -> position in entries
	// nextFree is one past the largest integer key ever stored (PHP's
	// nNextFreeElement); hasNext says whether any integer key was stored.
	nextFree int64
	hasNext  bool
	// objectKeys marks the property table of an Object: keys are always
	// strings and are not normalised to integers.
	objectKeys bool
}

// NewArray returns an empty Array.
func NewArray() *Array { return &Array{} }

// Len returns the number of entries.
func (a *Array) Len() int {
	if a == nil {
		return 0
	}
	return len(a.entries)
}

// Entries returns a copy of the entries in order.
func (a *Array) Entries() []Entry {
	if a == nil {
		return nil
	}
	out := make([]Entry, len(a.entries))
	copy(out, a.entries)
	return out
}

// Get returns the value stored under key (a string or any Go integer type;
// PHP key normalisation applies, so Get("5") finds the entry stored as 5).
func (a *Array) Get(key any) (any, bool) {
	if a == nil {
		return nil, false
	}
	k, ok := a.normKey(key)
	if !ok {
		return nil, false
	}
	i, ok := a.index[k]
	if !ok {
		return nil, false
	}
	return a.entries[i].Value, true
}

// Has reports whether key is present (even if its value is null).
func (a *Array) Has(key any) bool {
	_, ok := a.Get(key)
	return ok
}

// Set stores v under key. An existing key keeps its position (as PHP's
// $a[k] = v does); a new key is appended. Keys may be strings, Go integer
// types, bool (false→0, true→1) or nil (→ ""), as in PHP. Any other key type
// is a programming error and panics.
func (a *Array) Set(key any, v any) {
	k, ok := a.normKey(key)
	if !ok {
		panic(fmt.Sprintf("phpserial: unsupported array key type %T", key))
	}
	a.set(k, v)
}

// set stores v under an already normalised key.
func (a *Array) set(k any, v any) {
	if i, ok := a.index[k]; ok {
		a.entries[i].Value = v
		return
	}
	if a.index == nil {
		a.index = make(map[any]int)
	}
	a.index[k] = len(a.entries)
	a.entries = append(a.entries, Entry{Key: k, Value: v})
	if n, ok := k.(int64); ok {
		if !a.hasNext || n >= a.nextFree {
			// PHP 8: the next free key follows the largest one, even a
			// negative one; at MaxInt64 it stays put and Append fails.
			if n < math.MaxInt64 {
				a.nextFree = n + 1
			} else {
				a.nextFree = n
			}
			a.hasNext = true
		}
	}
}

// Delete removes key if present. Like PHP's unset(), it does not lower the
// next integer key used by Append.
func (a *Array) Delete(key any) {
	if a == nil {
		return
	}
	k, ok := a.normKey(key)
	if !ok {
		return
	}
	i, ok := a.index[k]
	if !ok {
		return
	}
	delete(a.index, k)
	a.entries = append(a.entries[:i], a.entries[i+1:]...)
	for j := i; j < len(a.entries); j++ {
		a.index[a.entries[j].Key] = j
	}
}

// Append adds v under the next integer key, as PHP's $a[] = v: one past the
// largest integer key the array has ever held, or 0 if it never held one.
func (a *Array) Append(v any) error {
	if a.objectKeys {
		return errors.New("phpserial: cannot append to an object")
	}
	next := int64(0)
	if a.hasNext {
		next = a.nextFree
		if _, taken := a.index[next]; taken {
			return ErrNextKeyOccupied
		}
	}
	a.set(next, v)
	return nil
}

// NextIndex returns the key the next Append would use.
func (a *Array) NextIndex() int64 {
	if a == nil || !a.hasNext {
		return 0
	}
	return a.nextFree
}

// normKey converts a Go key to the form stored in the index (int64 or
// string), applying PHP's array key rules.
func (a *Array) normKey(key any) (any, bool) {
	var k any
	switch v := key.(type) {
	case string:
		k = v
	case int:
		k = int64(v)
	case int8:
		k = int64(v)
	case int16:
		k = int64(v)
	case int32:
		k = int64(v)
	case int64:
		k = v
	case uint:
		if uint64(v) > math.MaxInt64 {
			return nil, false
		}
		k = int64(v)
	case uint8:
		k = int64(v)
	case uint16:
		k = int64(v)
	case uint32:
		k = int64(v)
	case uint64:
		if v > math.MaxInt64 {
			return nil, false
		}
		k = int64(v)
	case bool:
		if v {
			k = int64(1)
		} else {
			k = int64(0)
		}
	case nil:
		k = ""
	default:
		return nil, false
	}
	if a != nil && a.objectKeys {
		// Object property names are always strings.
		if n, ok := k.(int64); ok {
			return strconv.FormatInt(n, 10), true
		}
		return k, true
	}
	if s, ok := k.(string); ok {
		if n, ok := NumericKey(s); ok {
			return n, true
		}
	}
	return k, true
}

// NumericKey reports whether PHP would store the string s as an integer
// array key (ZEND_HANDLE_NUMERIC_STR): an optional '-', then decimal digits
// with no leading zero (except "0" itself), within int64 range, and not "-0".
func NumericKey(s string) (int64, bool) {
	if s == "" || len(s) > 20 {
		return 0, false
	}
	digits := s
	if s[0] == '-' {
		digits = s[1:]
	}
	if digits == "" || (digits[0] == '0' && len(s) > 1) {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// String returns the value under key converted as PHP's (string) cast would
// for scalars (see ToString). ok is false if the key is missing or the value
// is an array or object.
func (a *Array) String(key any) (string, bool) {
	v, ok := a.Get(key)
	if !ok {
		return "", false
	}
	return ToString(v)
}

// Int returns the value under key converted as PHP's (int) cast would for
// scalars (see ToInt). ok is false if the key is missing or the value is an
// array or object.
func (a *Array) Int(key any) (int64, bool) {
	v, ok := a.Get(key)
	if !ok {
		return 0, false
	}
	return ToInt(v)
}

// Bool returns the PHP truthiness of the value under key (see ToBool); a
// missing key is false, like PHP's !empty($a[$key]).
func (a *Array) Bool(key any) bool {
	v, ok := a.Get(key)
	if !ok {
		return false
	}
	return ToBool(v)
}

// Array returns the value under key if it is an array.
func (a *Array) Array(key any) (*Array, bool) {
	v, ok := a.Get(key)
	if !ok {
		return nil, false
	}
	arr, ok := v.(*Array)
	return arr, ok && arr != nil
}

// Object is a PHP object: its class name and its properties in order.
// Private and protected property names keep PHP's mangling
// ("\x00Class\x00name", "\x00*\x00name"), so they re-encode unchanged.
type Object struct {
	Class string
	props Array
}

// NewObject returns an object of the given class with no properties.
func NewObject(class string) *Object {
	return &Object{Class: class, props: Array{objectKeys: true}}
}

// Len returns the number of properties.
func (o *Object) Len() int { return o.props.Len() }

// Get returns the property called name.
func (o *Object) Get(name string) (any, bool) { return o.props.Get(name) }

// Set stores property name, keeping its position if it already exists.
func (o *Object) Set(name string, v any) {
	o.props.objectKeys = true
	o.props.set(name, v)
}

// Delete removes property name.
func (o *Object) Delete(name string) { o.props.Delete(name) }

// Props returns a copy of the properties in order; every Key is a string.
func (o *Object) Props() []Entry { return o.props.Entries() }

// CustomObject is an object written by a class implementing Serializable:
// C:<len>:"Class":<len>:{Data}. Data is opaque and kept verbatim.
type CustomObject struct {
	Class string
	Data  string
}

// Reference is a PHP back-reference to an earlier value of the same
// serialized string: R:<n>; (ByRef, a PHP & reference) or r:<n>; (the same
// object again). Index is PHP's 1-based value slot number. calendard does not
// resolve references; it keeps them so that they re-encode unchanged.
type Reference struct {
	Index int64
	ByRef bool
}
