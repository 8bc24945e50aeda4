package handlers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
)

// Fuzz targets over the parameter parsers and validators, called directly (cheap enough for many
// executions a second); http_fuzz_test.go sends the same kind of input through the whole server.
// Under plain `go test` only the seeds (f.Add and testdata/fuzz) run.

// fzQuerySeeds are query strings and form bodies as clients send them, and as attackers do.
var fzQuerySeeds = []string{
	"", "&", "=", "a", "a=", "=a", "a=1&a=2", "a[]=1&a[]=2", "a[k]=v&a[]=x", "a[-3]=x&a[]=y", "a[9223372036854775807]=x&a[]=y",
	"a[b=1", "a]b=1", "a[b]c]=1", "[a]=1", " a=1", "a.b c=1", "a%5B%5D=1", "a+b=c+d", "%zz=%", "%00=%00", "a[%00]=1",
	"per_page=50&page=2&start_date=2026-01-01&end_date=2027-12-31", "categories[]=1&categories[]=music&tags=a,b,,c",
	"status=publish,draft&_fields=id,title.rendered&_envelope&_jsonp=cb", "include=1,2,3&featured=true&geoloc=1",
	"rest_route=/tribe/events/v1/events&_method=delete", "title=T%ff&description=%3Cscript%3E", "a" + strings.Repeat("[x]", 70) + "=1",
	"a" + strings.Repeat("[]", 64) + "=1", "a" + strings.Repeat("[]", 65) + "=1", strings.Repeat("a[]=&", 1100), strings.Repeat("k&", 1002),
	"page=922337203685477580&per_page=10", "page=-1&per_page=0", "per_page=1e400", "strict_dates=yes",
}

// FuzzParseQuery: a query string or form body becomes PHP's superglobal (parse_str) without panic,
// within PHP's limits (1000 variables, nesting 64), encodes as JSON, and reads the same pair by pair
// from a streamed body as from the URL.
func FuzzParseQuery(f *testing.F) {
	for _, s := range fzQuerySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q := parseQuery(raw)
		if n := fzCountLeaves(q, 0, t); n > maxInputVars {
			t.Fatalf("parseQuery(%q) kept %d values, more than max_input_vars", raw, n)
		}
		enc, err := phpjson.Marshal(q)
		if err != nil {
			t.Fatalf("parseQuery(%q) does not encode: %v", raw, err)
		}
		budget := &bodyBudget{pool: &bodyPool{}}
		streamed, err := parseFormStream(bufio.NewReader(strings.NewReader(raw)), budget)
		if err != nil {
			t.Fatalf("parseFormStream(%q): %v", raw, err)
		}
		if enc2 := phpjson.MustMarshal(streamed); !bytes.Equal(enc, enc2) {
			t.Fatalf("query and form parse %q differently:\n%s\n%s", raw, enc, enc2)
		}
		norm := normalizeLists(q)
		if _, err := phpjson.Marshal(norm); err != nil {
			t.Fatalf("normalizeLists(parseQuery(%q)) does not encode: %v", raw, err)
		}
		// What WordPress rebuilds links from (add_query_arg, remove_query_arg) never panics either.
		_ = buildQuery(q, "")
		for _, uri := range []string{"http://example.test/wp-json/x?" + raw, raw, "https://h/p#" + raw} {
			out := AddQueryArg(uri, []calendard.KV{{Key: "page", Value: 2}, {Key: "x", Value: nil}, {Key: "y", Value: true}})
			_ = RemoveQueryArg(out, "page")
		}
		for _, c := range urlencode(raw) {
			if !strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.%+", c) {
				t.Fatalf("urlencode(%q) left %q", raw, c)
			}
		}
		if got := php.URLDecode(urlencode(raw)); got != raw {
			t.Fatalf("urldecode(urlencode(%q)) = %q", raw, got)
		}
		_ = emptyValueRe(raw)
	})
}

// fzCountLeaves counts the scalar values of a parsed superglobal and checks its nesting.
func fzCountLeaves(v any, depth int, t *testing.T) int {
	if depth > maxInputNestingLevel+1 {
		t.Fatalf("nesting deeper than %d", maxInputNestingLevel)
	}
	o, ok := v.(*phpjson.Object)
	if !ok {
		return 1
	}
	n := 0
	for _, x := range o.Values() {
		n += fzCountLeaves(x, depth+1, t)
	}
	return n
}

