package wpauth

import (
	"crypto/md5"
	"encoding/hex"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// Real wp_users.user_pass values from compat-tests/testdata/site-a/fixture.sql
// (WordPress 6.9.7 on PHP 8.2). Only admin's password is known.
const (
	adminPass         = "admin-password"
	adminHash         = "$wp$2y$10$R89d/p69moZQk5deFiSdk.wmotp2cu.ejlPtzp7vrUbu3OC4g.uwC"
	editorHash        = "$wp$2y$10$29sQNyxmJgFreOvx7dcElO8jCaOWIR749iGJdSD.3f/V/EeQBp02K"
	authorHash        = "$wp$2y$10$.5cHqw.M0885q0UdHm2RqeMEomT1kA0NFmRO5uMnd8SUtb9.cYWKC"
	contributorHash   = "$wp$2y$10$qeKYmlASmawz/sf.4siU1ezAURnPBELTGEIFGu.ars9JuA9JC2LJe"
	subscriberHash    = "$wp$2y$10$DJE.o3i6F3.CZh53nmJ7te.pUDZrC6H1P/cNhxQVAiWMxdKX7kASO"
	adminMD5          = "4b99e4ad8eabc68770e4c2bdf32298d8"                             // md5("admin-password")
	rasmusBcrypt2y    = "$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a" // php.net password_verify example
	rasmusBcrypt2a    = "$2a$07$usesomesillystringfore2uDLvp1Ii2e./U9C8sBjqp8I90dH6hi" // php-src password_verify.phpt
	rasmusPassword    = "rasmuslerdorf"
	argon2iTestHash   = "$argon2i$v=19$m=65536,t=3,p=1$OEVjWWs2Z3YvWlNZQ0ZmNw$JKin7ahjmh8JYvMyFcXri0Ss/Uvd3uYpD7MG6C/5Cy0" // php-src, password "test"
	argon2idTestHash  = "$argon2id$v=19$m=1024,t=2,p=2$WS90MHJhd3AwSC5xTDJpZg$8tn2DaIJR2/UX4Cjcy2t3EZaLDL/qh+NbLQAOvTmdAg" // php-src, password "test"
	phpassAdminByHand = "$P$Bcalendarg4kRZ1BMYhYJ2zRFq4f/Q1"                                                               // see TestPhpassKnownAnswers
)

// Hashes made with PHP 8.2 for these tests: the wp_hash_password() algorithm
// applied to "  padded pass \n", password_hash() of 80 'L's, and argon2
// hashes of "argon-pass" with small parameters.
const (
	phpWPHashPadded  = "$wp$2y$10$fp.jpEzetq29qlLsHWRQXeQrPc7DIG45BmvH0nJL48crwRceO5qGm"
	phpBcrypt80L     = "$2y$04$gI/d2m2pvzp/17w9XKzMF.cB5Qj89WrjGoG/2rktXWN7AYuwNkBmm"
	phpArgon2idSmall = "$argon2id$v=19$m=1024,t=2,p=1$NUsyNzl2ZnhYTk12L3A4Sw$M6ji9Ay9C6XrkdV4EnkifbB15gBPgkpurh0BxNYCREA"
	phpArgon2iSmall  = "$argon2i$v=19$m=1024,t=2,p=1$RXptQnpVOWFxcEJmMXEzWg$/CM59TqInc5Hq/W9h2WQG+RL+GG/9i5HEMufIkodqfQ"
)

func TestCheckPassword(t *testing.T) {
	tests := []struct {
		name     string
		password string
		stored   string
		want     bool
	}{
		// 6.8+ "$wp" bcrypt with the HMAC-SHA-384 pre-hash.
		{"admin's real hash accepts admin-password", adminPass, adminHash, true},
		{"admin's real hash rejects a case change", "Admin-password", adminHash, false},
		{"admin's real hash rejects an untrimmed password (no trim on check)", " " + adminPass, adminHash, false},
		{"admin's real hash rejects a trailing newline", adminPass + "\n", adminHash, false},
		{"admin's real hash rejects the empty password", "", adminHash, false},
		{"admin's real hash rejects a prefix", "admin-passwor", adminHash, false},
		{"editor's real hash rejects admin's password", adminPass, editorHash, false},
		{"author's real hash rejects admin's password", adminPass, authorHash, false},
		{"contributor's real hash rejects admin's password", adminPass, contributorHash, false},
		{"subscriber's real hash rejects admin's password", adminPass, subscriberHash, false},
		{"bcrypt part without $wp is not the raw password's bcrypt", adminPass, adminHash[3:], false},
		{"bcrypt part without $wp matches the pre-hash", prehash(adminPass), adminHash[3:], true},
		{"PHP-made $wp hash of a padded password accepts the trimmed password", "padded pass", phpWPHashPadded, true},
		{"PHP-made $wp hash of a padded password rejects the padded form", "  padded pass \n", phpWPHashPadded, false},

		// Legacy MD5 (any stored value of at most 32 bytes).
		{"lower-case MD5 accepts the password", adminPass, adminMD5, true},
		{"upper-case MD5 is rejected (case-sensitive compare)", adminPass, strings.ToUpper(adminMD5), false},
		{"MD5 rejects a wrong password", "admin-passworD", adminMD5, false},
		{"MD5 branch is taken even for passwords over 4096 bytes", strings.Repeat("a", 5000), md5hex(strings.Repeat("a", 5000)), true},
		{"empty stored value never matches", "", "", false},
		{"asterisk never matches", "*", "*", false},
		{"plain-text stored password never matches", "password", "password", false},
		{"short $wp string goes down the MD5 branch and fails", adminPass, "$wp", false},

		// phpass portable.
		{"phpass hash computed by hand accepts its password", adminPass, phpassAdminByHand, true},
		{"phpass hash rejects a wrong password", "admin-Password", phpassAdminByHand, false},
		{"phpass hash with trailing bytes is rejected", adminPass, phpassAdminByHand + "x", false},
		{"phpass hash with a changed digest is rejected", adminPass, phpassAdminByHand[:33] + "2", false},
		{"phpass hash with too few rounds (index < 7) is rejected", adminPass, "$P$6calendarg4kRZ1BMYhYJ2zRFq4f/Q1", false},
		{"phpass hash with too many rounds (index > 30) is rejected", adminPass, "$P$Ucalendarg4kRZ1BMYhYJ2zRFq4f/Q1", false},
		{"phpass hash with an invalid round character is rejected", adminPass, "$P$!calendarg4kRZ1BMYhYJ2zRFq4f/Q1", false},
		{"$H$ phpBB variant fails in WordPress 6.9", adminPass, "$H$" + phpassAdminByHand[3:], false},

		// "compat": PHP password_verify on the raw password.
		{"plain $2y$ bcrypt accepts its password", rasmusPassword, rasmusBcrypt2y, true},
		{"plain $2y$ bcrypt rejects a wrong password", "rasmusler", rasmusBcrypt2y, false},
		{"plain $2a$ bcrypt accepts its password", rasmusPassword, rasmusBcrypt2a, true},
		{"plain $2a$ bcrypt rejects a wrong password", "rasmusler", rasmusBcrypt2a, false},
		{"$2b$ is the same algorithm", rasmusPassword, "$2b$" + rasmusBcrypt2y[4:], true},
		{"$2x$ equals $2a$ for ASCII passwords", rasmusPassword, "$2x$" + rasmusBcrypt2y[4:], true},
		{"$2x$ refuses non-ASCII passwords", "rasmuslerdorfé", "$2x$" + rasmusBcrypt2y[4:], false},
		{"unknown bcrypt minor $2z$ is rejected", rasmusPassword, "$2z$" + rasmusBcrypt2y[4:], false},
		{"bcrypt without a minor version is rejected", rasmusPassword, "$2$10$" + rasmusBcrypt2y[7:], false},
		{"bcrypt with trailing bytes is rejected", rasmusPassword, rasmusBcrypt2y + "x", false},
		{"bcrypt with a non-canonical salt character is rejected like PHP", rasmusPassword, rasmusBcrypt2y[:28] + "P" + rasmusBcrypt2y[29:], false},
		{"bcrypt with a cost below 4 is rejected", rasmusPassword, "$2y$03$" + rasmusBcrypt2y[7:], false},
		{"PHP's sample malformed bcrypt setting is rejected", "foo", "$2a$07$usesomesillystringforsalt$", false},
		{"$wp with a plain bcrypt of the raw password is rejected", rasmusPassword, "$wp" + rasmusBcrypt2y, false},
		{"argon2i hash from php-src accepts its password", "test", argon2iTestHash, true},
		{"PHP 8.2 argon2i hash accepts its password", "argon-pass", phpArgon2iSmall, true},
		{"PHP 8.2 argon2i hash rejects a wrong password", "argon-Pass", phpArgon2iSmall, false},
		{"PHP 8.2 argon2id hash accepts its password", "argon-pass", phpArgon2idSmall, true},
		{"argon2 hash with a tampered salt is rejected", "argon-pass", strings.Replace(phpArgon2idSmall, "$NUsy", "$NUsz", 1), false},
		{"argon2 hash with memory beyond the 1 GiB guard is rejected", "argon-pass", strings.Replace(phpArgon2idSmall, "m=1024", "m=2097152", 1), false},
		{"argon2 hash with malformed parameters is rejected", "argon-pass", strings.Replace(phpArgon2idSmall, "t=2", "t=02", 1), false},
		{"argon2id hash from php-src accepts its password", "test", argon2idTestHash, true},
		{"argon2id hash rejects a wrong password", "argon2id", argon2idTestHash, false},
		{"argon2 version 16 is not supported", "test", strings.Replace(argon2idTestHash, "v=19", "v=16", 1), false},
		{"argon2d is not accepted by password_verify", "test", strings.Replace(argon2idTestHash, "argon2id", "argon2d", 1), false},
		{"md5-crypt is not supported", "password", "$1$saltsalt$qjXMvbEw8oaL.CzflDugX/", false},
		{"unknown format of 33+ bytes fails", adminPass, strings.Repeat("x", 40), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // bcrypt and argon2 are deliberately slow
			if testing.Short() && strings.Contains(tt.stored, "m=65536") {
				t.Skip("64 MiB argon2 vector skipped in -short mode")
			}
			if got := CheckPassword(tt.password, tt.stored); got != tt.want {
				t.Fatalf("CheckPassword(%.40q, %q) = %v, want %v", tt.password, tt.stored, got, tt.want)
			}
		})
	}
}

