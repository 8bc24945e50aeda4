package wptext

import (
	"strings"
	"testing"
)

// TestAutopBehaviour pins wpautop() behaviour for block/inline elements,
// media, comments, CDATA, <pre>, <br> handling and raw-text elements.
func TestAutopBehaviour(t *testing.T) {
	chk := func(name, in, want string) {
		t.Run(name+" is paragraphed as expected", func(t *testing.T) {
			if got := strings.TrimSpace(Autop(in, true)); got != want {
				t.Errorf("Autop(%q)\n got %q\nwant %q", in, got, want)
			}
		})
	}
	chk("pre", "Look at this code\n\n<pre>Line1<br />Line2<br>Line3<br/>Line4\nActual Line 2\nActual Line 3</pre>\n\nCool, huh?",
		"<p>Look at this code</p>\n<pre>Line1<br />Line2<br>Line3<br/>Line4\nActual Line 2\nActual Line 3</pre>\n<p>Cool, huh?</p>")
	str := `Username: <input type="text" id="username" name="username" /><br />Password: <input type="password" id="password1" name="password1" />`
	chk("input", str, "<p>"+str+"</p>")
	content := "Paragraph one.\n\n" + `<video class="wp-video-shortcode" id="video-0-1" width="640" height="360" preload="metadata" controls="controls">
				<source type="video/mp4" src="http://domain.tld/wp-content/uploads/2013/12/xyz.mp4" />
				<!-- WebM/VP8 for Firefox4, Opera, and Chrome -->
				<source type="video/webm" src="myvideo.webm" />
				<!-- Ogg/Vorbis for older Firefox and Opera versions -->
				<source type="video/ogg" src="myvideo.ogv" />
				<!-- Optional: Add subtitles for each language -->
				<track kind="subtitles" src="subtitles.srt" srclang="en" />
				<!-- Optional: Add chapters -->
				<track kind="chapters" src="chapters.srt" srclang="en" />
				<a href="http://domain.tld/wp-content/uploads/2013/12/xyz.mp4">http://domain.tld/wp-content/uploads/2013/12/xyz.mp4</a>
			</video>` + "\n\nParagraph two."
	expected := "<p>Paragraph one.</p>\n" +
		`<p><video class="wp-video-shortcode" id="video-0-1" width="640" height="360" preload="metadata" controls="controls">` +
		`<source type="video/mp4" src="http://domain.tld/wp-content/uploads/2013/12/xyz.mp4" />` +
		`<!-- WebM/VP8 for Firefox4, Opera, and Chrome -->` +
		`<source type="video/webm" src="myvideo.webm" />` +
		`<!-- Ogg/Vorbis for older Firefox and Opera versions -->` +
		`<source type="video/ogg" src="myvideo.ogv" />` +
		`<!-- Optional: Add subtitles for each language -->` +
		`<track kind="subtitles" src="subtitles.srt" srclang="en" />` +
		`<!-- Optional: Add chapters -->` +
		`<track kind="chapters" src="chapters.srt" srclang="en" />` +
		`<a href="http://domain.tld/wp-content/uploads/2013/12/xyz.mp4">` +
		"http://domain.tld/wp-content/uploads/2013/12/xyz.mp4</a></video></p>\n" +
		`<p>Paragraph two.</p>`
	chk("video", content, expected)
	sc := "Paragraph one.\n\n" + `[video width="720" height="480" mp4="http://domain.tld/wp-content/uploads/2013/12/xyz.mp4"]
			<!-- WebM/VP8 for Firefox4, Opera, and Chrome -->
			<source type="video/webm" src="myvideo.webm" />
			<!-- Ogg/Vorbis for older Firefox and Opera versions -->
			<source type="video/ogg" src="myvideo.ogv" />
			<!-- Optional: Add subtitles for each language -->
			<track kind="subtitles" src="subtitles.srt" srclang="en" />
			<!-- Optional: Add chapters -->
			<track kind="chapters" src="chapters.srt" srclang="en" />
			[/video]` + "\n\nParagraph two."
	scExp := "<p>Paragraph one.</p>\n" +
		`<p>[video width="720" height="480" mp4="http://domain.tld/wp-content/uploads/2013/12/xyz.mp4"]` +
		`<!-- WebM/VP8 for Firefox4, Opera, and Chrome --><source type="video/webm" src="myvideo.webm" />` +
		`<!-- Ogg/Vorbis for older Firefox and Opera versions --><source type="video/ogg" src="myvideo.ogv" />` +
		`<!-- Optional: Add subtitles for each language --><track kind="subtitles" src="subtitles.srt" srclang="en" />` +
		`<!-- Optional: Add chapters --><track kind="chapters" src="chapters.srt" srclang="en" />` +
		"[/video]</p>\n" +
		`<p>Paragraph two.</p>`
	chk("video shortcode", sc, scExp)
	sel := `Country: <select id="state" name="state"><option value="1">Alabama</option><option value="2">Alaska</option></select>`
	chk("select", sel, "<p>"+sel+"</p>")
	first := "\nWelcome to WordPress!  This post.\n\nFirst things first:\n<ul>\n<li><a href=\"x\" title=\"S\">Sub</a></li>\n</ul>\nAs a subscriber, you.\nWhen a new version is released, <a href=\"y\">log in</a> and follow.\nUpgrading!\n\nThen you can:\n<ul>\n<li>Edit at <a href=\"z\">Users &#8250; Profile</a></li>\n</ul>\nTo keep this post.\n\nThank you.\n"
	firstExp := "<p>Welcome to WordPress!  This post.</p>\n<p>First things first:</p>\n<ul>\n<li><a href=\"x\" title=\"S\">Sub</a></li>\n</ul>\n<p>As a subscriber, you.<br />\nWhen a new version is released, <a href=\"y\">log in</a> and follow.<br />\nUpgrading!</p>\n<p>Then you can:</p>\n<ul>\n<li>Edit at <a href=\"z\">Users &#8250; Profile</a></li>\n</ul>\n<p>To keep this post.</p>\n<p>Thank you.</p>"
	chk("first post", first, firstExp)

	blocks := strings.Fields("table thead tfoot caption col colgroup tbody tr td th div dl dd dt ul ol li pre form map area address math style p h1 h2 h3 h4 h5 h6 fieldset legend section article aside hgroup header footer nav figure details menu summary")
	var c1, c2, c3 []string
	for _, b := range blocks {
		c1 = append(c1, "<"+b+">foo</"+b+">")
		c2 = append(c2, "<"+b+"/>")
		c3 = append(c3, "<"+b+" attr='value'>foo</"+b+">")
	}
	chk("blocks nn", strings.Join(c1, "\n\n"), strings.Join(c1, "\n"))
	chk("blocks joined", strings.Join(c1, ""), strings.Join(c1, "\n"))
	chk("blocks selfclose", strings.Join(c2, ""), strings.Join(c2, "\n"))
	chk("blocks attr", strings.Join(c3, ""), strings.Join(c3, "\n"))
	inl := strings.Fields("a em strong small s cite q dfn abbr data time code var samp kbd sub sup i b u mark span del ins noscript select")
	var ci, ei []string
	for _, x := range inl {
		ci = append(ci, "<"+x+">foo</"+x+">")
		ei = append(ei, "<p><"+x+">foo</"+x+"></p>")
	}
	chk("inlines", strings.Join(ci, "\n\n"), strings.Join(ei, "\n"))
	for _, c := range [][2]string{
		{"Hello <a\nhref='world'>", "<p>Hello <a\nhref='world'></p>\n"},
		{"Hello <!-- a\nhref='world' -->", "<p>Hello <!-- a\nhref='world' --></p>\n"},
		{"Hello <!-- <object>\n<param>\n<param>\n<embed>\n</embed>\n</object>\n -->", "<p>Hello <!-- <object>\n<param>\n<param>\n<embed>\n</embed>\n</object>\n --></p>\n"},
		{"Hello <![CDATA[ a\nhttps://youtu.be/jgz0uSaOZbE\n ]]>", "<p>Hello <![CDATA[ a\nhttps://youtu.be/jgz0uSaOZbE\n ]]></p>\n"},
		{"Hello <![CDATA[ <!-- a\nhttps://youtu.be/jgz0uSaOZbE\n a\n9 ]]> -->", "<p>Hello <![CDATA[ <!-- a\nhttps://youtu.be/jgz0uSaOZbE\n a\n9 ]]> --></p>\n"},
		{"Hello <![CDATA[ <!-- a\nhttps://youtu.be/jgz0uSaOZbE\n a\n9 --> a\n9 ]]>", "<p>Hello <![CDATA[ <!-- a\nhttps://youtu.be/jgz0uSaOZbE\n a\n9 --> a\n9 ]]></p>\n"},
	} {
		t.Run("newlines inside "+c[0]+" survive", func(t *testing.T) {
			if got := Autop(c[0], true); got != c[1] {
				t.Errorf("got %q\nwant %q", got, c[1])
			}
		})
	}
	chk("br", "\nline 1<br>\nline 2<br/>\nline 3<br />\nline 4\nline 5\n", "<p>line 1<br />\nline 2<br />\nline 3<br />\nline 4<br />\nline 5</p>")
	chk("multi br", "\nline 1<br>\n<br/>\nline 2<br/>\n<br />\n", "<p>line 1</p>\n<p>line 2</p>")
	chk("text before block", "a<div>b</div>", "<p>a</p>\n<div>b</div>")
	chk("figure1", `<figure><img src="example.jpg" /><figcaption>Caption</figcaption></figure>`, `<figure><img src="example.jpg" /><figcaption>Caption</figcaption></figure>`)
	chk("figure2", "<figure>\n<img src=\"example.jpg\" />\n<figcaption>Caption</figcaption>\n</figure>", "<figure>\n<img src=\"example.jpg\" /><figcaption>Caption</figcaption></figure>")
	chk("hr", "paragraph1<hr>paragraph2", "<p>paragraph1</p>\n<hr>\n<p>paragraph2</p>")
	svg := "<svg xmlns=\"http://www.w3.org/2000/svg\">\n\t\t\t\t<circle cx=\"50\" cy=\"50\" r=\"30\" fill=\"blue\">\n\t\t\t\t\t<animateTransform attributeName=\"transform\" type=\"scale\" to=\"1.5\" dur=\"2s\" fill=\"freeze\"/>\n\t\t\t\t</circle>\n\t\t\t</svg>"
	chk("svg", svg, "<p>"+svg+"</p>")
	scr := "<script type=\"text/javascript\">\n\t\t\t\tvar dummy = 1;\n\t\t\t</script>"
	chk("script", scr, "<p>"+scr+"</p>")
}
