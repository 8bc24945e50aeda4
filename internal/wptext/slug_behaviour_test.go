package wptext

import "testing"

// TestSanitizeTitleWithDashesBehaviour pins sanitize_title_with_dashes() in
// both the 'display' and 'save' contexts.
func TestSanitizeTitleWithDashesBehaviour(t *testing.T) {
	t.Run("HTML is stripped from slugs", func(t *testing.T) {
		if got := SanitizeTitle("Captain <strong>Awesome</strong>"); got != "captain-awesome" {
			t.Errorf("got %q", got)
		}
	})
	disp := [][2]string{
		{"fran%c3%a7%ois", "fran%c3%a7ois"}, {"ABC", "abc"}, {"a          t", "a-t"}, {"a    \n\n\nt", "a-t"},
		{"a----t----t", "a-t-t"}, {"a----t----t----", "a-t-t"}, {"penn & teller bull", "penn-teller-bull"},
		{"No &nbsp; Entities &ndash; Here &amp;", "no-entities-here"},
	}
	for _, c := range disp {
		t.Run("display "+c[0]+" becomes "+c[1], func(t *testing.T) {
			if got := sanitizeTitleWithDashes(c[0], false); got != c[1] {
				t.Errorf("got %q want %q", got, c[1])
			}
		})
	}
	save := [][2]string{
		{"One &amp; Two", "one-two"}, {"One &#123; Two;", "one-two"}, {"One Two™;", "one-two"}, {"One &&amp; Two;", "one-two"},
		{"One&Two", "onetwo"}, {"don't\u00a0break\u00a0the\u00a0space", "dont-break-the-space"}, {"don't&nbsp;break&#160;the&nbsp;space", "dont-break-the-space"},
		{"Do – the Dash", "do-the-dash"}, {"Do the — Dash", "do-the-dash"}, {"Do &ndash; the &#8211; Dash", "do-the-dash"}, {"Do &mdash; the &#8212; Dash", "do-the-dash"},
		{"Just ¡a Slug", "just-a-slug"}, {"Just a Slug¿", "just-a-slug"}, {"‹Just a Slug›", "just-a-slug"}, {"«Just a Slug»", "just-a-slug"},
		{"Hey its “Curly Joe”", "hey-its-curly-joe"}, {"Hey its ‘Curly Joe’", "hey-its-curly-joe"}, {"Hey its „Curly Joe“", "hey-its-curly-joe"},
		{"Hey its ‚Curly Joe‛", "hey-its-curly-joe"}, {"Fancy Title • Amazing", "fancy-title-amazing"},
		{"Just © a Slug", "just-a-slug"}, {"® Just a Slug", "just-a-slug"}, {"Just a ° Slug", "just-a-slug"}, {"Just ™ a Slug", "just-a-slug"},
		{"songs by Lennon/McCartney", "songs-by-lennon-mccartney"}, {"songs by Lennon///McCartney", "songs-by-lennon-mccartney"},
		{"//songs by Lennon/McCartney", "songs-by-lennon-mccartney"}, {"6×7 is 42", "6x7-is-42"},
		{"a\u0304a\u0301a\u030ca\u0300", "aaaa"}, {"a\u0301a\u0301a´aˊ", "aaaa"},
	}
	for _, c := range save {
		t.Run("save "+c[0]+" becomes "+c[1], func(t *testing.T) {
			if got := sanitizeTitleWithDashes(c[0], true); got != c[1] {
				t.Errorf("got %q want %q", got, c[1])
			}
		})
	}
}
