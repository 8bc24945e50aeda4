package phpserial

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Marshal encodes v exactly as PHP's serialize() would (with PHP's default
// serialize_precision=-1 for floats).
//
// It accepts the values Unmarshal returns (nil, bool, int64, float64,
// string, *Array, *Object, *CustomObject, Reference) and, for convenience,
// the other Go integer types, float32, []byte (as a string), []any and
// []string (as lists), and map[string]any / map[string]string (keys sorted,
// then stored with PHP's key rules, so "5" becomes the integer key 5).
func Marshal(v any) (string, error) {
	var b strings.Builder
	if err := encode(&b, v, 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

func encode(b *strings.Builder, v any, depth int) error {
	if depth > MaxDepth {
		// Also stops a self-containing *Array from recursing forever.
		return fmt.Errorf("phpserial: maximum depth of %d exceeded (cyclic value?)", MaxDepth)
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("N;")
	case bool:
		if x {
			b.WriteString("b:1;")
		} else {
			b.WriteString("b:0;")
		}
	case int64:
		writeInt(b, x)
	case int:
		writeInt(b, int64(x))
	case int8:
		writeInt(b, int64(x))
	case int16:
		writeInt(b, int64(x))
	case int32:
		writeInt(b, int64(x))
	case uint8:
		writeInt(b, int64(x))
	case uint16:
		writeInt(b, int64(x))
	case uint32:
		writeInt(b, int64(x))
	case uint:
		if uint64(x) > math.MaxInt64 {
			return fmt.Errorf("phpserial: %d does not fit a PHP integer", x)
		}
		writeInt(b, int64(x))
	case uint64:
		if x > math.MaxInt64 {
			return fmt.Errorf("phpserial: %d does not fit a PHP integer", x)
		}
		writeInt(b, int64(x))
	case float64:
		b.WriteString("d:")
		b.WriteString(formatFloat(x, -1))
		b.WriteByte(';')
	case float32:
		// Widen exactly; PHP has only doubles.
		return encode(b, float64(x), depth)
	case string:
		writeString(b, x)
		b.WriteByte(';')
	case []byte:
		writeString(b, string(x))
		b.WriteByte(';')
	case *Array:
		if x == nil {
			b.WriteString("N;")
			return nil
		}
		b.WriteString("a:")
		b.WriteString(strconv.Itoa(len(x.entries)))
		b.WriteString(":{")
		if err := encodeEntries(b, x.entries, depth); err != nil {
			return err
		}
		b.WriteByte('}')
	case *Object:
		if x == nil {
			b.WriteString("N;")
			return nil
		}
		if !validClassName(x.Class) {
			return fmt.Errorf("phpserial: invalid class name %q", x.Class)
		}
		b.WriteString("O:")
		writeLenQuoted(b, x.Class)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(len(x.props.entries)))
		b.WriteString(":{")
		if err := encodeEntries(b, x.props.entries, depth); err != nil {
			return err
		}
		b.WriteByte('}')
	case *CustomObject:
		if x == nil {
			b.WriteString("N;")
			return nil
		}
		if !validClassName(x.Class) {
			return fmt.Errorf("phpserial: invalid class name %q", x.Class)
		}
		b.WriteString("C:")
		writeLenQuoted(b, x.Class)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(len(x.Data)))
		b.WriteString(":{")
		b.WriteString(x.Data)
		b.WriteByte('}')
	case Reference:
		if x.Index < 1 {
			return fmt.Errorf("phpserial: invalid reference index %d", x.Index)
		}
		if x.ByRef {
			b.WriteString("R:")
		} else {
			b.WriteString("r:")
		}
		b.WriteString(strconv.FormatInt(x.Index, 10))
		b.WriteByte(';')
	case []any:
		a := NewArray()
		for _, e := range x {
			a.set(int64(a.Len()), e)
		}
		return encode(b, a, depth)
	case []string:
		a := NewArray()
		for _, e := range x {
			a.set(int64(a.Len()), e)
		}
		return encode(b, a, depth)
	case map[string]any:
		return encode(b, arrayFromMap(x), depth)
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = e
		}
		return encode(b, arrayFromMap(m), depth)
	default:
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return fmt.Errorf("phpserial: cannot serialize nil %T", v)
		}
		return fmt.Errorf("phpserial: cannot serialize Go type %T", v)
	}
	return nil
}

func encodeEntries(b *strings.Builder, entries []Entry, depth int) error {
	for _, e := range entries {
		switch k := e.Key.(type) {
		case int64:
			writeInt(b, k)
		case string:
			writeString(b, k)
			b.WriteByte(';')
		default:
			return fmt.Errorf("phpserial: invalid key type %T", e.Key)
		}
		if err := encode(b, e.Value, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func arrayFromMap(m map[string]any) *Array {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	a := NewArray()
	for _, k := range keys {
		a.Set(k, m[k])
	}
	return a
}

func writeInt(b *strings.Builder, n int64) {
	b.WriteString("i:")
	b.WriteString(strconv.FormatInt(n, 10))
	b.WriteByte(';')
}

// writeString writes s:<byte length>:"<bytes>" without the trailing ';'.
func writeString(b *strings.Builder, s string) {
	b.WriteString("s:")
	writeLenQuoted(b, s)
}

// writeLenQuoted writes <byte length>:"<bytes>", the shape shared by strings
// and class names.
func writeLenQuoted(b *strings.Builder, s string) {
	b.WriteString(strconv.Itoa(len(s)))
	b.WriteString(`:"`)
	b.WriteString(s)
	b.WriteByte('"')
}
