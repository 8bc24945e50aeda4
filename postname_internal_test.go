package calendard

import "testing"

// Vectors read from wp_insert_post's "create a valid post name" step, sanitize_title (save and
// old-save contexts) and PHP's urlencode.
func TestInsertPostName(t *testing.T) {
	stored := func(name string) *Post { return &Post{Name: name} }
	tests := []struct {
		name                   string
		requested, title, stat string
		before                 *Post
		want                   string
	}{
		{"no name: derived from the title", "", "Hello World", "publish", nil, "hello-world"},
		{"no name on a draft: none", "", "Hello World", "draft", nil, ""},
		{"no name on a pending post: none", "", "Hello World", "pending", nil, ""},
		{`"0" is PHP-empty: derived from the title`, "0", "Zero Title", "publish", nil, "zero-title"},
		{"a sent name is sanitized", "Café Night!", "x", "publish", nil, "cafe-night"},
		{"a stored raw UTF-8 name is rewritten on update", "café", "x", "publish", stored("café"), "cafe"},
		{"a stored name with spaces and capitals is rewritten", "Hello World", "x", "publish", stored("Hello World"), "hello-world"},
		{"a stored percent-encoded name stays", "caf%c3%a9", "x", "publish", stored("caf%c3%a9"), "caf%c3%a9"},
		{"a stored en dash octet becomes a hyphen, then is trimmed", "%e2%80%93-summit", "x", "publish", stored("%e2%80%93-summit"), "summit"},
		{"a stored plain name stays (old-save branch)", "annual-meetup", "x", "publish", stored("annual-meetup"), "annual-meetup"},
		{"a stored name of dots is re-sanitized", "v1.2", "x", "publish", stored("v1.2"), "v1-2"},
		{"a stored name that sanitizes to nothing is empty here (the title fills it in later)", "%e2%80%94", "Fair", "publish", stored("%e2%80%94"), ""},
		{"a draft keeps a sent name, sanitized", "My Draft", "x", "draft", stored(""), "my-draft"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := insertPostName(tc.requested, tc.title, tc.stat, tc.before); got != tc.want {
				t.Errorf("insertPostName(%q) = %q, want %q", tc.requested, got, tc.want)
			}
		})
	}
}

func TestPHPURLEncode(t *testing.T) {
	for in, want := range map[string]string{
		"abc-_.": "abc-_.", "a b": "a+b", "café": "caf%C3%A9", "100%": "100%25", "a/b?c=d&e": "a%2Fb%3Fc%3Dd%26e", "~": "%7E",
	} {
		if got := phpURLEncode(in); got != want {
			t.Errorf("phpURLEncode(%q) = %q, want %q", in, got, want)
		}
	}
}
