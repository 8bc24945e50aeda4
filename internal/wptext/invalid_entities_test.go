package wptext

import "testing"

// Vectors read from convert_invalid_entities in wp-includes/formatting.php.
func TestConvertInvalidEntities(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"the euro sign", "&#128;", "&#8364;"},
		{"every mapped reference", "&#130;&#131;&#132;&#133;&#134;&#135;&#136;&#137;&#138;&#139;&#140;&#142;&#145;&#146;&#147;&#148;&#149;&#150;&#151;&#152;&#153;&#154;&#155;&#156;&#158;&#159;",
			"&#8218;&#402;&#8222;&#8230;&#8224;&#8225;&#710;&#8240;&#352;&#8249;&#338;&#381;&#8216;&#8217;&#8220;&#8221;&#8226;&#8211;&#8212;&#732;&#8482;&#353;&#8250;&#339;&#382;&#376;"},
		{"the five unassigned ones are dropped", "a&#129;b&#141;c&#143;d&#144;e&#157;f", "abcdef"},
		{"only the exact spelling: leading zeros, hex and longer numbers stay", "&#0128; &#x80; &#1280; &#128", "&#0128; &#x80; &#1280; &#128"},
		{"a replacement is not read again", "&#1&#128;;", "&#1&#8364;;"},
		{"references outside the range stay", "&#127; &#160; &#8364;", "&#127; &#160; &#8364;"},
		{"text without &#1 is untouched", "Tom & Jerry", "Tom & Jerry"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ConvertInvalidEntities(c.in); got != c.want {
				t.Errorf("ConvertInvalidEntities(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
