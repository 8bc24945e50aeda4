package handlers

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
)

// PHP's input limits at their php.ini defaults. They also bound the work one request can cause.
const (
	// maxInputVars: PHP stops reading a query string or form after this many variables.
	maxInputVars = 1000
	// maxInputNestingLevel: a name with more [] levels drops its whole top-level variable.
	maxInputNestingLevel = 64
)

// parseQuery decodes a query string or urlencoded form exactly like PHP fills $_GET/$_POST
// (parse_str): "a[]=1&a[]=2" is a list, "a[k]=v" an associative array, a repeated plain key keeps the
// last value, and dots/spaces in top-level names become underscores.
func parseQuery(raw string) *phpjson.Object {
	vars := newPHPVars()
	for rest, more := raw, true; more; {
		var pair string
		pair, rest, more = strings.Cut(rest, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if !vars.add(php.URLDecode(k), php.URLDecode(v)) {
			break
		}
	}
	return vars.root
}

// parseMultipart fills $_POST from a multipart/form-data body as PHP's rfc1867 handler does: the
// fields in order, file parts left out ($_FILES is not a parameter source), the same input limits.
// A malformed body yields the fields read before the damage.
func parseMultipart(raw []byte, contentType string) *phpjson.Object {
	o, _ := parseMultipartStream(bytes.NewReader(raw), contentType, &bodyBudget{pool: &bodyPool{}})
	return o
}

// phpVars fills one superglobal as php_register_variable_ex does.
type phpVars struct {
	root  *phpjson.Object
	next  map[*phpjson.Object]int // each array's next free integer key (nNextFreeElement); absent: 0
	count int
}

func newPHPVars() *phpVars {
	return &phpVars{root: phpjson.NewObject(), next: map[*phpjson.Object]int{}}
}

// add registers one variable; false once max_input_vars is exceeded (PHP reads no further).
func (p *phpVars) add(name, value string) bool {
	if p.count++; p.count > maxInputVars {
		return false
	}
	p.set(name, value)
	return true
}

// put assigns into an array, keeping its next free integer key as PHP's nNextFreeElement.
func (p *phpVars) put(o *phpjson.Object, key string, v any) {
	o.Set(key, v)
	// A negative key counts too: b[-3]=x&b[]=y gives -2, as PHP does.
	if n, ok := phpIntKey(key); ok {
		if cur, seen := p.next[o]; !seen || n >= cur {
			p.next[o] = n + 1
		}
	}
}

// set assigns one decoded name/value pair.
func (p *phpVars) set(name, value string) {
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
		p.put(p.root, base, value)
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
				p.put(p.root, base+"_"+rest[1:], value)
				return
			}
			break
		}
		if len(segs) == maxInputNestingLevel {
			p.root.Delete(base)
			return
		}
		segs = append(segs, rest[1:end])
		rest = rest[end+1:]
	}
	cur := p.root
	key := base
	for _, seg := range segs {
		next, ok := cur.Get(key)
		obj, isObj := next.(*phpjson.Object)
		if !ok || !isObj {
			obj = phpjson.NewObject()
			p.put(cur, key, obj)
		}
		cur = obj
		if seg == "" {
			seg = strconv.Itoa(p.next[cur])
		}
		key = seg
	}
	p.put(cur, key, value)
}

// phpIntKey reports whether an array key is an integer key to PHP: canonical decimal ("5", "-3",
// not "05" or "+5").
func phpIntKey(k string) (int, bool) {
	n, err := strconv.Atoi(k)
	if err != nil || strconv.Itoa(n) != k {
		return 0, false
	}
	return n, true
}

// mangleBase applies PHP's variable-name mangling: " " and "." become "_".
func mangleBase(s string) string { return baseMangler.Replace(s) }

var baseMangler = strings.NewReplacer(" ", "_", ".", "_")

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
