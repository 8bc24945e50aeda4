package wptext

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/calendard/calendard/internal/phpjson"
)

// preKsesBlockAttributes is wp_pre_kses_block_attributes, WordPress' default pre_kses filter:
// filter_block_content() parses the blocks, runs every string of their attributes (keys too,
// at any depth) through wp_kses with the same allowed HTML, and serializes the blocks again.
// Content without block delimiters comes back as it went in (one freeform block).
func preKsesBlockAttributes(content string, allowed ksesAllowed) string {
	if strings.Contains(content, "<!--") && strings.Contains(content, "--->") {
		content = blockTripleDashRe.ReplaceAllStringFunc(content, func(m string) string {
			// _filter_block_content_callback: '<!--' . rtrim( $matches[1], '-' ) . '-->'
			return "<!--" + strings.TrimRight(m[4:len(m)-4], "-") + "-->"
		})
	}
	if !strings.Contains(content, "<!--") {
		return content
	}
	var b strings.Builder
	for _, blk := range parseBlocks(content) {
		b.WriteString(serializeFilteredBlock(blk, allowed))
	}
	return b.String()
}

// blockTripleDashRe is %<!--(.*?)--->% ("." stops at newlines).
var blockTripleDashRe = regexp.MustCompile(`<!--[^\n]*?--->`)

// serializeFilteredBlock is serialize_block(filter_block_kses($block)).
func serializeFilteredBlock(blk *parsedBlock, allowed ksesAllowed) string {
	var content strings.Builder
	inner := 0
	for _, chunk := range blk.innerContent {
		if chunk != nil {
			content.WriteString(*chunk)
			continue
		}
		if inner < len(blk.innerBlocks) {
			content.WriteString(serializeFilteredBlock(blk.innerBlocks[inner], allowed))
		}
		inner++
	}
	if blk.name == "" {
		return content.String()
	}
	attrs := ""
	if a := blockAttrs(blk.attrsJSON); a != nil {
		filtered := filterBlockKsesValue(a, allowed)
		if !phpArrayEmpty(filtered) {
			attrs = serializeBlockAttributes(filtered) + " "
		}
	}
	name := strings.TrimPrefix(blk.name, "core/")
	body := content.String()
	if phpEmpty(body) {
		return "<!-- wp:" + name + " " + attrs + "/-->"
	}
	return "<!-- wp:" + name + " " + attrs + "-->" + body + "<!-- /wp:" + name + " -->"
}

// blockAttrs is json_decode($attrs, true) of a delimiter's attributes: nil when there are none or
// PHP would fail to decode them (then the block is serialized without attributes).
func blockAttrs(raw string) any {
	if raw == "" || !utf8.ValidString(raw) {
		return nil
	}
	v, err := phpjson.Decode([]byte(raw))
	if err != nil {
		return nil
	}
	return phpArray(v)
}

// phpOrdered is a PHP array: ordered keys (int64 or string, as PHP normalizes them) and values.
type phpOrdered struct {
	keys []any
	vals map[any]any
}

func (a *phpOrdered) set(k, v any) {
	if _, ok := a.vals[k]; !ok {
		a.keys = append(a.keys, k)
	}
	a.vals[k] = v
}

func (a *phpOrdered) unset(k any) {
	if _, ok := a.vals[k]; !ok {
		return
	}
	delete(a.vals, k)
	for i, x := range a.keys {
		if x == k {
			a.keys = append(a.keys[:i:i], a.keys[i+1:]...)
			break
		}
	}
}

// phpKey normalizes an array key as PHP does: decimal integer strings become integers.
func phpKey(k string) any {
	if n, err := strconv.ParseInt(k, 10, 64); err == nil && strconv.FormatInt(n, 10) == k {
		return n
	}
	return k
}

