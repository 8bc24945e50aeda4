package phpserial

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxDepth is the deepest nesting of arrays and objects accepted, the same
// as PHP's default unserialize_max_depth.
const MaxDepth = 4096

// SyntaxError reports malformed serialized data and the byte offset where
// decoding stopped.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("phpserial: %s at offset %d", e.Msg, e.Offset)
}

// Unmarshal decodes one serialized PHP value that must span all of s.
//
// It accepts what PHP 8's unserialize() accepts (including the lenient forms
// "i:+5;", "d:.5;", "S:" escaped strings and numeric string array keys,
// which PHP stores as integers) and returns nil, bool, int64, float64,
// string, *Array, *Object, *CustomObject or Reference values. Unlike PHP it
// rejects trailing bytes after the value. It never panics on bad input.
func Unmarshal(s string) (any, error) {
	d := decoder{s: s}
	v, err := d.value(false)
	if err != nil {
		return nil, err
	}
	if d.pos != len(s) {
		return nil, d.errorf("unexpected data after the value")
	}
	return v, nil
}

// UnmarshalPrefix decodes the serialized value at the start of s and returns
// it with the number of bytes consumed; trailing bytes are ignored, as PHP's
// unserialize() ignores them.
func UnmarshalPrefix(s string) (any, int, error) {
	d := decoder{s: s}
	v, err := d.value(false)
	if err != nil {
		return nil, 0, err
	}
	return v, d.pos, nil
}

type decoder struct {
	s     string
	pos   int
	depth int
	// slots records, for each value PHP would register for back-references
	// (every value except array keys and R:), whether it is an object, so
	// that r:/R: can be range- and type-checked as PHP does.
	slots []bool
}

func (d *decoder) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: d.pos, Msg: fmt.Sprintf(format, args...)}
}

// expect consumes the literal lit.
func (d *decoder) expect(lit string) error {
	if !strings.HasPrefix(d.s[d.pos:], lit) {
		return d.errorf("expected %q", lit)
	}
	d.pos += len(lit)
	return nil
}

// uint reads unsigned decimal digits (at least one) that fit an int64.
func (d *decoder) uint() (int64, error) {
	start := d.pos
	var n int64
	for d.pos < len(d.s) && d.s[d.pos] >= '0' && d.s[d.pos] <= '9' {
		c := int64(d.s[d.pos] - '0')
		if n > (math.MaxInt64-c)/10 {
			return 0, d.errorf("number too large")
		}
		n = n*10 + c
		d.pos++
	}
	if d.pos == start {
		return 0, d.errorf("expected digits")
	}
	return n, nil
}

