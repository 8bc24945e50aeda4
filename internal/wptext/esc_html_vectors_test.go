package wptext

import (
	"testing"
)

func TestEscHTMLVectors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty stays empty", "", ""},
		{"plain text is unchanged", "Free – 10€", "Free – 10€"},
		{"a bare ampersand is escaped", "a & b", "a &amp; b"},
		{"an escaped ampersand is kept", "&amp;", "&amp;"},
		{"a known named entity is kept", "&copy;", "&copy;"},
		{"apos passes WordPress but not HTML 4.01", "&apos;", "&amp;apos;"},
		{"an unknown named entity is escaped", "&bogus;", "&amp;bogus;"},
		{"a decimal entity is zero-padded", "&#65;", "&#065;"},
		{"leading zeros of a decimal entity are normalised", "&#0065;", "&#065;"},
		{"a hex entity is kept", "&#x41;", "&#x41;"},
		{"a hex entity loses leading zeros and takes a lowercase x", "&#X0041;", "&#x41;"},
		{"entity zero is removed", "a&#0;b", "ab"},
		{"a surrogate entity is escaped", "&#xD800;", "&amp;#xD800;"},
		{"an eight-digit entity is escaped", "&#12345678;", "&amp;#12345678;"},
		{"quotes and brackets are escaped", `<"'>`, "&lt;&quot;&#039;&gt;"},
		{"invalid utf-8 becomes empty", "a\xffb", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := EscHTML(tc.in); got != tc.want {
				t.Errorf("EscHTML(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
