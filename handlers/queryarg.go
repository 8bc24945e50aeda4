package handlers

import (
	"strconv"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
)

// AddQueryArg is WordPress' add_query_arg(array $args, $url). Its quirks are part of the API: new
// values are appended raw (not URL-encoded), while a query string already on the URL is decoded and
// re-encoded (urlencode_deep), so adding to a URL that has parameters form-encodes the old ones.
// A false value removes the key, nil values are skipped, true becomes "1".
func AddQueryArg(uri string, args []calendard.KV) string {
	frag := ""
	if i := strings.IndexByte(uri, '#'); i >= 0 {
		uri, frag = uri[:i], uri[i:]
	}
	protocol := ""
	for _, p := range []string{"http://", "https://"} {
		if strings.HasPrefix(strings.ToLower(uri), p) {
			protocol, uri = uri[:len(p)], uri[len(p):]
			break
		}
	}
	var base, query string
	switch {
	case strings.Contains(uri, "?"):
		b, q, _ := strings.Cut(uri, "?")
		base, query = b+"?", q
	case protocol != "" || !strings.Contains(uri, "="):
		base, query = uri+"?", ""
	default:
		base, query = "", uri
	}

	qs := phpjson.NewObject()
	if query != "" {
		qs = UrlencodeDeep(parseQuery(query))
	}
	for _, kv := range args {
		qs.Set(kv.Key, kv.Value)
	}
	for _, k := range qs.Keys() {
		if v, _ := qs.Get(k); v == false {
			qs.Delete(k)
		}
	}
	ret := strings.Trim(buildQuery(qs, ""), "?")
	ret = emptyValueRe(ret)
	return strings.TrimRight(protocol+base+ret+frag, "?")
}

// RemoveQueryArg is remove_query_arg($key, $url): add_query_arg with the key set to false.
func RemoveQueryArg(uri, key string) string {
	return AddQueryArg(uri, []calendard.KV{{Key: key, Value: false}})
}

// emptyValueRe drops "=" before "&" or the end: "a=&b" -> "a&b" (preg_replace('#=(&|$)#', '$1')).
func emptyValueRe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '=' && (i+1 == len(s) || s[i+1] == '&') {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// buildQuery is build_query(): _http_build_query without encoding; arrays become key%5Bi%5D=v.
func buildQuery(o *phpjson.Object, prefix string) string {
	var parts []string
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		key := k
		if prefix != "" {
			key = prefix + "%5B" + k + "%5D"
		}
		switch x := v.(type) {
		case nil:
			continue
		case bool:
			if x {
				parts = append(parts, key+"=1")
			} else {
				parts = append(parts, key+"=0")
			}
		case *phpjson.Object:
			if s := buildQuery(x, key); s != "" {
				parts = append(parts, s)
			}
		case []any:
			sub := phpjson.NewObject()
			for i, e := range x {
				sub.Set(strconv.Itoa(i), e)
			}
			if s := buildQuery(sub, key); s != "" {
				parts = append(parts, s)
			}
		default:
			s, _ := php.String(x)
			parts = append(parts, key+"="+s)
		}
	}
	return strings.Join(parts, "&")
}

// UrlencodeDeep applies PHP urlencode to every scalar value.
func UrlencodeDeep(o *phpjson.Object) *phpjson.Object {
	out := phpjson.NewObject()
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		switch x := v.(type) {
		case *phpjson.Object:
			out.Set(k, UrlencodeDeep(x))
		case string:
			out.Set(k, urlencode(x))
		default:
			out.Set(k, v)
		}
	}
	return out
}

// urlencode is PHP's urlencode: only A-Z a-z 0-9 - _ . stay, space becomes "+".
func urlencode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&15])
		}
	}
	return b.String()
}