// int reads PHP's parse_iv2: optional sign then digits. required says
// whether at least one digit must be present (the grammar requires it for
// i:, while object member counts do not). Out-of-range values clamp to the
// int64 limits, as PHP does (with a warning).
func (d *decoder) int(required bool) (int64, error) {
	neg := false
	if d.pos < len(d.s) && (d.s[d.pos] == '-' || d.s[d.pos] == '+') {
		neg = d.s[d.pos] == '-'
		d.pos++
	}
	start := d.pos
	var u uint64
	overflow := false
	for d.pos < len(d.s) && d.s[d.pos] >= '0' && d.s[d.pos] <= '9' {
		c := uint64(d.s[d.pos] - '0')
		if u > (math.MaxUint64-c)/10 {
			overflow = true
		} else {
			u = u*10 + c
		}
		d.pos++
	}
	if required && d.pos == start {
		return 0, d.errorf("expected digits")
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	if overflow || u > limit {
		if neg {
			return math.MinInt64, nil
		}
		return math.MaxInt64, nil
	}
	if neg {
		return int64(-u), nil // -2^63 wraps to itself, which is right
	}
	return int64(u), nil
}

// value decodes one value. Array and object keys are decoded with key=true:
// only integers and strings are allowed there and they take no slot.
func (d *decoder) value(key bool) (any, error) {
	if d.pos+1 >= len(d.s) {
		return nil, d.errorf("unexpected end of data")
	}
	tag := d.s[d.pos]
	slot := -1
	if !key && tag != 'R' {
		slot = len(d.slots)
		d.slots = append(d.slots, false)
	}
	if tag != 'N' && d.s[d.pos+1] != ':' {
		return nil, d.errorf("expected ':' after %q", tag)
	}
	if key && tag != 'i' && tag != 's' && tag != 'S' {
		return nil, d.errorf("array key must be an integer or a string")
	}

	switch tag {
	case 'N':
		if err := d.expect("N;"); err != nil {
			return nil, err
		}
		return nil, nil
	case 'b':
		switch {
		case strings.HasPrefix(d.s[d.pos:], "b:0;"):
			d.pos += 4
			return false, nil
		case strings.HasPrefix(d.s[d.pos:], "b:1;"):
			d.pos += 4
			return true, nil
		}
		return nil, d.errorf("invalid boolean")
	case 'i':
		d.pos += 2
		n, err := d.int(true)
		if err != nil {
			return nil, err
		}
		if err := d.expect(";"); err != nil {
			return nil, err
		}
		return n, nil
	case 'd':
		d.pos += 2
		return d.float()
	case 's':
		d.pos += 2
		str, err := d.str()
		if err != nil {
			return nil, err
		}
		if err := d.expect(";"); err != nil {
			return nil, err
		}
		return str, nil
	case 'S':
		d.pos += 2
		return d.escapedStr()
	case 'a':
		d.pos += 2
		return d.array()
	case 'O':
		d.pos += 2
		o, err := d.object()
		if err == nil {
			d.slots[slot] = true
		}
		return o, err
	case 'C':
		d.pos += 2
		c, err := d.custom()
		if err == nil {
			d.slots[slot] = true
		}
		return c, err
	case 'r', 'R':
		d.pos += 2
		n, err := d.uint()
		if err != nil {
			return nil, err
		}
		if err := d.expect(";"); err != nil {
			return nil, err
		}
		// Slots are 1-based. r: has already taken its own slot and may not
		// point at itself; R: takes none.
		limit := int64(len(d.slots))
		if tag == 'r' {
			limit--
		}
		if n < 1 || n > limit {
			return nil, d.errorf("reference %d out of range", n)
		}
		if tag == 'r' {
			if !d.slots[n-1] {
				return nil, d.errorf("r:%d does not refer to an object", n)
			}
			d.slots[slot] = true
		}
		return Reference{Index: n, ByRef: tag == 'R'}, nil
	}
	return nil, d.errorf("unknown type %q", tag)
}

// float reads the body of d:...; — PHP's iv | nv | nvexp grammar, or
// NAN, INF, -INF.
func (d *decoder) float() (any, error) {
	rest := d.s[d.pos:]
	for _, special := range []struct {
		lit string
		v   float64
	}{{"NAN;", math.NaN()}, {"INF;", math.Inf(1)}, {"-INF;", math.Inf(-1)}} {
		if strings.HasPrefix(rest, special.lit) {
			d.pos += len(special.lit)
			return special.v, nil
		}
	}
	start := d.pos
	i := d.pos
	if i < len(d.s) && (d.s[i] == '+' || d.s[i] == '-') {
		i++
	}
	intStart := i
	for i < len(d.s) && d.s[i] >= '0' && d.s[i] <= '9' {
		i++
	}
	intDigits := i - intStart
	fracDigits := 0
	if i < len(d.s) && d.s[i] == '.' {
		i++
		fracStart := i
		for i < len(d.s) && d.s[i] >= '0' && d.s[i] <= '9' {
			i++
		}
		fracDigits = i - fracStart
	}
	if intDigits == 0 && fracDigits == 0 {
		d.pos = i
		return nil, d.errorf("invalid float")
	}
	if i < len(d.s) && (d.s[i] == 'e' || d.s[i] == 'E') {
		i++
		if i < len(d.s) && (d.s[i] == '+' || d.s[i] == '-') {
			i++
		}
		expStart := i
		for i < len(d.s) && d.s[i] >= '0' && d.s[i] <= '9' {
			i++
		}
		if i == expStart {
			d.pos = i
			return nil, d.errorf("invalid float exponent")
		}
	}
	d.pos = i
	if err := d.expect(";"); err != nil {
		return nil, err
	}
	// The text is a plain decimal literal by construction, so ParseFloat's
	// only possible complaint is range: it then returns ±Inf or 0, the same
	// as PHP's zend_strtod.
	f, _ := strconv.ParseFloat(d.s[start:i], 64)
	return f, nil
}

// strHeader reads <len>:" of a string and checks the data holds that many bytes.
func (d *decoder) strHeader() (int64, error) {
	n, err := d.uint()
	if err != nil {
		return 0, err
	}
	if err := d.expect(`:"`); err != nil {
		return 0, err
	}
	if n > int64(len(d.s)-d.pos) {
		return 0, d.errorf("string length %d exceeds the data", n)
	}
	return n, nil
}

// str reads <len>:"<bytes>" (the part after "s:"), without the final ';'.
func (d *decoder) str() (string, error) {
	n, err := d.strHeader()
	if err != nil {
		return "", err
	}
	v := d.s[d.pos : d.pos+int(n)]
	d.pos += int(n)
	if err := d.expect(`"`); err != nil {
		return "", err
	}
	return v, nil
}

// escapedStr reads the legacy S:<len>:"..."; form, where a backslash is
// followed by two hex digits.
func (d *decoder) escapedStr() (string, error) {
	n, err := d.strHeader()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i := int64(0); i < n; i++ {
		if d.pos >= len(d.s) {
			return "", d.errorf("unexpected end of data")
		}
		c := d.s[d.pos]
		if c != '\\' {
			b.WriteByte(c)
			d.pos++
			continue
		}
		if d.pos+2 >= len(d.s) {
			return "", d.errorf("truncated escape")
		}
		h, err := strconv.ParseUint(d.s[d.pos+1:d.pos+3], 16, 8)
		if err != nil || d.s[d.pos+1] == '+' || d.s[d.pos+1] == '-' {
			return "", d.errorf("invalid escape")
		}
		b.WriteByte(byte(h))
		d.pos += 3
	}
	if err := d.expect(`";`); err != nil {
		return "", err
	}
	return b.String(), nil
}

// count reads an element count and rejects counts the remaining input
// cannot possibly hold (PHP's IS_FAKE_ELEM_COUNT: each element takes at
// least two bytes), so a forged count cannot force a huge allocation.
func (d *decoder) count(n int64) (int, error) {
	if n < 0 || n > int64(len(d.s)-d.pos)/2 {
		return 0, d.errorf("element count %d exceeds the data", n)
	}
	return int(n), nil
}

func (d *decoder) enter() error {
	if d.depth >= MaxDepth {
		return d.errorf("maximum depth of %d exceeded", MaxDepth)
	}
	d.depth++
	return nil
}

// array reads <n>:{ key value ... }.
func (d *decoder) array() (*Array, error) {
	raw, err := d.uint()
	if err != nil {
		return nil, err
	}
	if err := d.expect(":{"); err != nil {
		return nil, err
	}
	n, err := d.count(raw)
	if err != nil {
		return nil, err
	}
	if err := d.enter(); err != nil {
		return nil, err
	}
	a := &Array{}
	if n > 0 {
		a.entries = make([]Entry, 0, n)
		a.index = make(map[any]int, n)
	}
	for i := 0; i < n; i++ {
		k, err := d.value(true)
		if err != nil {
			return nil, err
		}
		key, _ := a.normKey(k) // k is int64 or string, always valid
		v, err := d.value(false)
		if err != nil {
			return nil, err
		}
		a.set(key, v) // a duplicate key overwrites in place, as in PHP
	}
	d.depth--
	if err := d.expect("}"); err != nil {
		return nil, err
	}
	return a, nil
}

// className reads <len>:"Name" and validates it as PHP does: non-empty,
// only [A-Za-z0-9_\\] and bytes >= 0x80, not starting with a backslash.
func (d *decoder) className() (string, error) {
	n, err := d.uint()
	if err != nil {
		return "", err
	}
	if err := d.expect(`:"`); err != nil {
		return "", err
	}
	if n == 0 || n > int64(len(d.s)-d.pos) {
		return "", d.errorf("invalid class name length %d", n)
	}
	name := d.s[d.pos : d.pos+int(n)]
	if !validClassName(name) {
		return "", d.errorf("invalid class name %q", name)
	}
	d.pos += int(n)
	if err := d.expect(`":`); err != nil {
		return "", err
	}
	return name, nil
}

func validClassName(name string) bool {
	if name == "" || name[0] == '\\' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '\\' || c >= 0x80) {
			return false
		}
	}
	return true
}

