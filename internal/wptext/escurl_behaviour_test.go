package wptext

import "testing"

// TestEscURLBehaviour pins esc_url()/esc_url_raw() behaviour for spaces,
// encoded newlines, relative and bare URLs, protocols, brackets and IPv6.
func TestEscURLBehaviour(t *testing.T) {
	disp := [][2]string{
		{"http://example.com/Mr WordPress", "http://example.com/Mr%20WordPress"},
		{"http://example.com/Mr%20%20WordPress", "http://example.com/Mr%20%20WordPress"},
		{" http://example.com/Mr+WordPress", "http://example.com/Mr+WordPress"},
		{"http://example.com/?foo=one two three&bar=four", "http://example.com/?foo=one%20two%20three&#038;bar=four"},
		{"http://example.com/watchthelinefeed%0Ago", "http://example.com/watchthelinefeedgo"},
		{"http://example.com/watchthecarriagereturn%0%0ddgo", "http://example.com/watchthecarriagereturngo"},
		{"http://example.com/%0%0%0DAD", "http://example.com/"},
		{"http://example.com/%0%0%0ADa", "http://example.com/"},
		{"/example.php", "/example.php"}, {"example.php", "example.php"}, {"#fragment", "#fragment"}, {"?foo=bar", "?foo=bar"},
		{"https://user:pass@host.example.com:1234/path;p=1?query=2&r[]=3#fragment", "https://user:pass@host.example.com:1234/path;p=1?query=2&#038;r%5B%5D=3#fragment"},
		{"example.com?foo", "http://example.com?foo"}, {"localhost", "http://localhost"}, {"баба.org/баба", "http://баба.org/баба"},
		{"http://example.com?foo=1&amp;bar=2", "http://example.com?foo=1&#038;bar=2"}, {"http://example.com?foo=1&#038;bar=2", "http://example.com?foo=1&#038;bar=2"},
		{"http://example.com?url=http%3A%2F%2Fexample.com%2F%3Fone%3D1%26two%3D2", "http://example.com?url=http%3A%2F%2Fexample.com%2F%3Fone%3D1%26two%3D2"},
		{"nasty://example.com/", ""}, {"HTTP://example.com", "http://example.com"}, {"Http://example.com", "http://example.com"},
		{"http://example.com/'quoted'", "http://example.com/&#039;quoted&#039;"},
		{"feed:javascript:alert(1)", ""}, {"feed:javascript:feed:alert(1)", ""}, {"feed:feed:javascript:alert(1)", ""},
		{"feed:feed:alert(1)", "feed:feed:alert(1)"}, {"feed:http://wordpress.org/feed/", "feed:http://wordpress.org/feed/"},
		{"data:text/plain;base64,SGVsbG8sIFdvcmxkIQ%3D%3D", ""},
		{"/example.php?one[]=two", "/example.php?one%5B%5D=two"}, {"?foo[bar]=baz", "?foo%5Bbar%5D=baz"},
		{"//example.com/?foo[bar]=baz", "//example.com/?foo%5Bbar%5D=baz"}, {"example.com/?foo[bar]=baz", "http://example.com/?foo%5Bbar%5D=baz"},
		{"localhost?foo[bar]=baz", "http://localhost?foo%5Bbar%5D=baz"}, {"http://example.com/?baz=bar&foo[bar]=baz", "http://example.com/?baz=bar&#038;foo%5Bbar%5D=baz"},
		{"//example.com/foo?foo=abc:def", "//example.com/foo?foo=abc:def"},
		{"mailto:?body=Hi%20there%2C%0A%0AI%20thought", "mailto:?body=Hi%20there%2C%0A%0AI%20thought"},
		{"http://example.com/mailto:?body=Hi%20there%2C%0A%0AI%20thought", "http://example.com/mailto:?body=Hi%20there%2CI%20thought"},
		{"mailto:?body=Hi there, I thought", "mailto:?body=Hi%20there,%20I%20thought"},
		{"//[::127.0.0.1]", "//[::127.0.0.1]"}, {"http://[::FFFF::127.0.0.1]", "http://[::FFFF::127.0.0.1]"},
		{"//[::FFFF::127.0.0.1]/?foo[bar]=baz", "//[::FFFF::127.0.0.1]/?foo%5Bbar%5D=baz"},
		{"http://[::FFFF::127.0.0.1]/?foo[bar]=baz", "http://[::FFFF::127.0.0.1]/?foo%5Bbar%5D=baz"},
	}
	for _, c := range disp {
		t.Run("esc_url "+c[0]+" becomes "+c[1], func(t *testing.T) {
			if got := EscURL(c[0]); got != c[1] {
				t.Errorf("EscURL(%q) = %q want %q", c[0], got, c[1])
			}
		})
	}
	raw := [][2]string{
		{"https://user:pass@host.example.com:1234/path;p=1?query=2&r[]=3#fragment", "https://user:pass@host.example.com:1234/path;p=1?query=2&r%5B%5D=3#fragment"},
		{"http://example.com?foo=1&amp;bar=2", "http://example.com?foo=1&amp;bar=2"},
		{"http://example.com/:@-._~!$&'()*+,=;:@-._~!$&'()*+,=:@-._~!$&'()*+,==?/?:@-._~!$%27()*+,;=/?:@-._~!$%27()*+,;==#/?:@-._~!$&'()*+,;=", "http://example.com/:@-._~!$&'()*+,=;:@-._~!$&'()*+,=:@-._~!$&'()*+,==?/?:@-._~!$%27()*+,;=/?:@-._~!$%27()*+,;==#/?:@-._~!$&'()*+,;="},
		{"\"^<>{}`", ""},
	}
	for _, c := range raw {
		t.Run("esc_url_raw "+c[0]+" becomes "+c[1], func(t *testing.T) {
			if got := EscURLRaw(c[0]); got != c[1] {
				t.Errorf("EscURLRaw(%q) = %q want %q", c[0], got, c[1])
			}
		})
	}
}