// FuzzParseMultipart: a multipart/form-data body with any boundary and any damage yields the fields
// read before the damage, never a panic, and no more than max_input_vars of them.
func FuzzParseMultipart(f *testing.F) {
	part := func(name, value string) string {
		return "--XB\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n"
	}
	f.Add(part("title", "T")+part("categories[]", "1")+part("categories[]", "2")+"--XB--\r\n", "XB")
	f.Add(part("a", "1")+"--XB\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\n\r\nfile\r\n--XB--", "XB")
	f.Add(part("a[b][c]", "v")+part("a[b][]", "w"), "XB")
	f.Add("--XB\r\nContent-Disposition: form-data\r\n\r\nnameless\r\n--XB--", "XB")
	f.Add("garbage", "XB")
	f.Add(part("x", "y"), "")
	f.Add(part("x", "y"), "\"quoted\"")
	f.Add(strings.Repeat(part("a[]", ""), 20)+"--XB--", "XB")
	f.Fuzz(func(t *testing.T, body, boundary string) {
		for _, ct := range []string{"multipart/form-data; boundary=" + boundary, "multipart/form-data; boundary=\"" + boundary + "\"", "multipart/form-data"} {
			o := parseMultipart([]byte(body), ct)
			if o == nil {
				t.Fatalf("parseMultipart(%q, %q) = nil", body, ct)
			}
			if n := fzCountLeaves(o, 0, t); n > maxInputVars {
				t.Fatalf("parseMultipart kept %d values", n)
			}
			if _, err := phpjson.Marshal(normalizeLists(o)); err != nil {
				t.Fatalf("parseMultipart(%q) does not encode: %v", body, err)
			}
		}
	})
}

// fzValues turns fuzz text into the parameter values a request can carry: the text itself (query
// and form values), and what it decodes to as JSON (numbers, booleans, null, lists, objects).
func fzValues(s string) []any {
	vals := []any{s, php.ListToArray(s)}
	if v, err := phpjson.Decode([]byte(s)); err == nil {
		vals = append(vals, normalizeLists(v))
	}
	return vals
}

// FuzzValidators: the REST argument validation and sanitising (rest_is_integer, rest_is_boolean,
// rest_sanitize_boolean, the schema coercion) accept or refuse any value without panic, refuse with
// the WordPress error shape, and coerce to the declared type.
func FuzzValidators(f *testing.F) {
	for _, s := range []string{
		"", "0", "1", "-1", "1.0", "1.5", "1e3", "9223372036854775808", "1e400", " 5", "5 ", "0x10", "true", "FALSE",
		"on", "null", "[]", "{}", "[1,2]", `["1","x"]`, `{"a":1}`, `[[1]]`, "1,2,3", "1,,x", `"5"`, "2026-13-45",
		"tomorrow", "@123", "now", "next monday 25:00", "\xff", "1,2%2C3", `{"0":"a","1":"b"}`, "-0", "00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range fzValues(s) {
			for _, typ := range []string{"integer", "boolean", "string", "number", "array", ""} {
				out, err := Coerce("p", typ, v)
				if err != nil {
					var e *calendard.Error
					if !errors.As(err, &e) || e.Code != "rest_invalid_type" {
						t.Fatalf("coerce(%q, %#v) failed with %v", typ, v, err)
					}
					_ = phpjson.MustMarshal(errorData(e))
					continue
				}
				switch typ {
				case "integer":
					if _, ok := out.(int64); !ok {
						t.Fatalf("coerce(integer, %#v) = %#v", v, out)
					}
				case "boolean":
					if _, ok := out.(bool); !ok {
						t.Fatalf("coerce(boolean, %#v) = %#v", v, out)
					}
				case "number":
					f, ok := out.(float64)
					if !ok {
						t.Fatalf("coerce(number, %#v) = %#v", v, out)
					}
					if math.IsInf(f, 0) {
						continue // PHP's INF, which json_encode refuses too; no declared argument is a number
					}
				}
				if _, err := phpjson.Marshal(out); err != nil {
					t.Fatalf("coerce(%q, %#v) = %#v does not encode: %v", typ, v, out, err)
				}
			}
			if IsRESTBoolean(v) && !IsRESTInteger(v) {
				switch v.(type) {
				case json.Number, string:
					if s, _ := php.String(v); s == "0" || s == "1" {
						t.Fatalf("%#v is a REST boolean but not a REST integer", v)
					}
				}
			}
			_ = RestBool(v)
		}
	})
}

