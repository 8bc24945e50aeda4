package handlers_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/handlers/tribe"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/phpjson"
)

// newRouteServer builds a handlers.Server with the route table exactly as New does, without dependencies:
// building the document never touches the database.
func newRouteServer() *handlers.Server {
	s := &handlers.Server{}
	tribe.Routes(tribe.Services{}, tribe.Options{})(s)
	return s
}

// recordedSite is the recorded reference's site (meta.json).
var recordedSite = &calendard.Site{HomeURL: "http://127.0.0.1:8088", PrettyPermalinks: true}

// recordedDoc returns the reference's /doc body from the recorded set, decoded with its key order.
func recordedDoc(t *testing.T) *phpjson.Object {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "compat-tests", "testdata", "site-a", "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), `"ns/doc"`) {
			continue
		}
		var c struct {
			Name     string
			Response struct{ Body json.RawMessage }
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if c.Name != "ns/doc" {
			continue
		}
		v, err := phpjson.Decode(c.Response.Body)
		if err != nil {
			t.Fatal(err)
		}
		return v.(*phpjson.Object)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatal("case ns/doc not found in the recorded set")
	return nil
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := phpjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func docGet(o *phpjson.Object, key string) any { v, _ := o.Get(key); return v }

// TestDocMatchesRecordedReference compares every part of the generated document, key order included,
// with the reference's answer.
func TestDocMatchesRecordedReference(t *testing.T) {
	want := recordedDoc(t)
	s := newRouteServer()
	got := s.OpenAPI(&handlers.Request{NS: handlers.NamespaceTribe, Site: recordedSite})

	t.Run("top-level keys are in the reference order", func(t *testing.T) {
		if w, g := strings.Join(want.Keys(), ","), strings.Join(got.Keys(), ","); w != g {
			t.Errorf("want %s, got %s", w, g)
		}
	})
	for _, key := range []string{"openapi", "info", "components", "servers"} {
		t.Run(key+" equals the reference", func(t *testing.T) {
			if w, g := mustJSON(t, docGet(want, key)), mustJSON(t, docGet(got, key)); w != g {
				t.Errorf("want %s\n got %s", w, g)
			}
		})
	}
	wantPaths, gotPaths := docGet(want, "paths").(*phpjson.Object), docGet(got, "paths").(*phpjson.Object)
	t.Run("paths are listed in the reference order", func(t *testing.T) {
		if w, g := strings.Join(wantPaths.Keys(), " "), strings.Join(gotPaths.Keys(), " "); w != g {
			t.Errorf("want %s\n got %s", w, g)
		}
	})
	for _, p := range wantPaths.Keys() {
		wantItem := docGet(wantPaths, p).(*phpjson.Object)
		for _, m := range wantItem.Keys() {
			t.Run(m+" "+p+" equals the reference", func(t *testing.T) {
				gotItem, _ := docGet(gotPaths, p).(*phpjson.Object)
				if gotItem == nil {
					t.Fatalf("path %s missing", p)
				}
				wantOp := docGet(wantItem, m).(*phpjson.Object)
				if w, g := mustJSON(t, wantOp), mustJSON(t, docGet(gotItem, m)); w != g {
					t.Errorf("want %s\n got %s", w, g)
				}
			})
		}
		t.Run(p+" documents the reference's methods in order", func(t *testing.T) {
			gotItem, _ := docGet(gotPaths, p).(*phpjson.Object)
			if gotItem == nil {
				t.Fatalf("path %s missing", p)
			}
			if w, g := strings.Join(wantItem.Keys(), ","), strings.Join(gotItem.Keys(), ","); w != g {
				t.Errorf("want %s, got %s", w, g)
			}
		})
	}
}

// TestDocCoversRouteTable walks the router's table: every served route but the namespace root is a
// path of the document with the methods it serves, and every documented path and method is served.
// Creation (POST on an archive) is documented on the archive's item paths, as the plugin does.
func TestDocCoversRouteTable(t *testing.T) {
	s := newRouteServer()
	paths := docGet(s.OpenAPI(&handlers.Request{NS: handlers.NamespaceTribe, Site: recordedSite}), "paths").(*phpjson.Object)
	docKey := map[string]string{"GET": "get", "POST": "post", "DELETE": "delete"}

	byPath := map[string]*handlers.Route{}
	for _, rt := range s.Routes() {
		if rt.Path == "" {
			if paths.Has("") || paths.Has("/") {
				t.Error("the namespace root is documented; the reference does not list it")
			}
			continue
		}
		p := handlers.OpenAPIPath(rt.Path)
		byPath[p] = rt
		t.Run(p+" is documented with every method it serves", func(t *testing.T) {
			item, _ := docGet(paths, p).(*phpjson.Object)
			if item == nil {
				t.Fatalf("route %s has no path %s in the document", rt.Path, p)
			}
			for _, m := range rt.Methods() {
				key, documented := docKey[m]
				if !documented {
					continue // PUT and PATCH share the POST handler
				}
				if m == "POST" && !rt.HasVariables() {
					if item.Has("post") {
						t.Errorf("archive %s documents post; creation belongs to its item paths", p)
					}
					if !itemPostDocumented(s, rt, paths) {
						t.Errorf("archive %s serves POST but no item path documents its creation", p)
					}
					continue
				}
				if !item.Has(key) {
					t.Errorf("%s %s is served but not documented", m, p)
				}
			}
		})
	}
	for _, p := range paths.Keys() {
		t.Run(p+" is a served route", func(t *testing.T) {
			rt := byPath[p]
			if rt == nil {
				t.Fatalf("documented path %s matches no route", p)
			}
			item := docGet(paths, p).(*phpjson.Object)
			for _, key := range item.Keys() {
				served := false
				for m, k := range docKey {
					if k == key && handlers.EndpointFor(rt, m) != nil {
						served = true
					}
				}
				if !served {
					t.Errorf("%s %s is documented but not served", key, p)
				}
			}
		})
	}
	t.Run("every documented operation has responses and no response table entry is stale", func(t *testing.T) {
		for _, p := range paths.Keys() {
			rt := byPath[p]
			item := docGet(paths, p).(*phpjson.Object)
			for _, key := range item.Keys() {
				if len(handlers.DocOperations[rt.Path][key]) == 0 {
					t.Errorf("no documented responses for %s %s", key, rt.Path)
				}
			}
			for key := range handlers.DocOperations[rt.Path] {
				if !item.Has(key) {
					t.Errorf("handlers.DocOperations[%s][%s] documents an operation the route does not serve", rt.Path, key)
				}
			}
		}
		for path := range handlers.DocOperations {
			if rt := byPath[handlers.OpenAPIPath(path)]; rt == nil || rt.Path != path {
				t.Errorf("handlers.DocOperations has %s, which is no route", path)
			}
		}
		for path := range handlers.DocBodyWithReadArgs {
			if rt := byPath[handlers.OpenAPIPath(path)]; rt == nil || rt.Path != path {
				t.Errorf("handlers.DocBodyWithReadArgs has %s, which is no route", path)
			}
		}
	})
}

// itemPostDocumented reports whether some item route under the archive documents a post.
func itemPostDocumented(s *handlers.Server, archive *handlers.Route, paths *phpjson.Object) bool {
	for _, rt := range s.Routes() {
		if rt.HasVariables() && s.CollectionOf(rt) == archive {
			if item, _ := docGet(paths, handlers.OpenAPIPath(rt.Path)).(*phpjson.Object); item != nil && item.Has("post") {
				return true
			}
		}
	}
	return false
}

func TestOpenAPIPath(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain path stays as is", "/events", "/events"},
		{"id group becomes {id}", `/events/(?P<id>\d+)`, "/events/{id}"},
		{"slug group with a class becomes {slug}", `/events/by-slug/(?P<slug>[^/]+)`, "/events/by-slug/{slug}"},
		{"nested groups and escaped parentheses are skipped", `/a/(?P<x>(b|\)))/c`, "/a/{x}/c"},
		{"a parenthesis inside a class does not close the group", `/a/(?P<x>[)]+)/(?P<y>\d+)`, "/a/{x}/{y}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := handlers.OpenAPIPath(tt.in); got != tt.want {
				t.Errorf("handlers.OpenAPIPath(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDocServerURL(t *testing.T) {
	tests := []struct {
		name string
		site *calendard.Site
		ns   string
		want string
	}{
		{"port is dropped from the host", recordedSite, handlers.NamespaceTribe, "http://127.0.0.1/wp-json/tribe/events/v1/"},
		{"namespace follows the client's spelling", recordedSite, handlers.NamespaceCalendar, "http://127.0.0.1/wp-json/calendar/events/v1/"},
		{"sub-directory is lost", &calendard.Site{HomeURL: "https://example.org/blog", PrettyPermalinks: true}, handlers.NamespaceTribe,
			"http://example.org/wp-json/tribe/events/v1/"},
		{"plain permalinks keep the query form", &calendard.Site{HomeURL: "http://example.org"}, handlers.NamespaceTribe,
			"http://example.org/index.php?rest_route=/tribe/events/v1/"},
		{"IPv6 host keeps its brackets", &calendard.Site{HomeURL: "http://[::1]:8080", PrettyPermalinks: true}, handlers.NamespaceTribe,
			"http://[::1]/wp-json/tribe/events/v1/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := handlers.DocServerURL(&handlers.Request{NS: tt.ns, Site: tt.site}); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDocParametersFollowSwaggerizeArgs(t *testing.T) {
	tests := []struct {
		name      string
		arg       *handlers.Arg
		defaultIn string
		want      string
	}{
		{"query argument without description reads No description provided",
			&handlers.Arg{Name: "page", Type: "integer"}, "query",
			`{"in":"query","schema":{"type":"integer"},"description":"No description provided","required":false,"name":"page"}`},
		{"declared in overrides the default and required shows",
			&handlers.Arg{Name: "id", Type: "integer", In: "path", Required: true, Description: "d"}, "query",
			`{"in":"path","schema":{"type":"integer"},"description":"d","required":true,"name":"id"}`},
		{"swagger type wins and CSV lists get style form without explode",
			&handlers.Arg{Name: "tags", Type: "string", SwaggerType: "array", ItemsType: "integer", CollectionFormat: "csv", Description: "d"}, "query",
			`{"in":"query","schema":{"type":"array","items":{"type":"integer"}},"description":"d","required":false,"name":"tags","style":"form"}`},
		{"items without a type document an array",
			&handlers.Arg{Name: "venue", ItemsType: "integer", Description: "d"}, "path",
			`{"in":"path","schema":{"type":"array","items":{"type":"integer"}},"description":"d","required":false,"name":"venue"}`},
		{"no type at all keeps the plugin's false",
			&handlers.Arg{Name: "cost", Description: "d"}, "query",
			`{"in":"query","schema":{"type":false},"description":"d","required":false,"name":"cost"}`},
		{"REST short types are spelled out",
			&handlers.Arg{Name: "n", Type: "int", Description: "d"}, "query",
			`{"in":"query","schema":{"type":"integer"},"description":"d","required":false,"name":"n"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustJSON(t, handlers.DocParameters([]*handlers.Arg{tt.arg}, tt.defaultIn)[0]); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	t.Run("no arguments give no parameters key", func(t *testing.T) {
		if got := handlers.DocParameters(nil, "query"); got != nil {
			t.Errorf("got %v", got)
		}
	})
}

func TestDocRequestBodyFollowsSwaggerizePostArgs(t *testing.T) {
	got := mustJSON(t, handlers.DocRequestBody([]*handlers.Arg{
		{Name: "id", Type: "integer", Description: "the id"},
		{Name: "cost"},
		{Name: "categories", ItemsType: "integer", Description: "c"},
	}))
	want := `{"content":{"application\/x-www-form-urlencoded":{"schema":{"type":"object","properties":{` +
		`"id":{"description":"the id","type":"integer"},` +
		`"cost":{"description":"No description provided","type":"string"},` +
		`"categories":{"description":"c","type":"array","items":{"type":"integer"}}}}}}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