// phpArray turns decoded JSON into what json_decode($s, true) gives: objects and lists become PHP
// arrays, numbers ints (within range) or floats.
func phpArray(v any) any {
	switch x := v.(type) {
	case *phpjson.Object:
		a := &phpOrdered{vals: map[any]any{}}
		for _, k := range x.Keys() {
			val, _ := x.Get(k)
			a.set(phpKey(k), phpArray(val))
		}
		return a
	case []any:
		a := &phpOrdered{vals: map[any]any{}}
		for i, e := range x {
			a.set(int64(i), phpArray(e))
		}
		return a
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n
			}
		}
		f, _ := strconv.ParseFloat(s, 64)
		return f
	}
	return v
}

func phpArrayEmpty(v any) bool {
	a, ok := v.(*phpOrdered)
	return !ok || len(a.keys) == 0
}

// filterBlockKsesValue is filter_block_kses_value: strings through wp_kses, arrays key by key (a
// key that changes is removed and the filtered one set, at the end unless it already exists).
func filterBlockKsesValue(v any, allowed ksesAllowed) any {
	switch x := v.(type) {
	case string:
		return kses(x, allowed)
	case *phpOrdered:
		orig := append([]any(nil), x.keys...)
		vals := make([]any, len(orig))
		for i, k := range orig {
			vals[i] = x.vals[k]
		}
		for i, k := range orig {
			fk := k
			if ks, ok := k.(string); ok {
				fk = phpKey(kses(ks, allowed))
			}
			fv := filterBlockKsesValue(vals[i], allowed)
			if fk != k {
				x.unset(k)
			}
			x.set(fk, fv)
		}
		return x
	}
	return v
}

// serializeBlockAttributes is serialize_block_attributes: json_encode with unescaped slashes and
// Unicode, then "--", "<", ">", "&" and `\"` written as \u escapes so the JSON cannot end the
// comment or be read as HTML.
func serializeBlockAttributes(v any) string {
	var b bytes.Buffer
	encodeBlockJSON(&b, v)
	s := strings.ReplaceAll(b.String(), "--", `\u002d\u002d`)
	s = strings.ReplaceAll(s, "<", `\u003c`)
	s = strings.ReplaceAll(s, ">", `\u003e`)
	s = strings.ReplaceAll(s, "&", `\u0026`)
	return strings.ReplaceAll(s, `\"`, `\u0022`)
}

// encodeBlockJSON is json_encode($v, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE).
func encodeBlockJSON(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(phpJSONFloat(x))
	case string:
		encodeBlockJSONString(b, x)
	case *phpOrdered:
		list := true
		for i, k := range x.keys {
			if k != int64(i) {
				list = false
				break
			}
		}
		if list {
			b.WriteByte('[')
			for i, k := range x.keys {
				if i > 0 {
					b.WriteByte(',')
				}
				encodeBlockJSON(b, x.vals[k])
			}
			b.WriteByte(']')
			return
		}
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			switch kk := k.(type) {
			case int64:
				encodeBlockJSONString(b, strconv.FormatInt(kk, 10))
			case string:
				encodeBlockJSONString(b, kk)
			}
			b.WriteByte(':')
			encodeBlockJSON(b, x.vals[k])
		}
		b.WriteByte('}')
	}
}

// phpJSONFloat renders a float as json_encode does with serialize_precision -1.
func phpJSONFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "0"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if i := strings.IndexByte(s, 'e'); i >= 0 && !strings.Contains(s[:i], ".") {
		s = s[:i] + ".0" + s[i:]
	}
	return s
}

// encodeBlockJSONString escapes what json_encode escapes under JSON_UNESCAPED_SLASHES |
// JSON_UNESCAPED_UNICODE: quotes, backslashes, control characters, and U+2028/U+2029 (no
// JSON_UNESCAPED_LINE_TERMINATORS).
func encodeBlockJSONString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
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
		case 0x2028:
			b.WriteString(`\u2028`)
		case 0x2029:
			b.WriteString(`\u2029`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hexDigitsLower[r>>4])
				b.WriteByte(hexDigitsLower[r&0xf])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

const hexDigitsLower = "0123456789abcdef"
