package wptext

import (
	"strings"
	"testing"
)

func TestSanitizeTitleVectors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"Pay what you want", "pay-what-you-want"},
		{"Donation", "donation"},
		{"  Free   entry  ", "free-entry"},
		{"Café crème", "cafe-creme"},
		{"ÅNGSTRÖM", "angstrom"},
		{"Gratis – für alle", "gratis-fur-alle"},
		{"£ or €", "or-e"},
		{"50% off", "50-off"},
		{"a%20b", "a%20b"},
		{"<b>Free</b> entry", "free-entry"},
		{"Free.entry", "free-entry"},
		{"Fish &amp; chips", "fish-chips"},
		{"Ça & là", "ca-la"},
		{"A×B", "axb"},
		{"Kids/Adults", "kids-adults"},
		{"“Quoted”", "quoted"},
		{"日本", "%e6%97%a5%e6%9c%ac"},
		{"Caf\xe9", "cafe"},
		{"a\x00b", "ab"},
		{"---", ""},
		{"", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in+" slugs to "+tc.want, func(t *testing.T) {
			if got := SanitizeTitle(tc.in); got != tc.want {
				t.Errorf("SanitizeTitle(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestUTF8URIEncodeLength(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"multibyte characters stop before 200 bytes", strings.Repeat("日", 70), strings.Repeat("%e6%97%a5", 22)},
		{"ascii stops at 200 bytes", strings.Repeat("a", 250), strings.Repeat("a", 200)},
		{"a character that would cross the limit is dropped", strings.Repeat("a", 198) + "日b", strings.Repeat("a", 198)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := utf8URIEncode(tc.in, 200); got != tc.want {
				t.Errorf("utf8URIEncode = %q (%d bytes), want %d bytes", got, len(got), len(tc.want))
			}
		})
	}
}

func TestStripTags(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"tags are removed", "a <b>bold</b> text", "a bold text"},
		{"a less-than before a space is text", "1 < 2", "1 < 2"},
		{"a lone greater-than is text", "x > y", "x > y"},
		{"comments are removed", "a <!-- c > d --> b", "a  b"},
		{"quoted greater-than stays inside the tag", `<a title="x>y">link</a>`, "link"},
		{"php blocks are removed", "<?php echo 1; ?>after", "after"},
		{"doctype is removed", "<!DOCTYPE html>text", "text"},
		{"an unterminated tag eats the rest", "open <b", "open "},
		{"nul bytes are dropped", "a\x00b", "ab"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StripTags(tc.in); got != tc.want {
				t.Errorf("stripTags(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestRemoveAccents(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"plain", "plain"},
		{"Ærøskøbing", "AEroskobing"},
		{"Straße", "Strase"},
		{"Œuvre € £", "OEuvre E "},
		{"Tiếng Việt", "Tieng Viet"},
		{"\xc6\xe9", "AEe"},
	}
	for _, tc := range tests {
		t.Run(tc.in+" becomes "+tc.want, func(t *testing.T) {
			if got := RemoveAccents(tc.in); got != tc.want {
				t.Errorf("removeAccents(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