// FuzzFilterFields: _fields with any spelling picks fields of any answer without panic.
func FuzzFilterFields(f *testing.F) {
	for _, s := range []string{"", ",", "id", "id,title", "title.rendered", "a.b.c", " id , ,x.", "events.id", "...", "id,id"} {
		f.Add(s)
	}
	body := phpjson.Obj("id", 1, "title", phpjson.Obj("rendered", "T"), "events", []any{phpjson.Obj("id", 2)},
		"a", phpjson.Obj("b", phpjson.Obj("c", nil)), "n", nil)
	f.Fuzz(func(t *testing.T, spec string) {
		for _, b := range []any{body, []any{body, "x"}, "scalar", nil} {
			out := filterFields(b, spec)
			if _, err := phpjson.Marshal(out); err != nil {
				t.Fatalf("filterFields(%q) does not encode: %v", spec, err)
			}
		}
	})
}

// FuzzReadBody: readBody, the streaming JSON, form and multipart decoder of request bodies, under
// any content type and tight per-request budgets: it never panics, refuses only with a 4xx
// WordPress error (a 5xx would need the process-wide budget, unlimited here), leaves the
// parameter sources set, and gives back every byte it charged to the process budget.
func FuzzReadBody(f *testing.F) {
	for i, s := range []string{
		`{"title":"T","start_date":"2027-01-01 10:00","end_date":"2027-01-01 11:00"}`, `[1,1,1]`, `[{},{},{}]`, `{"a":`, `{"a":1}x`,
		`"str"`, `{"categories":[1,"x",{"a":null}],"venue":{"venue":"V","country":"DE"}}`, "title=T&categories[]=1", "a[]=&a[]=&a[]=",
		"--XB\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nT\r\n--XB--\r\n", "", "\xff\xfe", `{"a":"\ud800"}`,
	} {
		f.Add([]byte(s), uint8(i), uint16(10+i), false)
	}
	f.Add([]byte(`{"a":[`+strings.Repeat(`"x",`, 200)+`"x"]}`), uint8(0), uint16(50), true)
	f.Add([]byte(strings.Repeat("a=b&", 300)), uint8(1), uint16(100), false)
	gin.SetMode(gin.ReleaseMode)
	types := []string{"application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=XB",
		"", "text/plain", "Application/JSON; charset=utf-8", "multipart/form-data", "application/x-www-form-urlencoded; charset=latin1"}
	f.Fuzz(func(t *testing.T, body []byte, ctype uint8, maxValues uint16, undeclared bool) {
		s := &Server{cfg: Config{MaxBodyBytes: 4 << 10, MaxBodyValues: int(maxValues), MaxDecodedBytes: 16 << 10}}
		pool := &bodyPool{limit: 1 << 40}
		budget := &bodyBudget{pool: pool, maxValues: s.cfg.MaxBodyValues, maxDecodedBytes: s.cfg.MaxDecodedBytes}
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		var rd = bytes.NewReader(body)
		c.Request = httptest.NewRequest(http.MethodPost, "/wp-json/tribe/events/v1/events", rd)
		if undeclared {
			c.Request.ContentLength = -1 // chunked: charged as it is read
		}
		c.Request.Header.Set("Content-Type", types[int(ctype)%len(types)])
		req := &Request{Method: "POST"}
		if e := s.readBody(c, req, budget); e != nil {
			if e.Status >= 500 || e.Status < 400 || e.Code == "" || e.Message == "" {
				t.Fatalf("readBody(%q) refused with %d %s %q", body, e.Status, e.Code, e.Message)
			}
			if len(body) <= int(s.cfg.MaxBodyBytes) && e.Code == "rest_request_too_large" {
				t.Fatalf("readBody refused %d bytes as too large", len(body))
			}
		} else {
			if req.json == nil || req.body == nil {
				t.Fatalf("readBody(%q) left a parameter source unset", body)
			}
			if _, err := phpjson.Marshal(req.json); err != nil {
				t.Fatal(err)
			}
			if _, err := phpjson.Marshal(req.body); err != nil {
				t.Fatal(err)
			}
		}
		if len(body) > int(s.cfg.MaxBodyBytes) && !undeclared {
			if used := pool.used.Load(); used != 0 {
				t.Fatalf("a refused body holds %d bytes of the process budget", used)
			}
		}
		budget.release()
		if used := pool.used.Load(); used != 0 {
			t.Fatalf("after release the process budget still holds %d bytes", used)
		}
	})
}
