package handlers

import (
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

func TestNormalizeListsTurnsIndexedObjectsIntoLists(t *testing.T) {
	got := string(phpjson.MustMarshal(normalizeLists(parseQuery("a[]=1&a[]=2&m[x]=1&n[1]=z"))))
	want := `{"a":["1","2"],"m":{"x":"1"},"n":{"1":"z"}}`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