// TestCheckPasswordLengthLimit: after the MD5 test, passwords over 4096
// bytes are rejected whatever the hash says.
func TestCheckPasswordLengthLimit(t *testing.T) {
	atLimit := strings.Repeat("p", MaxPasswordLength)
	overLimit := atLimit + "p"
	wpHashOf := func(p string) string {
		h, err := bcrypt.GenerateFromPassword([]byte(prehash(p)), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		return "$wp" + string(h)
	}
	phpassOf := func(p string) string {
		h, _ := phpassCrypt(p, "$P$Bsaltsalt")
		return h
	}
	tests := []struct {
		name     string
		password string
		stored   string
		want     bool
	}{
		{"4096-byte password matches its $wp hash", atLimit, wpHashOf(atLimit), true},
		{"4097-byte password is rejected despite a matching $wp hash", overLimit, wpHashOf(overLimit), false},
		{"4096-byte password matches its phpass hash", atLimit, phpassOf(atLimit), true},
		{"4097-byte password is rejected despite a matching phpass hash", overLimit, phpassOf(overLimit), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CheckPassword(tt.password, tt.stored); got != tt.want {
				t.Fatalf("CheckPassword = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestBcryptPasswordQuirks pins down PHP's crypt_blowfish behaviour for
// plain bcrypt hashes: 72-byte cut-off and C-string (NUL) termination.
func TestBcryptPasswordQuirks(t *testing.T) {
	long := strings.Repeat("x", 72)
	h72, err := bcrypt.GenerateFromPassword([]byte(long), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	hNUL, err := bcrypt.GenerateFromPassword([]byte("abc"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	plain72 := "$2y$" + string(h72)[4:]
	plainABC := "$2y$" + string(hNUL)[4:]
	tests := []struct {
		name     string
		password string
		stored   string
		want     bool
	}{
		{"PHP-made hash of 80 bytes accepts any tail after byte 72", strings.Repeat("L", 72) + "xyz", phpBcrypt80L, true},
		{"PHP-made hash of 80 bytes rejects 71 bytes", strings.Repeat("L", 71), phpBcrypt80L, false},
		{"bytes after the 72nd are ignored", long + "anything", plain72, true},
		{"71 bytes do not match a 72-byte password", long[:71], plain72, false},
		{"bytes after a NUL are ignored, as in C", "abc\x00def", plainABC, true},
		{"a different prefix before the NUL fails", "abd\x00", plainABC, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CheckPassword(tt.password, tt.stored); got != tt.want {
				t.Fatalf("CheckPassword = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHashPassword(t *testing.T) {
	tests := []struct {
		name     string
		password string
		accepts  string // the password wp_check_password must then accept
		rejects  string // and one it must reject
	}{
		{"plain password", "password", "password", "Password"},
		{"leading space is trimmed", " pass with leading whitespace", "pass with leading whitespace", " pass with leading whitespace"},
		{"trailing space is trimmed", "pass with trailing whitespace ", "pass with trailing whitespace", "pass with trailing whitespace "},
		{"new line is trimmed", "pass with new line \n", "pass with new line", "pass with new line \n"},
		{"vertical tab is trimmed", "pass with vertical tab o_O\x0B", "pass with vertical tab o_O", "pass with vertical tab o_O\x0B"},
		{"NUL is trimmed", "\x00nul\x00", "nul", "\x00nul\x00"},
		{"inner spaces are kept", "a b", "a b", "ab"},
		{"long password keeps full entropy through the pre-hash", strings.Repeat("z", 100) + "1", strings.Repeat("z", 100) + "1", strings.Repeat("z", 100) + "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // bcrypt cost 10 is deliberately slow
			h, err := HashPassword(tt.password)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(h, "$wp$2y$10$") || len(h) != 63 {
				t.Fatalf("hash %q is not $wp$2y$10$ + 53 chars", h)
			}
			if !CheckPassword(tt.accepts, h) {
				t.Errorf("CheckPassword(%q) = false, want true", tt.accepts)
			}
			if CheckPassword(tt.rejects, h) {
				t.Errorf("CheckPassword(%q) = true, want false", tt.rejects)
			}
		})
	}
	t.Run("each hash has its own salt", func(t *testing.T) {
		a, _ := HashPassword("same")
		b, _ := HashPassword("same")
		if a == b {
			t.Fatal("two hashes of the same password are identical")
		}
	})
	t.Run("password over 4096 bytes is refused before trimming", func(t *testing.T) {
		if _, err := HashPassword(strings.Repeat(" ", MaxPasswordLength) + "x"); err != ErrPasswordTooLong {
			t.Fatalf("error = %v, want ErrPasswordTooLong", err)
		}
	})
}

// TestPhpassKnownAnswers checks the phpass implementation against hashes
// made elsewhere: the phpass test suite, hashcat's example, FusionAuth's
// tests, and one computed by hand from the algorithm (salt "calendar",
// 8192 rounds of MD5, phpass base64) with an independent Python script.
func TestPhpassKnownAnswers(t *testing.T) {
	tests := []struct {
		name     string
		password string
		hash     string
	}{
		{"phpass test suite vector (2048 rounds)", "test12345", "$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0"},
		{"hashcat mode 400 example", "hashcat", "$P$984478476IagS59wHZvyQMArzfx58u."},
		{"WordPress-style 8192-round hash", "123456", "$P$BVaXtDXwf/ceSVp8VpLKx8bS2Y4O5F/"},
		{"punctuation password", "!?!#?#?#$&@&@!&@", "$P$Buvd5FQxkeXJnDarN7..wRMwRKJeZ40"},
		{"UTF-8 password", "ąćęłóńśźż", "$P$ByXWbzDvVAJ0jxvNp5sv4xYPIRXJJ1."},
		{"hand-computed vector for admin-password", adminPass, phpassAdminByHand},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is reproduced exactly", func(t *testing.T) {
			got, ok := phpassCrypt(tt.password, tt.hash)
			if !ok || got != tt.hash {
				t.Fatalf("phpassCrypt = %q, %v; want %q", got, ok, tt.hash)
			}
			if !CheckPassword(tt.password, tt.hash) {
				t.Fatal("CheckPassword rejected the known answer")
			}
		})
	}
	t.Run("$H$ variant computes under the phpass algorithm but WordPress rejects it", func(t *testing.T) {
		h := "$H$" + phpassAdminByHand[3:]
		if got, ok := phpassCrypt(adminPass, h); !ok || got != h {
			t.Fatalf("phpassCrypt($H$) = %q, %v; want %q", got, ok, h)
		}
		if CheckPassword(adminPass, h) {
			t.Fatal("CheckPassword accepted a $H$ hash")
		}
	})
}

func TestHashPhpass(t *testing.T) {
	tests := []struct {
		name     string
		password string
		wrong    string
	}{
		{"ascii password", "correct horse", "correct horsE"},
		{"empty password", "", " "},
		{"untrimmed password is hashed as given", " pad ", "pad"},
		{"utf-8 password", "pässwörd", "passwort"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := HashPhpass(tt.password)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(h, "$P$B") || len(h) != 34 {
				t.Fatalf("hash %q is not $P$B + 30 chars", h)
			}
			if !CheckPassword(tt.password, h) {
				t.Error("CheckPassword rejected the generated hash")
			}
			if CheckPassword(tt.wrong, h) {
				t.Errorf("CheckPassword accepted %q", tt.wrong)
			}
		})
	}
	t.Run("salts differ between calls", func(t *testing.T) {
		a, _ := HashPhpass("x")
		b, _ := HashPhpass("x")
		if a[:12] == b[:12] {
			t.Fatal("two phpass hashes share a salt")
		}
	})
	t.Run("password over 4096 bytes is refused", func(t *testing.T) {
		if _, err := HashPhpass(strings.Repeat("a", MaxPasswordLength+1)); err != ErrPasswordTooLong {
			t.Fatalf("error = %v, want ErrPasswordTooLong", err)
		}
	})
}

func TestEncode64MatchesPhpass(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"one byte gives two chars", []byte{0xff}, "z1"},
		{"two bytes give three chars", []byte{0x00, 0x01}, ".2."},
		{"three bytes give four chars, least significant first", []byte{0x01, 0x02, 0x03}, "/6k."},
		{"six zero bytes give eight dots", make([]byte, 6), "........"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := encode64(tt.in); got != tt.want {
				t.Fatalf("encode64(%x) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}
