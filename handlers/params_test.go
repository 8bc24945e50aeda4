package handlers

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/calendard/calendard/internal/phpjson"
)

func TestParseQuery(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"plain pairs keep order", "b=2&a=1", `{"b":"2","a":"1"}`},
		{"repeated plain key keeps the last value", "a=1&a=2", `{"a":"2"}`},
		{"brackets build a list", "a[]=1&a[]=2", `{"a":{"0":"1","1":"2"}}`},
		{"named brackets build a map", "v[venue]=Hall&v[city]=Rome", `{"v":{"venue":"Hall","city":"Rome"}}`},
		{"plus and percent decode", "s=caf%C3%A9+cr%C3%A8me", `{"s":"caf\u00e9 cr\u00e8me"}`},
		{"dots and spaces in names become underscores", "a.b=1&c+d=2", `{"a_b":"1","c_d":"2"}`},
		{"unclosed bracket is literal", "a[b=1", `{"a_b":"1"}`},
		{"empty value is an empty string", "a=", `{"a":""}`},
		{"name without value", "flag", `{"flag":""}`},
		{"bad percent escape stays literal", "a=%zz", `{"a":"%zz"}`},
		{"numeric indices continue after the largest", "a[5]=x&a[]=y", `{"a":{"5":"x","6":"y"}}`},
		{"empty name is ignored", "=1&b=2", `{"b":"2"}`},
		// Expected values below are PHP 8.2's parse_str output.
		{"only canonical integers are integer keys", "a[05]=x&a[]=y", `{"a":{"05":"x","0":"y"}}`},
		{"a negative key sets the next index", "b[-3]=x&b[]=y", `{"b":{"-3":"x","-2":"y"}}`},
		{"64 levels of nesting are kept", "keep=1&d" + strings.Repeat("[x]", 64) + "=1", `{"keep":"1","d":` + strings.Repeat(`{"x":`, 64) + `"1"` + strings.Repeat("}", 65)},
		{"65 levels drop the whole variable", "e=0&e[a]=1&keep=1&e" + strings.Repeat("[x]", 65) + "=1", `{"keep":"1"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(phpjson.MustMarshal(parseQuery(tc.raw)))
			if got != tc.want {
				t.Errorf("parseQuery(%q) = %s, want %s", tc.raw, got, tc.want)
			}
		})
	}
}

// PHP reads at most max_input_vars (1000) variables, counting each one, however it is named.
func TestParseQueryStopsAtMaxInputVars(t *testing.T) {
	var pairs []string
	for i := 1; i <= 1001; i++ {
		pairs = append(pairs, fmt.Sprintf("v%d=%d", i, i))
	}
	if got := parseQuery(strings.Join(pairs, "&")); got.Len() != 1000 || got.Has("v1001") || !got.Has("v1000") {
		t.Errorf("%d variables, v1001 present = %v; want the first 1000", got.Len(), got.Has("v1001"))
	}
	list, _ := parseQuery(strings.Repeat("a[]=1&", 5000)).Get("a")
	if n := list.(*phpjson.Object).Len(); n != 1000 {
		t.Errorf("a[] appended %d times, want 1000", n)
	}
}

// Multipart forms fill the same parameters as urlencoded ones, in order, without file parts.
func TestParseMultipartReadsFieldsLikePHP(t *testing.T) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, kv := range [][2]string{{"title", "MP"}, {"tags[]", "a"}, {"tags[]", "b"}, {"venue[city]", "Rome"}} {
		if err := w.WriteField(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	fw, _ := w.CreateFormFile("image", "x.png")
	fw.Write([]byte("PNG"))
	w.Close()
	got := string(phpjson.MustMarshal(normalizeLists(parseMultipart(b.Bytes(), w.FormDataContentType()))))
	want := `{"title":"MP","tags":["a","b"],"venue":{"city":"Rome"}}`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got := parseMultipart(b.Bytes(), "multipart/form-data"); got.Len() != 0 {
		t.Errorf("no boundary: %d fields, want none", got.Len())
	}
}

func BenchmarkParseQueryLongList(b *testing.B) {
	raw := strings.Repeat("a[]=1&", 1000)
	for b.Loop() {
		parseQuery(raw)
	}
}

func TestNormalizeListsTurnsIndexedObjectsIntoLists(t *testing.T) {
	got := string(phpjson.MustMarshal(normalizeLists(parseQuery("a[]=1&a[]=2&m[x]=1&n[1]=z"))))
	want := `{"a":["1","2"],"m":{"x":"1"},"n":{"1":"z"}}`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
