package calendard

import "testing"

func TestIsEmail(t *testing.T) {
	for in, want := range map[string]bool{
		"admin@example.com": true, "Admin@Example.COM": true, "a@b.co": true,
		"a@b": false, "@example.com": false, "admin": false, "a b@example.com": false,
		"admin@-example.com": false, "admin@example..com": false, "admin@.example.com": false,
	} {
		if got := IsEmail(in); got != want {
			t.Errorf("IsEmail(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestSanitizeUser(t *testing.T) {
	for in, want := range map[string]string{
		" admin ":      "admin",
		"ad<b>min</b>": "admin",
		"adm%41in":     "admin",
		"a&amp;dmin":   "admin",
		"two   spaces": "two spaces",
		"Zoë":          "Zoe",
	} {
		if got := SanitizeUser(in); got != want {
			t.Errorf("SanitizeUser(%q) = %q, want %q", in, got, want)
		}
	}
}
