package wptext

import "testing"

// TestShortcodeBehaviour pins do_shortcode()/strip_shortcodes()/
// shortcode_unautop() behaviour with WordPress' classic test shortcodes
// registered: escaping with [[ ]], hyphenated names, nesting, and
// shortcodes inside HTML attributes.
func TestShortcodeBehaviour(t *testing.T) {
	var handlers map[string]shortcodeFunc
	reg := []string{"test-shortcode-tag", "footag", "bartag", "baztag", "hyphen", "hyphen-foo", "hyphen-foo-bar", "url", "img", "gallery", "caption"}
	handlers = map[string]shortcodeFunc{
		"test-shortcode-tag": func(*RenderContext, string, shortcodeAtts, string) string { return "" },
		"footag": func(_ *RenderContext, _ string, a shortcodeAtts, _ string) string {
			v, _ := a.get("foo")
			return "foo = " + v
		},
		"bartag": func(_ *RenderContext, _ string, a shortcodeAtts, _ string) string {
			v, ok := a.get("foo")
			if !ok {
				v = "no foo"
			}
			return "foo = " + v
		},
		"hyphen":         func(*RenderContext, string, shortcodeAtts, string) string { return "_shortcode_hyphen" },
		"hyphen-foo":     func(*RenderContext, string, shortcodeAtts, string) string { return "_shortcode_hyphen_foo" },
		"hyphen-foo-bar": func(*RenderContext, string, shortcodeAtts, string) string { return "_shortcode_hyphen_foo_bar" },
		"url":            func(*RenderContext, string, shortcodeAtts, string) string { return "http://www.wordpress.org/" },
		"gallery":        galleryShortcode,
		"caption":        captionShortcode,
	}
	handlers["baztag"] = func(rc *RenderContext, _ string, _ shortcodeAtts, c string) string {
		return "content = " + doShortcodeWith(c, rc, handlers, reg, false)
	}
	cases := [][2]string{
		{"[not-a-shortcode-tag]", "[not-a-shortcode-tag]"}, {"[dumptag-notreal]", "[dumptag-notreal]"},
		{"[hyphen]", "_shortcode_hyphen"}, {"[hyphen-foo]", "_shortcode_hyphen_foo"}, {"[hyphen-foo-bar]", "_shortcode_hyphen_foo_bar"},
		{"[hyphen-baz]", "[hyphen-baz]"}, {"[hyphen-foo-bar-baz]", "[hyphen-foo-bar-baz]"}, {"[test-shortcode-tag]", ""},
		{"[footag]", "foo = "}, {`[footag foo="xyz"]`, "foo = xyz"},
		{`[[footag]] [[bartag foo="bar"]]`, `[footag] [bartag foo="bar"]`}, {`[[footag /]] [[bartag foo="bar" /]]`, `[footag /] [bartag foo="bar" /]`},
		{`[[baztag foo="bar"]the content[/baztag]]`, `[baztag foo="bar"]the content[/baztag]`},
		{`[[[footag]]] [[[bartag foo="bar"]]]`, `[[footag]] [[bartag foo="bar"]]`},
		{`[[footag] [bartag foo="bar"]]`, `[foo =  foo = bar]`}, {`[[footag /] [bartag foo="bar" /]]`, `[foo =  foo = bar]`},
		{`[[baztag foo="bar"]the content[/baztag]`, `[content = the content`}, {`[[not-a-tag]]`, `[[not-a-tag]]`},
		{`[[[footag] [bartag foo="bar"]]]`, `[[foo =  foo = bar]]`},
		{`<!--[if lt IE 7]>`, `<!--[if lt IE 7]>`},
		{`1 <a href="[test-shortcode-tag]"> 2 <a href="[test-shortcode-tag]" >`, `1 <a href=""> 2 <a href="" >`},
		{`1 <a noise="[test-shortcode-tag]"> 2 <a noise=" [test-shortcode-tag] " >`, `1 <a noise="[test-shortcode-tag]"> 2 <a noise=" [test-shortcode-tag] " >`},
		{`[gallery title="<div>hello</div>"]`, ``},
		{`<div [gallery]>`, `<div >`}, {`<div [[gallery]]>`, `<div [gallery]>`}, {`<[[gallery]]>`, `<[gallery]>`},
		{`<div style="selector:url([[gallery]])">`, `<div style="selector:url([[gallery]])">`},
		{`[gallery]<div>Hello</div>[/gallery]`, ``}, {`[url]`, `http://www.wordpress.org/`},
		{`<a href="[url]">`, `<a href="http://www.wordpress.org/">`}, {`<a href=[url] >`, `<a href=http://www.wordpress.org/ >`},
		{`<a href="[url]plugins/">`, `<a href="http://www.wordpress.org/plugins/">`}, {`<a href="bad[url]">`, `<a href="//www.wordpress.org/">`},
		{`<a onclick="bad[url]">`, `<a onclick="bad[url]">`},
	}
	for _, c := range cases {
		t.Run(c[0]+" becomes "+c[1], func(t *testing.T) {
			rc := NewRenderContext("")
			if got := doShortcodeWith(c[0], rc, handlers, reg, false); got != c[1] {
				t.Errorf("do_shortcode(%q)\n got %q\nwant %q", c[0], got, c[1])
			}
		})
	}
	t.Run("legacy caption markup adds 10px", func(t *testing.T) {
		rc := NewRenderContext("")
		rc.HTML5Caption = false
		if got := DoShortcode(`[caption caption="test" width="2"]<div>hello</div>[/caption]`, rc); got != `<div style="width: 12px" class="wp-caption alignnone"><div>hello</div><p class="wp-caption-text">test</p></div>` {
			t.Errorf("caption: %q", got)
		}
	})
	strip := [][2]string{
		{"before[gallery]", "before"}, {"[gallery]after", "after"}, {"before[gallery]after", "beforeafter"}, {"before[after", "before[after"},
		{`before[gallery id="123" size="medium"]after`, "beforeafter"}, {"before[unregistered_shortcode]after", "before[unregistered_shortcode]after"},
		{`<!--[if lt IE 7]>`, `<!--[if lt IE 7]>`}, {`[gallery title="<div>hello</div>"]`, ``},
		{`[caption caption="test" width="2"]<div>hello</div>[/caption]`, ``}, {`<div [gallery]>`, `<div [gallery]>`},
		{`<div [[gallery]]>`, `<div [[gallery]]>`}, {`<[[gallery]]>`, `<[[gallery]]>`}, {`[gallery]<div>Hello</div>[/gallery]`, ``},
	}
	for _, c := range strip {
		t.Run("strip_shortcodes "+c[0]+" becomes "+c[1], func(t *testing.T) {
			if got := StripShortcodes(c[0]); got != c[1] {
				t.Errorf("strip(%q) = %q want %q", c[0], got, c[1])
			}
		})
	}
	for _, in := range []string{`<p>[gallery ids="37,15,11"]</p>`, `<p> [gallery ids="37,15,11"] </p>`, "<p> \u00a0[gallery ids=\"37,15,11\"] \u00a0</p>", `<p> &nbsp;[gallery ids="37,15,11"] &nbsp;</p>`} {
		t.Run("unautop removes the paragraph around "+in, func(t *testing.T) {
			if got := ShortcodeUnautop(in); got != `[gallery ids="37,15,11"]` {
				t.Errorf("unautop(%q) = %q", in, got)
			}
		})
	}
	t.Run("autop then unautop round-trips a lone shortcode", func(t *testing.T) {
		if got := ShortcodeUnautop(Autop("[gallery]\n", true)); got != "[gallery]\n" {
			t.Errorf("unautop(autop) = %q", got)
		}
	})
}
