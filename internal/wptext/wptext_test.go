package wptext

import (
	"html"
	"strings"
	"testing"
	"unicode/utf8"
)

// Expected values below were derived by hand from the WordPress 6.9 /
// PHP 8 sources (formatting.php, shortcodes.php, media.php, kses.php,
// blocks.php); comments note the rule each case exercises.

func TestTexturize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"docblock example is fully converted",
			`'cause today's effort makes it worth tomorrow's "holiday" ...`,
			`&#8217;cause today&#8217;s effort makes it worth tomorrow&#8217;s &#8220;holiday&#8221; &#8230;`},
		{"double quotes become curly", `He said "hi".`, `He said &#8220;hi&#8221;.`},
		{"apostrophe inside a word", `it's`, `it&#8217;s`},
		{"single quotes around a phrase", `'Hello,' she said`, `&#8216;Hello,&#8217; she said`},
		{"abbreviated year gets an apostrophe", `'99`, `&#8217;99`},
		{"quoted number uses opening and closing quotes", `"42"`, `&#8220;42&#8221;`},
		{"prime after a digit", `He is 6' tall`, `He is 6&#8242; tall`},
		{"double prime after a digit", `a 9" screen`, `a 9&#8243; screen`},
		{"spaced double dash is an em dash", `a -- b`, `a &#8212; b`},
		{"triple dash is an em dash", `a---b`, `a&#8212;b`},
		{"unspaced double dash is an en dash", `a--b`, `a&#8211;b`},
		{"punycode xn-- is left alone", `xn--abc`, `xn--abc`},
		{"spaced single dash is an en dash", `a - b`, `a &#8211; b`},
		{"hyphenated word keeps its hyphen", `well-known`, `well-known`},
		{"dimensions use a multiplication sign", `9x9 and 1024x768.`, `9&#215;9 and 1024&#215;768.`},
		{"hex numbers are not dimensions", `0x9999`, `0x9999`},
		{"trademark after a space", `Brand (tm)`, `Brand &#8482;`},
		{"ellipsis", `Wait...`, `Wait&#8230;`},
		{"double backticks open a quote", "``quote''", `&#8220;quote&#8221;`},
		{"cockney word", `rock 'n' roll 'til dawn`, `rock &#8216;n&#8217; roll &#8217;til dawn`},
		{"lone ampersand is encoded", `AT&T`, `AT&#038;T`},
		{"entities are kept", `&amp; &#8217; &#x27; &hellip;`, `&amp; &#8217; &#x27; &hellip;`},
		{"ampersand inside a tag attribute is encoded", `<a href="?a=1&b=2">x</a>`, `<a href="?a=1&#038;b=2">x</a>`},
		{"text inside pre is untouched", `<pre>"q" --</pre> "x"`, `<pre>"q" --</pre> &#8220;x&#8221;`},
		{"text inside code is untouched", `<code>don't</code> don't`, `<code>don't</code> don&#8217;t`},
		{"nested no-texturize tags", `<pre><code>'a'</code>'b'</pre>'c'`, `<pre><code>'a'</code>'b'</pre>&#8216;c&#8217;`},
		{"comments are untouched", `<!-- "c" & -->`, `<!-- "c" & -->`},
		{"registered shortcode tags are delimiters", `[caption align="x"]"q"[/caption]`, `[caption align="x"]&#8220;q&#8221;[/caption]`},
		{"unknown shortcodes are texturized as text", `[foo a="b"]`, `[foo a=&#8221;b&#8221;]`},
		{"escaped shortcode is skipped", `[[audio src="a"]]`, `[[audio src="a"]]`},
		{"quote after &lt; opens", `&lt;"x"`, `&lt;&#8220;x&#8221;`},
		{"empty and zero strings are returned as is", `0`, `0`},
		{"unclosed tag swallows the rest", `a <b "x"`, `a <b "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Texturize(tt.in); got != tt.want {
				t.Errorf("Texturize(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestAutop(t *testing.T) {
	tests := []struct {
		name, in string
		br       bool
		want     string
	}{
		{"plain text becomes a paragraph", "Hello", true, "<p>Hello</p>\n"},
		{"single newline becomes br", "a\nb", true, "<p>a<br />\nb</p>\n"},
		{"single newline kept without br", "a\nb", false, "<p>a\nb</p>\n"},
		{"blank line separates paragraphs", "a\n\nb", true, "<p>a</p>\n<p>b</p>\n"},
		{"windows newlines are normalised", "a\r\n\r\nb", true, "<p>a</p>\n<p>b</p>\n"},
		{"block element is not wrapped", "<div>x</div>", true, "<div>x</div>\n"},
		{"pre content is preserved", "<pre>a\n\nb</pre>", true, "<pre>a\n\nb</pre>\n"},
		{"double br becomes a paragraph break", "a<br><br>b", true, "<p>a</p>\n<p>b</p>\n"},
		{"newlines inside tags are kept", "<a\nhref=\"x\">y</a>", true, "<p><a\nhref=\"x\">y</a></p>\n"},
		{"newlines inside script are kept", "<script>a\nb</script>", true, "<p><script>a\nb</script></p>\n"},
		{"list items are not wrapped", "<ul>\n<li>a</li>\n</ul>", true, "<ul>\n<li>a</li>\n</ul>\n"},
		{"whitespace only yields empty", " \n\t", true, ""},
		{"blockquote gets an inner paragraph", "<blockquote>q</blockquote>", true, "<blockquote><p>q</p></blockquote>\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Autop(tt.in, tt.br); got != tt.want {
				t.Errorf("Autop(%q, %v)\n got %q\nwant %q", tt.in, tt.br, got, tt.want)
			}
		})
	}
}

func TestShortcodeUnautop(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"lone shortcode is unwrapped", `<p>[gallery ids="1"]</p>`, `[gallery ids="1"]`},
		{"enclosing shortcode is unwrapped", "<p>[caption]x[/caption]</p>\n", "[caption]x[/caption]\n"},
		{"self-closing shortcode is unwrapped", `<p> [audio src="a.mp3" /] </p>`, `[audio src="a.mp3" /]`},
		{"shortcode with text stays wrapped", `<p>text [audio]</p>`, `<p>text [audio]</p>`},
		{"unknown shortcode stays wrapped", `<p>[unknown]</p>`, `<p>[unknown]</p>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShortcodeUnautop(tt.in); got != tt.want {
				t.Errorf("ShortcodeUnautop(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDoShortcode(t *testing.T) {
	tests := []struct {
		name, in string
		html5    bool
		want     string
	}{
		{"escaped shortcode loses one bracket pair", `[[audio src="x.mp3"]]`, true, `[audio src="x.mp3"]`},
		{"gallery without attachments is empty", `a [gallery ids="1,2"] b`, true, `a  b`},
		{"playlist without attachments is empty", `[playlist]`, true, ``},
		{"caption without an image returns its content", `[caption width="300"]Just text[/caption]`, true, `Just text`},
		{"caption attribute renders a figure",
			`[caption width="300" caption="Cap"]<img src="a.jpg" alt="" />[/caption]`, true,
			`<figure style="width: 300px" class="wp-caption alignnone"><img src="a.jpg" alt="" /><figcaption class="wp-caption-text">Cap</figcaption></figure>`},
		{"new-style caption with id renders ids and aria",
			`[caption id="attachment_5" align="aligncenter" width="640"]<img src="x.jpg" /> My caption[/caption]`, true,
			`<figure id="attachment_5" aria-describedby="caption-attachment-5" style="width: 640px" class="wp-caption aligncenter"><img src="x.jpg" /><figcaption id="caption-attachment-5" class="wp-caption-text">My caption</figcaption></figure>`},
		{"non-HTML5 caption adds 10px and a div",
			`[caption id="attachment_5" width="640"]<img src="x.jpg" /> Cap[/caption]`, false,
			`<div id="attachment_5" style="width: 650px" class="wp-caption alignnone"><img aria-describedby="caption-attachment-5" src="x.jpg" /><p id="caption-attachment-5" class="wp-caption-text">Cap</p></div>`},
		{"audio with an unsupported extension becomes a link",
			`[audio src="https://x.test/a.txt"]`, true,
			`<a class="wp-embedded-audio" href="https://x.test/a.txt">https://x.test/a.txt</a>`},
		{"audio with loop and autoplay",
			`[audio src="https://x.test/a.ogg" loop="yes" autoplay="on"]`, true,
			`<audio class="wp-audio-shortcode" id="audio-0-1" loop="1" autoplay="1" preload="none" style="width: 100%;" controls="controls"><source type="audio/ogg" src="https://x.test/a.ogg?_=1" /><a href="https://x.test/a.ogg">https://x.test/a.ogg</a></audio>`},
		{"audio source keeps its query string and appends the instance",
			`[audio mp3="https://x.test/a.mp3"]`, true,
			`<audio class="wp-audio-shortcode" id="audio-0-1" preload="none" style="width: 100%;" controls="controls"><source type="audio/mpeg" src="https://x.test/a.mp3?_=1" /><a href="https://x.test/a.mp3">https://x.test/a.mp3</a></audio>`},
		{"audio without a source renders nothing", `[audio]`, true, ``},
		{"video renders a sized wrapper",
			`[video src="https://e.test/v.mp4"]`, true,
			`<div style="width: 640px;" class="wp-video"><video class="wp-video-shortcode" id="video-0-1" width="640" height="360" preload="metadata" controls="controls"><source type="video/mp4" src="https://e.test/v.mp4?_=1" /><a href="https://e.test/v.mp4">https://e.test/v.mp4</a></video></div>`},
		{"youtube video uses the youtube type",
			`[video src="https://www.youtube.com/watch?v=abc&feature=share"]`, true,
			`<div style="width: 640px;" class="wp-video"><video class="wp-video-shortcode" id="video-0-1" width="640" height="360" preload="metadata" controls="controls"><source type="video/youtube" src="https://www.youtube.com/watch?v=abc&#038;_=1" /><a href="https://www.youtube.com/watch?v=abc">https://www.youtube.com/watch?v=abc</a></video></div>`},
		{"embed reached through do_shortcode renders nothing", `[embed]https://x.test[/embed]`, true, ``},
		{"unknown shortcodes are left alone", `[foo bar="baz"]x[/foo]`, true, `[foo bar="baz"]x[/foo]`},
		{"shortcode in an unquoted attribute is expanded", `<a title=[gallery]>x</a>`, true, `<a title=>x</a>`},
		{"brackets inside other attributes survive", `<a title="[x]">y</a> [gallery]`, true, `<a title="[x]">y</a> `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := NewRenderContext(refHome)
			rc.HTML5Caption = tt.html5
			if got := DoShortcode(tt.in, rc); got != tt.want {
				t.Errorf("DoShortcode(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
	t.Run("audio instances count up within one context", func(t *testing.T) {
		rc := NewRenderContext(refHome)
		DoShortcode(`[audio src="https://x.test/a.mp3"]`, rc)
		got := DoShortcode(`[audio src="https://x.test/a.mp3"]`, rc)
		if !strings.Contains(got, `id="audio-0-2"`) || !strings.Contains(got, `a.mp3?_=2`) {
			t.Errorf("second audio = %q, want instance 2", got)
		}
	})
}

func TestShortcodeAttributeParsing(t *testing.T) {
	tests := []struct {
		name, in   string
		named      map[string]string
		positional []string
	}{
		{"double, single and bare values", ` a="1" B='2' c=3`, map[string]string{"a": "1", "b": "2", "c": "3"}, nil},
		{"positional values", ` "x" 'y' z`, map[string]string{}, []string{"x", "y", "z"}},
		{"C escapes are decoded", ` a="x\ty"`, map[string]string{"a": "x\ty"}, nil},
		{"unclosed HTML is rejected", ` a="<b"`, map[string]string{"a": ""}, nil},
		{"non-breaking spaces separate attributes", " a=\"1\"\u00a0b=\"2\"", map[string]string{"a": "1", "b": "2"}, nil},
		{"attribute named 0 is dropped like PHP empty()", ` 0="x" a="y"`, map[string]string{"a": "y"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseShortcodeAtts(tt.in)
			if len(got.named) != len(tt.named) {
				t.Fatalf("named = %v, want %v", got.named, tt.named)
			}
			for k, v := range tt.named {
				if got.named[k] != v {
					t.Errorf("named[%q] = %q, want %q", k, got.named[k], v)
				}
			}
			if strings.Join(got.positional, "|") != strings.Join(tt.positional, "|") {
				t.Errorf("positional = %q, want %q", got.positional, tt.positional)
			}
		})
	}
}

func TestStripShortcodes(t *testing.T) {
	in := `a [gallery] b [[audio]] [caption]c[/caption] [foo]`
	want := `a  b [audio]  [foo]`
	t.Run("registered shortcodes and their content are removed", func(t *testing.T) {
		if got := StripShortcodes(in); got != want {
			t.Errorf("StripShortcodes(%q) = %q, want %q", in, got, want)
		}
	})
}

func TestContent(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text is wrapped", "Hello", "<p>Hello</p>"},
		{"empty content stays empty", "", ""},
		{"embed shortcode becomes a link when oEmbed is unavailable",
			"[embed]https://example.com/page[/embed]",
			`<p><a href="https://example.com/page">https://example.com/page</a></p>`},
		{"audio URL on its own line is auto-embedded",
			"Intro\n\nhttps://example.com/a.mp3\n\nOutro",
			// The embed handler returns [audio … /], which shortcode_unautop unwraps.
			"<p>Intro</p>\n<audio class=\"wp-audio-shortcode\" id=\"audio-0-1\" preload=\"none\" style=\"width: 100%;\" controls=\"controls\"><source type=\"audio/mpeg\" src=\"https://example.com/a.mp3?_=1\" /><a href=\"https://example.com/a.mp3\">https://example.com/a.mp3</a></audio>\n<p>Outro</p>"},
		{"embed shortcode with a video URL renders a video player",
			"[embed]https://e.test/v.mp4[/embed]",
			`<div style="width: 640px;" class="wp-video"><video class="wp-video-shortcode" id="video-0-1" width="640" height="360" preload="metadata" controls="controls"><source type="video/mp4" src="https://e.test/v.mp4?_=1" /><a href="https://e.test/v.mp4">https://e.test/v.mp4</a></video></div>`},
		{"youtube embed URL falls back to the watch URL", "https://www.youtube.com/embed/abc123",
			"<p>https://youtube.com/watch?v=abc123</p>"},
		{"plain URL on its own line is left as text", "https://example.com/page", "<p>https://example.com/page</p>"},
		{"block comments are removed and wpautop is skipped",
			"<!-- wp:paragraph -->\n<p>Hello</p>\n<!-- /wp:paragraph -->", "<p>Hello</p>"},
		{"freeform HTML between blocks is kept",
			"<!-- wp:paragraph -->\n<p>A</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:paragraph -->\n<p>B</p>\n<!-- /wp:paragraph -->",
			"<p>A</p>\n\n\n\n<p>B</p>"},
		{"smilies become emoji", "Nice :)", "<p>Nice \U0001F642</p>"},
		{"image smilies use the site URL", ":mrgreen:",
			`<p><img src="http://127.0.0.1:8088/wp-includes/images/smilies/mrgreen.png" alt=":mrgreen:" class="wp-smiley" style="height: 1em; max-height: 1em;" /></p>`},
		{"Wordpress is capitalised after a space", "I use Wordpress", "<p>I use WordPress</p>"},
		{"images get loading attributes", `<img src="a.jpg" width="10" height="20" alt="">`,
			`<p><img loading="lazy" decoding="async" src="a.jpg" width="10" height="20" alt=""></p>`},
		{"images without dimensions only get decoding", `<img src="a.jpg" alt="">`,
			`<p><img decoding="async" src="a.jpg" alt=""></p>`},
		{"iframes with dimensions are lazy-loaded", `<iframe src="https://x.test" width="1" height="1"></iframe>`,
			`<p><iframe loading="lazy" src="https://x.test" width="1" height="1"></iframe></p>`},
		{"dimensions texturized in content", "Room 3x4", "<p>Room 3&#215;4</p>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Content(tt.in, NewRenderContext(refHome)); got != tt.want {
				t.Errorf("Content(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
	t.Run("dynamic blocks are rendered through the hook", func(t *testing.T) {
		rc := NewRenderContext(refHome)
		rc.RenderBlock = func(name, attrs, inner string) (string, bool) {
			if name == "tribe/event-datetime" {
				if attrs != `{"a":1}` {
					return "", false
				}
				return `<div class="dt">ok</div>`, true
			}
			return "", false
		}
		in := "<!-- wp:tribe/event-datetime {\"a\":1} /-->\n<!-- wp:paragraph -->\n<p>x</p>\n<!-- /wp:paragraph -->"
		want := "<div class=\"dt\">ok</div>\n\n<p>x</p>"
		if got := Content(in, rc); got != want {
			t.Errorf("Content(%q)\n got %q\nwant %q", in, got, want)
		}
	})
	t.Run("nil context renders without panicking", func(t *testing.T) {
		if got := Content("x", nil); got != "<p>x</p>" {
			t.Errorf("Content(x, nil) = %q", got)
		}
	})
}

func TestTitleAndExcerpt(t *testing.T) {
	titles := []struct{ name, in, want string }{
		{"ampersand is encoded", "Rock & Roll", "Rock &#038; Roll"},
		{"apostrophe is curly", "Don't Stop", "Don&#8217;t Stop"},
		{"ellipsis", "Wait...", "Wait&#8230;"},
		{"double dash", "A -- B", "A &#8212; B"},
		{"Wordpress is fixed anywhere in titles", "myWordpress", "myWordPress"},
		{"whitespace is trimmed", "  x  ", "x"},
		{"tags are kept", "<b>x</b>", "<b>x</b>"},
	}
	for _, tt := range titles {
		t.Run("title: "+tt.name, func(t *testing.T) {
			if got := Title(tt.in); got != tt.want {
				t.Errorf("Title(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	t.Run("get_the_title prefixes private posts", func(t *testing.T) {
		if got := GetTheTitle("X & Y", "private", false); got != "Private: X &#038; Y" {
			t.Errorf("got %q", got)
		}
		if got := GetTheTitle("X", "publish", true); got != "Protected: X" {
			t.Errorf("got %q", got)
		}
	})
	excerpts := []struct{ name, in, want string }{
		{"empty stays empty", "", ""},
		{"short text is a paragraph", "Short", "<p>Short</p>"},
		{"newline becomes br", "Line1\nLine2", "<p>Line1<br />\nLine2</p>"},
		{"quotes and smilies", `"Hi" :)`, "<p>&#8220;Hi&#8221; \U0001F642</p>"},
		{"shortcodes are not executed", `[audio src="a.mp3"]`, `[audio src="a.mp3"]`},
	}
	for _, tt := range excerpts {
		t.Run("excerpt: "+tt.name, func(t *testing.T) {
			if got := Excerpt(tt.in); got != tt.want {
				t.Errorf("Excerpt(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestJSONLD(t *testing.T) {
	words := make([]string, 35)
	for i := range words {
		words[i] = "w" + itoa(i+1)
	}
	long := "<p>" + strings.Join(words, " ") + "</p>"
	tests := []struct{ name, excerpt, content, want string }{
		{"long content is cut to 30 words", "", long,
			`&lt;p&gt;` + strings.Join(words[:30], " ") + ` [&hellip;]&lt;/p&gt;\n`},
		{"empty content gives an empty description", "", "", ""},
		{"excerpt wins and keeps allowed tags", `An <em>x</em> <div>y</div>`, "ignored",
			`&lt;p&gt;An &lt;em&gt;x&lt;/em&gt; y&lt;/p&gt;\n`},
		{"shortcode-like text is removed", "", `[foo]Kept[/foo] text`, `&lt;p&gt;Kept text&lt;/p&gt;\n`},
		{"text between angle brackets is eaten like a tag", "", `a < 6 > b`, `&lt;p&gt;a b&lt;/p&gt;\n`},
		{"ampersand and quotes are escaped", "", `Tom & "Jerry" 's`, `&lt;p&gt;Tom &amp; &quot;Jerry&quot; \'s&lt;/p&gt;\n`},
		{"newlines in the excerpt become br and \\n", "a\nb", "", `&lt;p&gt;a&lt;br /&gt;\nb&lt;/p&gt;\n`},
		{"non-excerpt blocks are dropped", "",
			"<!-- wp:tribe/event-venue /-->\n<!-- wp:paragraph -->\n<p>Para</p>\n<!-- /wp:paragraph -->",
			`&lt;p&gt;Para&lt;/p&gt;\n`},
		{"unicode is kept", "", "Café ☕", `&lt;p&gt;Café ☕&lt;/p&gt;\n`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := JSONLDDescription(tt.excerpt, tt.content); got != tt.want {
				t.Errorf("JSONLDDescription(%q, %q)\n got %q\nwant %q", tt.excerpt, tt.content, got, tt.want)
			}
		})
	}
	t.Run("names are esc_js escaped", func(t *testing.T) {
		if got := JSONLDText(Title(`Jazz "Night" & <Friends>`)); got != `Jazz &#8220;Night&#8221; &#038; &lt;Friends&gt;` {
			t.Errorf("got %q", got)
		}
	})
}

func TestEscaping(t *testing.T) {
	tests := []struct {
		name string
		fn   func(string) string
		in   string
		want string
	}{
		{"esc_html encodes markup and keeps valid entities", EscHTML, `<a href="x">'&amp; &foo; &#39;</a>`,
			`&lt;a href=&quot;x&quot;&gt;&#039;&amp; &amp;foo; &#039;&lt;/a&gt;`},
		{"esc_html rejects invalid UTF-8", EscHTML, "a\xffb", ""},
		{"esc_html double-encodes &apos; like PHP's HTML 4 table", EscHTML, "&apos;", "&amp;apos;"},
		{"esc_html drops &#0;", EscHTML, "a&#0;b", "ab"},
		{"esc_html canonicalises numeric references", EscHTML, "&#0065; &#X41;", "&#065; &#x41;"},
		{"esc_attr matches esc_html", EscAttr, `"x" & y`, `&quot;x&quot; &amp; y`},
		{"esc_js escapes quotes and newlines", EscJS, "It's \"x\" <b>\r\n", `It\'s &quot;x&quot; &lt;b&gt;\n`},
		{"esc_js strips backslashes first", EscJS, `a\b`, `ab`},
		{"esc_js turns &#39; back into a quote", EscJS, "&#39;", `\'`},
		{"esc_url_raw adds http://", EscURLRaw, "example.com/path", "http://example.com/path"},
		{"esc_url_raw rejects javascript:", EscURLRaw, "javascript:alert(1)", ""},
		{"esc_url encodes ampersands for display", EscURL, "http://a.test/?a=1&b=2", "http://a.test/?a=1&#038;b=2"},
		{"esc_url_raw keeps ampersands", EscURLRaw, "http://a.test/?a=1&b=2", "http://a.test/?a=1&b=2"},
		{"esc_url_raw encodes spaces", EscURLRaw, "http://a.test/a b", "http://a.test/a%20b"},
		{"esc_url_raw keeps relative URLs", EscURLRaw, "/relative?x", "/relative?x"},
		{"esc_url_raw drops disallowed characters", EscURLRaw, " http://x.test/<script>", "http://x.test/script"},
		{"esc_url_raw allows mailto", EscURLRaw, "mailto:a@b.test", "mailto:a@b.test"},
		{"esc_url_raw encodes brackets after the host", EscURLRaw, "http://a.test/[x]", "http://a.test/%5Bx%5D"},
		{"esc_url_raw removes encoded newlines", EscURLRaw, "http://a.test/%0d%0Ax", "http://a.test/x"},
		{"esc_url_raw keeps php files relative", EscURLRaw, "index.php?p=1", "index.php?p=1"},
		{"esc_url encodes single quotes", EscURL, "http://a.test/'x'", "http://a.test/&#039;x&#039;"},
		{"empty URL stays empty", EscURLRaw, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.fn(tt.in); got != tt.want {
				t.Errorf("(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSanitizing(t *testing.T) {
	tests := []struct {
		name string
		fn   func(string) string
		in   string
		want string
	}{
		{"text field strips tags and collapses whitespace", SanitizeTextField, "  Hello <b>World</b>\n\tfoo  ", "Hello World foo"},
		{"text field keeps a lone less-than as an entity", SanitizeTextField, "a < b", "a &lt; b"},
		{"text field removes octets", SanitizeTextField, "100%ab off", "100 off"},
		{"text field rejects invalid UTF-8", SanitizeTextField, "\xfe", ""},
		{"text field removes script content", SanitizeTextField, "x<script>bad()</script>y", "xy"},
		{"slug basic", SanitizeTitle, "Hello World!", "hello-world"},
		{"slug removes accents", SanitizeTitle, "Café Crème", "cafe-creme"},
		{"slug encodes emoji", SanitizeTitle, "Runners Club 🏃", "runners-club-%f0%9f%8f%83"},
		{"slug encodes CJK", SanitizeTitle, "東京 Tech Night", "%e6%9d%b1%e4%ba%ac-tech-night"},
		{"slug turns en dash into a hyphen", SanitizeTitle, "a – b", "a-b"},
		{"slug drops curly quotes", SanitizeTitle, "New Venue “Q”", "new-venue-q"},
		{"slug drops ampersands and punctuation", SanitizeTitle, "C++ & C# Meetup", "c-c-meetup"},
		{"slug turns dots into hyphens", SanitizeTitle, "3.5 stars", "3-5-stars"},
		{"slug drops stray percent signs", SanitizeTitle, "50% off", "50-off"},
		{"slug keeps existing octets", SanitizeTitle, "a%20b", "a%20b"},
		{"slug composes NFD input first", SanitizeTitle, "Cafe\u0301", "cafe"},
		{"slug converts times sign", SanitizeTitle, "2×3", "2x3"},
		{"slug strips tags", SanitizeTitle, "<b>Bold</b> move", "bold-move"},
		{"slug of entities is empty", SanitizeTitle, "&amp;", ""},
		{"accents: ligatures and sharp s", RemoveAccents, "Ærøskøbing Straße", "AEroskobing Strase"},
		{"accents: Vietnamese", RemoveAccents, "Tiếng Việt", "Tieng Viet"},
		{"accents: ASCII unchanged", RemoveAccents, "plain", "plain"},
		{"accents: Latin-1 bytes", RemoveAccents, "caf\xe9", "cafe"},
		{"accents: euro and pound", RemoveAccents, "€5 £3", "E5 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.fn(tt.in); got != tt.want {
				t.Errorf("(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStripping(t *testing.T) {
	tests := []struct {
		name string
		fn   func(string) string
		in   string
		want string
	}{
		{"strip_tags removes tags, comments and PHP", StripTags, "a <b>bold</b> <!-- c --> <?php echo 1; ?> d", "a bold   d"},
		{"strip_tags keeps a less-than followed by space", StripTags, "5 < 6 and 7 > 3", "5 < 6 and 7 > 3"},
		{"strip_tags drops an unclosed tag to the end", StripTags, "a<b c", "a"},
		{"strip_tags respects quoted >", StripTags, `<a title="x>y">z</a>`, "z"},
		{"strip_tags drops NUL bytes", StripTags, "a\x00b", "ab"},
		{"strip_tags removes doctype", StripTags, "<!DOCTYPE html>x", "x"},
		{"strip_all_tags removes script and style content", func(s string) string { return StripAllTags(s, true) },
			"<p>Hi</p><script>x()</script>\n\n<style>.a{}</style>Bye", "Hi Bye"},
		{"strip_all_tags keeps line breaks unless asked", func(s string) string { return StripAllTags(s, false) },
			" <p>a</p>\n<p>b</p> ", "a\nb"},
		{"convert_chars encodes lone ampersands", ConvertChars, "AT&T &amp; &a; & x", "AT&#038;T &amp; &#038;a; &#038; x"},
		{"convert_chars keeps numeric references", ConvertChars, "&#8217;", "&#8217;"},
		{"capital_P_dangit after space and paren", CapitalPDangit, "I love Wordpress (Wordpress)", "I love WordPress (WordPress)"},
		{"capital_P_dangit leaves glued words", CapitalPDangit, "myWordpress", "myWordpress"},
		{"smilies need surrounding whitespace", ConvertSmilies, "a:) :) ;-)", "a:) \U0001F642 \U0001F609"},
		{"smilies are not converted in code", ConvertSmilies, "<code>:)</code> :D", "<code>:)</code> \U0001F600"},
		{"longest smiley wins", ConvertSmilies, ":??? :?:", ":??? \u2753"},
		{"image smiley without site URL is root-relative", ConvertSmilies, ":mrgreen:",
			`<img src="/wp-includes/images/smilies/mrgreen.png" alt=":mrgreen:" class="wp-smiley" style="height: 1em; max-height: 1em;" />`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.fn(tt.in); got != tt.want {
				t.Errorf("(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestAntispambot(t *testing.T) {
	for _, email := range []string{"info@example.test", "ünï@x.test", ""} {
		t.Run("output decodes back to "+email, func(t *testing.T) {
			for i := 0; i < 20; i++ {
				got := Antispambot(email)
				if html.UnescapeString(got) != email {
					t.Fatalf("Antispambot(%q) = %q", email, got)
				}
				if strings.Contains(got, "@") {
					t.Fatalf("Antispambot(%q) = %q still has a raw @", email, got)
				}
			}
		})
	}
	t.Run("output varies between calls", func(t *testing.T) {
		seen := map[string]bool{}
		for i := 0; i < 50; i++ {
			seen[Antispambot("someone@example.test")] = true
		}
		if len(seen) < 2 {
			t.Errorf("antispambot produced a single encoding in 50 runs")
		}
	})
}

func FuzzContent(f *testing.F) {
	v := loadVectors(f)
	for _, c := range v.Content {
		f.Add(c.Raw)
	}
	for _, s := range []string{"", "<", "[", "[caption]", "<!-- wp:x {\"a\":1} /-->", "'\"--x9x9&<pre>", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rc := NewRenderContext(refHome)
		out := Content(s, rc)
		ex := Excerpt(s)
		ti := Title(s)
		jl := JSONLDDescription(s, s)
		if utf8.ValidString(s) {
			for name, o := range map[string]string{"Content": out, "Excerpt": ex, "Title": ti, "JSONLDDescription": jl} {
				if !utf8.ValidString(o) {
					t.Fatalf("%s(%q) produced invalid UTF-8 %q", name, s, o)
				}
			}
		}
	})
}
