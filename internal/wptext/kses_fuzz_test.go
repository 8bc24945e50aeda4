package wptext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzKses runs the three KSES filters calendard applies to what authors and contributors send
// (titles, content and excerpts, term descriptions) over any text: no panic, valid UTF-8 kept valid,
// and what comes out holds no element and no event-handler attribute the filter's allowed list
// lacks, however the input hid it. Under plain `go test` only the seeds run.
func FuzzKses(f *testing.F) {
	for _, c := range ksesBadProtocolPostCases {
		f.Add(c.in)
	}
	for _, s := range []string{
		`<!-- wp:paragraph {"a":"\u003cscript\u003e","0":[1,2.5,{"k":null}]} --><p>x</p><!-- /wp:paragraph -->`,
		`<!-- wp:group --><div><!-- wp:x/y {"\u003cb\u003e":"v"} /--></div><!-- /wp:group -->`, `<!-- wp:p ---><!-- /wp:p -->`,
		"", "<", ">", "<>", "< b>", "a < b > c", "<b>bold</b>", "<script>alert(1)</script>", "<scr<script>ipt>",
		"<img src=x onerror=alert(1)>", "<IMG SRC=x OnError=alert(1)>", "<a href='x' onclick=\"y\">", "<svg/onload=x>",
		"<a title=\"<script>\">t</a>", "<!-- <script>x</script> -->", "<!--x--!><script>", "<!---->", "<!--->",
		"</ script>", "</3>", "<!doctype html>", "<p style=\"background:url(javascript:x)\">", "<div data-x=1 data-Y-=2>",
		"<a href=\"http://ok\" target=_blank rel=noopener>", "<iframe src=//evil>", "<details open name=x><summary>s",
		"<b\x00onclick=x>", "<b/onclick=x>", "<b \"onclick=x\">", "<b onclick>", "&lt;script&gt;", "&#60;script&#62;",
		"<<b>>", "<b <i>>", "\xff<b>\xfe", "<a href=\"&#x6A;avascript:x\">", "<math><mi xlink:href=x>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, flt := range []struct {
			name    string
			run     func(string) string
			allowed ksesAllowed
		}{
			{"FilterKses", FilterKses, allowedTags},
			{"FilterKsesTermDescription", FilterKsesTermDescription, termDescriptionTags},
			{"FilterPostKses", func(s string) string { return FilterPostKses(s, "") }, postAllowedTags},
			{"FilterPostKses with an uploads host", func(s string) string { return FilterPostKses(s, "http://example.org/wp-content/uploads/2026/11") },
				ksesPostAllowed("http://example.org/wp-content/uploads/2026/11")},
		} {
			out := flt.run(s)
			if utf8.ValidString(s) && !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q is not valid UTF-8", flt.name, s, out)
			}
			if msg := ksesLeak(out, flt.allowed, 0); msg != "" {
				t.Fatalf("%s(%q) = %q: %s", flt.name, s, out, msg)
			}
		}
	})
}

// ksesLeak scans filtered output as a browser would tokenise it and names the first element or
// event-handler attribute that is not allowed ("" when there is none). Comments are scanned inside
// too (KSES filters their content the same way).
func ksesLeak(s string, allowed ksesAllowed, depth int) string {
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		rest := s[i:]
		if strings.HasPrefix(rest, "<!--") {
			end := strings.Index(rest[4:], "-->")
			if end < 0 {
				return "unterminated comment"
			}
			if depth < 4 {
				if msg := ksesLeak(rest[4:4+end], allowed, depth+1); msg != "" {
					return "in a comment: " + msg
				}
			}
			i += 4 + end + 2
			continue
		}
		j := i + 1
		if j < len(s) && s[j] == '/' {
			j++
		}
		if j >= len(s) || !isAlpha(s[j]) {
			continue // not a tag to a browser: "<" followed by anything but a letter is text
		}
		k := j
		for k < len(s) && !strings.ContainsRune("\t\n\f\r />", rune(s[k])) {
			k++
		}
		name := asciiLower(s[j:k])
		if _, ok := allowed[name]; !ok {
			return "element <" + name + "> kept"
		}
		// Attributes up to the tag's end, quotes respected.
		for k < len(s) && s[k] != '>' {
			for k < len(s) && strings.ContainsRune("\t\n\f\r /", rune(s[k])) {
				k++
			}
			a := k
			for k < len(s) && !strings.ContainsRune("\t\n\f\r />=", rune(s[k])) {
				k++
			}
			attr := asciiLower(s[a:k])
			if strings.HasPrefix(attr, "on") {
				return "event handler attribute " + attr + " kept on <" + name + ">"
			}
			for k < len(s) && strings.ContainsRune("\t\n\f\r ", rune(s[k])) {
				k++
			}
			if k < len(s) && s[k] == '=' {
				k++
				for k < len(s) && strings.ContainsRune("\t\n\f\r ", rune(s[k])) {
					k++
				}
				if k < len(s) && (s[k] == '"' || s[k] == '\'') {
					q := s[k]
					e := strings.IndexByte(s[k+1:], q)
					if e < 0 {
						return "unterminated attribute value on <" + name + ">"
					}
					k += e + 2
				} else {
					for k < len(s) && !strings.ContainsRune("\t\n\f\r >", rune(s[k])) {
						k++
					}
				}
			}
		}
		i = k
	}
	return ""
}
