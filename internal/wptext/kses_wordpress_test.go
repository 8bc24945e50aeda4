package wptext

import "testing"

// Outputs WordPress 6.9 gives, derived by reading wp-includes/kses.php (wp_kses, its pre_kses
// filters wp_pre_kses_less_than and wp_pre_kses_block_attributes, _wp_kses_allow_pdf_objects),
// blocks.php (filter_block_content, filter_block_kses_value, serialize_block,
// serialize_block_attributes) and formatting.php (wp_kses_normalize_entities via wp_kses).
func TestFilterPostKsesAsWordPress(t *testing.T) {
	const uploads = "http://127.0.0.1:8088/wp-content/uploads"
	tests := []struct{ name, in, want string }{
		{"a bare ampersand becomes &amp;, a lone < &lt;, scripts and handlers go",
			`Tom & Jerry <3 <script>alert(1)</script><b onclick="x">bold</b>`,
			`Tom &amp; Jerry &lt;3 alert(1)<b>bold</b>`},
		{"valid entities stay, invalid ones are escaped", `&copy; &#169; &#x41; &bogus; &#99999999;`,
			`&copy; &#169; &#x41; &amp;bogus; &amp;#99999999;`},
		{"block attribute strings are filtered and serialized again",
			`<!-- wp:paragraph {"className":"\u003cb\u003ex\u003c/b\u003e\u003cscript\u003ey\u003c/script\u003e","url":"javascript:alert(1)"} --><p>Hi</p><!-- /wp:paragraph -->`,
			`<!-- wp:paragraph {"className":"\u003cb\u003ex\u003c/b\u003ey","url":"javascript:alert(1)"} --><p>Hi</p><!-- /wp:paragraph -->`},
		{"attribute entities are normalized, then & is written \\u0026; Unicode and slashes unescaped",
			`<!-- wp:image {"url":"https:\/\/ex.org\/a.jpg","alt":"Café \u0026 bar","id":12,"w":1.5} /-->`,
			`<!-- wp:image {"url":"https://ex.org/a.jpg","alt":"Café \u0026amp; bar","id":12,"w":1.5} /-->`},
		{"undecodable attributes are dropped", `<!-- wp:paragraph {"a": } --><p>x</p><!-- /wp:paragraph -->`,
			`<!-- wp:paragraph --><p>x</p><!-- /wp:paragraph -->`},
		{"a block with no content is written void", `<!-- wp:separator --><!-- /wp:separator -->`, `<!-- wp:separator /-->`},
		{"an object with keys 0..n-1 is a PHP list", `<!-- wp:x/y {"0":"a","1":"b"} /-->`, `<!-- wp:x/y ["a","b"] /-->`},
		{"an empty object is an empty array: no attributes", `<!-- wp:x/y {} /-->`, `<!-- wp:x/y /-->`},
		{"a key kses changes moves to the end", `<!-- wp:x/y {"\u003cscript\u003ek\u003c/script\u003e":"v","z":1} /-->`,
			`<!-- wp:x/y {"z":1,"k":"v"} /-->`},
		{"nested blocks are filtered too",
			`<!-- wp:group --><div><!-- wp:paragraph {"c":"\u003ci onclick=\u0022x\u0022\u003ei\u003c/i\u003e"} --><p>p</p><!-- /wp:paragraph --></div><!-- /wp:group -->`,
			`<!-- wp:group --><div><!-- wp:paragraph {"c":"\u003ci\u003ei\u003c/i\u003e"} --><p>p</p><!-- /wp:paragraph --></div><!-- /wp:group -->`},
		{"a raw < inside block attributes is escaped by wp_pre_kses_less_than first",
			`<!-- wp:p {"a":"<b>"} -->x<!-- /wp:p -->`,
			`&lt;!-- wp:p {&quot;a&quot;:&quot;<b>"} --&gt;x<!-- /wp:p -->`},
		{"comments ending in ---> are closed as -->", `<!-- wp:separator ---><hr><!-- /wp:separator -->`,
			`<!-- wp:separator --><hr><!-- /wp:separator -->`},
		{"text without blocks is untouched by the block filter", `<p>plain</p>`, `<p>plain</p>`},
		{"an object of a PDF on the uploads host keeps its attributes",
			`<object data="http://127.0.0.1:8088/wp-content/uploads/2026/11/doc.pdf" type="application/pdf" class="x"></object>`,
			`<object data="http://127.0.0.1:8088/wp-content/uploads/2026/11/doc.pdf" type="application/pdf" class="x"></object>`},
		{"an object of a PDF elsewhere loses them",
			`<object data="http://evil.example/doc.pdf" type="application/pdf"></object>`, `<object></object>`},
		{"an object of a PDF on the uploads host with a query loses them",
			`<object data="http://127.0.0.1:8088/doc.pdf?x=1" type="application/pdf"></object>`, `<object></object>`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := FilterPostKses(tc.in, uploads); got != tc.want {
				t.Errorf("FilterPostKses(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestFilterKsesAsWordPress(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"titles keep $allowedtags only", `Fish & Chips <em>now</em> <span class="x">x</span>`, `Fish &amp; Chips <em>now</em> x`},
		{"a lone < in a title", `1 < 2`, `1 &lt; 2`},
		{"links keep href and title only", `<a href="https://e.org" target="_blank" title="t">e</a>`, `<a href="https://e.org" title="t">e</a>`},
		{"block attributes in titles are filtered with $allowedtags",
			`<!-- wp:x/y {"a":"\u003cspan\u003es\u003c/span\u003e"} /-->`, `<!-- wp:x/y {"a":"s"} /-->`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := FilterKses(tc.in); got != tc.want {
				t.Errorf("FilterKses(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}