// object reads <len>:"Class":<n>:{ name value ... }.
func (d *decoder) object() (*Object, error) {
	class, err := d.className()
	if err != nil {
		return nil, err
	}
	raw, err := d.int(false)
	if err != nil {
		return nil, err
	}
	if err := d.expect(":{"); err != nil {
		return nil, err
	}
	n, err := d.count(raw)
	if err != nil {
		return nil, err
	}
	if err := d.enter(); err != nil {
		return nil, err
	}
	o := NewObject(class)
	for i := 0; i < n; i++ {
		k, err := d.value(true)
		if err != nil {
			return nil, err
		}
		name, _ := o.props.normKey(k) // integer property names become strings
		v, err := d.value(false)
		if err != nil {
			return nil, err
		}
		o.props.set(name, v)
	}
	d.depth--
	if err := d.expect("}"); err != nil {
		return nil, err
	}
	return o, nil
}

// custom reads <len>:"Class":<len>:{data} of a Serializable object.
func (d *decoder) custom() (*CustomObject, error) {
	class, err := d.className()
	if err != nil {
		return nil, err
	}
	n, err := d.int(false)
	if err != nil {
		return nil, err
	}
	if err := d.expect(":{"); err != nil {
		return nil, err
	}
	if n < 0 || n >= int64(len(d.s)-d.pos) {
		return nil, d.errorf("custom object data length %d exceeds the data", n)
	}
	data := d.s[d.pos : d.pos+int(n)]
	d.pos += int(n)
	if err := d.expect("}"); err != nil {
		return nil, err
	}
	return &CustomObject{Class: class, Data: data}, nil
}

