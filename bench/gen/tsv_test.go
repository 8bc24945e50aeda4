package gen

import "testing"

func TestAppendTSV(t *testing.T) {
	for in, want := range map[string]string{
		"plain":            "plain",
		"tab\there":        `tab\there`,
		"two\nlines\r\n":   `two\nlines\r\n`,
		`back\slash`:       `back\\slash`,
		"nul\x00":          `nul\0`,
		"ünïcödé ✨ 'q' \"": "ünïcödé ✨ 'q' \"",
	} {
		if got := string(appendTSV(nil, in)); got != want {
			t.Errorf("appendTSV(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSanitizeTitle(t *testing.T) {
	for in, want := range map[string]string{
		"Spring Jazz Night":              "spring-jazz-night",
		`"Open Data" & Friends`:          "open-data-friends",
		"Repair Café São Paulo":          "repair-cafe-sao-paulo",
		"Rock &amp; Pop":                 "rock-pop",
		"The Late Go Meetup's Encore 5K": "the-late-go-meetups-encore-5k",
	} {
		if got := sanitizeTitle(in); got != want {
			t.Errorf("sanitizeTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
