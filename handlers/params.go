package handlers

import (
	"strconv"
	"strings"

	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
)

// parseQuery decodes a query string or urlencoded form exactly like PHP fills $_GET/$_POST
// (parse_str): "a[]=1&a[]=2" is a list, "a[k]=v" an associative array, a repeated plain key keeps the
// last value, and dots/spaces in top-level names become underscores.
func parseQuery(raw string) *phpjson.Object {
	out := phpjson.NewObject()
	for _, pair := range strings.Split(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		key := php.URLDecode(k)
		val := php.URLDecode(v)
		setPHPVar(out, key, val)
	}
	return out
}

// setPHPVar assigns one decoded name/value pair following php_register_variable_ex.
func setPHPVar(into *phpjson.Object, name, value string) {
	// Leading spaces are dropped; the base name ends at the first "[".
	name = strings.TrimLeft(name, " ")
	if name == "" {
		return
	}
	base, rest, hasBracket := strings.Cut(name, "[")
	if base == "" {
		return
	}
	base = mangleBase(base)
	if !hasBracket {
		into.Set(base, value)
		return
	}
	// Collect the bracketed segments; a malformed tail makes PHP treat the rest literally.
	var segs []string
	rest = "[" + rest
	for strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			// "a[b" : PHP replaces the first "[" with "_" and keeps the name literal.
			if len(segs) == 0 {
				into.Set(base+"_"+rest[1:], value)
				return
			}
			break
		}
		segs = append(segs, rest[1:end])
		rest = rest[end+1:]
	}
	cur := into
	key := base
	for _, seg := range segs {
		next, ok := cur.Get(key)
		obj, isObj := next.(*phpjson.Object)
		if !ok || !isObj {
			obj = phpjson.NewObject()
			cur.Set(key, obj)
		}
		cur = obj
		if seg == "" {
			seg = strconv.Itoa(nextIndex(cur))
		}
		key = seg
	}
	cur.Set(key, value)
}

// mangleBase applies PHP's variable-name mangling: " " and "." become "_".
func mangleBase(s string) string {
	return strings.NewReplacer(" ", "_", ".", "_").Replace(s)
}

// nextIndex is the key PHP gives to $a[] = v: one more than the largest integer key, or 0.
func nextIndex(o *phpjson.Object) int {
	next := 0
	for _, k := range o.Keys() {
		if n, err := strconv.Atoi(k); err == nil && n >= next {
			next = n + 1
		}
	}
	return next
}

// normalizeLists turns objects whose keys are 0..n-1 into lists, so form arrays and JSON arrays look
// alike to validators.
func normalizeLists(v any) any {
	switch x := v.(type) {
	case *phpjson.Object:
		for _, k := range x.Keys() {
			val, _ := x.Get(k)
			x.Set(k, normalizeLists(val))
		}
		if x.Len() > 0 && x.IsList() {
			return x.Values()
		}
		return x
	case []any:
		for i := range x {
			x[i] = normalizeLists(x[i])
		}
		return x
	}
	return v
}