// IsSerialized reports whether WordPress's is_serialized() (strict mode)
// would treat data as serialized, i.e. whether maybe_unserialize() would try
// to unserialize it.
func IsSerialized(data string) bool {
	data = strings.Trim(data, phpTrimSet)
	if data == "N;" {
		return true
	}
	if len(data) < 4 || data[1] != ':' {
		return false
	}
	last := data[len(data)-1]
	if last != ';' && last != '}' {
		return false
	}
	switch token := data[0]; token {
	case 's':
		if data[len(data)-2] != '"' {
			return false
		}
		return digitsThenColon(data[2:])
	case 'a', 'O', 'E':
		return digitsThenColon(data[2:])
	case 'b', 'i', 'd':
		// /^[bid]:[0-9.E+-]+;$/
		body := data[2 : len(data)-1]
		if body == "" || last != ';' {
			return false
		}
		for i := 0; i < len(body); i++ {
			c := body[i]
			if !(c >= '0' && c <= '9' || c == '.' || c == 'E' || c == '+' || c == '-') {
				return false
			}
		}
		return true
	}
	return false
}

// digitsThenColon matches /^[0-9]+:/.
func digitsThenColon(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i < len(s) && s[i] == ':'
}

// phpTrimSet is the character set of PHP's trim().
const phpTrimSet = " \t\n\r\x00\x0B"

// MaybeUnserialize mirrors WordPress's maybe_unserialize(): data that
// IsSerialized accepts is unserialized (after PHP trim(), ignoring trailing
// bytes as PHP does) and the result returned, or false if it is malformed;
// anything else is returned unchanged as a string. The error, if any,
// explains why the value became false.
func MaybeUnserialize(data string) (any, error) {
	if !IsSerialized(data) {
		return data, nil
	}
	v, _, err := UnmarshalPrefix(strings.Trim(data, phpTrimSet))
	if err != nil {
		return false, err
	}
	return v, nil
}
