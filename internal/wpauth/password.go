// Package wpauth verifies and creates WordPress user passwords and
// application passwords exactly as WordPress 6.9 does
// (wp_check_password, wp_hash_password, WP_Application_Passwords), so that
// calendard accepts precisely the credentials the WordPress site accepts.
package wpauth

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"
)

// MaxPasswordLength is the longest password WordPress will hash or check
// (except against legacy MD5 hashes, which are tested first).
const MaxPasswordLength = 4096

// BcryptCost is the cost WordPress 6.9 writes on PHP 8.2/8.3, whose
// password_hash() default is 10. Verification accepts any cost.
const BcryptCost = 10

// ErrPasswordTooLong is returned when hashing a password longer than
// MaxPasswordLength bytes (WordPress stores the unusable hash "*" then).
var ErrPasswordTooLong = errors.New("wpauth: password longer than 4096 bytes")

// phpTrimSet is the character set of PHP's trim().
const phpTrimSet = " \t\n\r\x00\x0B"

// CheckPassword reports whether password matches a wp_users.user_pass value,
// following wp_check_password() of WordPress 6.8+ test by test, in order:
//
//  1. a stored value of at most 32 bytes is a legacy MD5 hash: it must equal
//     the lower-case hex MD5 of the password (so "", "*" etc. never match);
//  2. passwords longer than 4096 bytes are rejected;
//  3. "$wp" + bcrypt: bcrypt of the HMAC-SHA-384 pre-hash of the password;
//  4. "$P$": phpass portable hash;
//  5. anything else: PHP's password_verify() on the raw password (plain
//     bcrypt, argon2i/argon2id). "$H$" phpass hashes end up here and fail,
//     as they do in WordPress.
//
// The password is used as given: WordPress trims only when hashing (and in
// the interactive login form), never in wp_check_password.
func CheckPassword(password, stored string) bool {
	if len(stored) <= 32 {
		sum := md5.Sum([]byte(password))
		return subtle.ConstantTimeCompare([]byte(stored), []byte(hex.EncodeToString(sum[:]))) == 1
	}
	if len(password) > MaxPasswordLength {
		return false
	}
	switch {
	case strings.HasPrefix(stored, "$wp"):
		return passwordVerify(prehash(password), stored[3:])
	case strings.HasPrefix(stored, "$P$"):
		return checkPhpass(password, stored)
	default:
		return passwordVerify(password, stored)
	}
}

// HashPassword returns a new user password hash exactly as WordPress 6.9's
// wp_hash_password() writes it: "$wp" + bcrypt (as "$2y$", cost 10) of the
// pre-hash of the trimmed password. The length limit applies before
// trimming, as in WordPress.
func HashPassword(password string) (string, error) {
	if len(password) > MaxPasswordLength {
		return "", ErrPasswordTooLong
	}
	h, err := bcrypt.GenerateFromPassword([]byte(prehash(strings.Trim(password, phpTrimSet))), BcryptCost)
	if err != nil {
		return "", err
	}
	// Go writes $2a$; PHP writes $2y$ for the identical algorithm.
	return "$wp$2y$" + strings.TrimPrefix(string(h), "$2a$"), nil
}

// prehash is WordPress 6.8+'s bcrypt input: base64 (standard, padded) of
// HMAC-SHA-384 keyed with "wp-sha384". Its 64 characters stay under
// bcrypt's 72-byte limit, so long passwords are not cut short.
func prehash(password string) string {
	m := hmac.New(sha512.New384, []byte("wp-sha384"))
	m.Write([]byte(password))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// passwordVerify mirrors PHP's password_verify() for the hash formats a
// WordPress database can realistically hold: bcrypt ($2y$, $2b$, $2a$ and,
// for ASCII passwords, $2x$) and argon2i / argon2id. Other crypt() formats
// that PHP would also accept (MD5-crypt "$1$", SHA-crypt "$5$"/"$6$") are not
// supported and return false; WordPress never writes them.
func passwordVerify(password, hash string) bool {
	switch {
	case strings.HasPrefix(hash, "$2"):
		return bcryptVerify(password, hash)
	case strings.HasPrefix(hash, "$argon2"):
		return argon2Verify(password, hash)
	}
	return false
}

// bcryptAlphabet is bcrypt's base64 alphabet.
const bcryptAlphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// bcryptVerify checks a 60-character modular-crypt bcrypt hash the way PHP's
// crypt_blowfish does. The format is checked strictly first, because Go's
// parser is more permissive than PHP's (it would take "$2$", "$2z$" or a
// non-canonical salt that PHP rejects).
func bcryptVerify(password, hash string) bool {
	if len(hash) != 60 || hash[0] != '$' || hash[1] != '2' || hash[3] != '$' || hash[6] != '$' {
		return false
	}
	switch hash[2] {
	case 'a', 'b', 'y':
	case 'x':
		// $2x$ reproduces an old sign-extension bug that only changes the
		// result for bytes >= 0x80; for ASCII it equals $2a$. Go has no
		// buggy variant, so non-ASCII passwords are refused.
		for i := 0; i < len(password); i++ {
			if password[i] >= 0x80 {
				return false
			}
		}
	default:
		return false
	}
	cost, err := strconv.Atoi(hash[4:6])
	if err != nil || cost < 4 || cost > 31 {
		return false
	}
	for i := 7; i < 60; i++ {
		if strings.IndexByte(bcryptAlphabet, hash[i]) < 0 {
			return false
		}
	}
	// The 22nd salt character carries only 2 meaningful bits; PHP
	// re-encodes the salt canonically, so any other character never matches.
	if strings.IndexByte(bcryptAlphabet, hash[28])&0x0f != 0 {
		return false
	}
	// crypt_blowfish reads the password as a C string: it stops at the
	// first NUL byte. (Go would hash the NUL and what follows.)
	if i := strings.IndexByte(password, 0); i >= 0 {
		password = password[:i]
	}
	// Only the first 72 bytes count, in PHP and in Go alike.
	if len(password) > 72 {
		password = password[:72]
	}
	return bcrypt.CompareHashAndPassword([]byte("$2a"+hash[3:]), []byte(password)) == nil
}

// argon2MaxMemoryKiB bounds the memory a stored argon2 hash may demand
// (1 GiB), so that a corrupt row cannot exhaust the server.
const argon2MaxMemoryKiB = 1 << 20

// argon2Verify checks "$argon2i$v=19$m=..,t=..,p=..$salt$hash" or the
// argon2id equivalent, as written by PHP's password_hash(). Only version 19
// (0x13) exists in Go; older v=16 hashes return false.
func argon2Verify(password, hash string) bool {
	parts := strings.Split(hash, "$")
	// "", variant, "v=19", "m=..,t=..,p=..", salt, hash
	if len(parts) != 6 || parts[0] != "" || parts[2] != "v=19" {
		return false
	}
	params := strings.Split(parts[3], ",")
	if len(params) != 3 {
		return false
	}
	var vals [3]uint64 // m (KiB), t (passes), p (lanes), in PHC order
	for i, want := range []string{"m=", "t=", "p="} {
		v, ok := strings.CutPrefix(params[i], want)
		if !ok || v == "" || (len(v) > 1 && v[0] == '0') {
			return false
		}
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return false
		}
		vals[i] = n
	}
	m, t, p := vals[0], vals[1], vals[2]
	if t < 1 || p < 1 || p > 255 || m < 8*p || m > argon2MaxMemoryKiB {
		return false
	}
	salt, err := base64.RawStdEncoding.Strict().DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return false
	}
	want, err := base64.RawStdEncoding.Strict().DecodeString(parts[5])
	if err != nil || len(want) < 4 {
		return false
	}
	var got []byte
	switch parts[1] {
	case "argon2i":
		got = argon2.Key([]byte(password), salt, uint32(t), uint32(m), uint8(p), uint32(len(want)))
	case "argon2id":
		got = argon2.IDKey([]byte(password), salt, uint32(t), uint32(m), uint8(p), uint32(len(want)))
	default:
		return false
	}
	return subtle.ConstantTimeCompare(got, want) == 1
}

// itoa64 is phpass's base64 alphabet.
const itoa64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// checkPhpass is PasswordHash::CheckPassword for a "$P$" hash (WordPress
// 2.5 – 6.7): the stored string must equal crypt_private's output exactly.
func checkPhpass(password, stored string) bool {
	if len(password) > MaxPasswordLength {
		return false
	}
	computed, ok := phpassCrypt(password, stored)
	if !ok {
		// phpass would fall back to crypt(), which yields "*0"/"*1" for a
		// "$P$" setting and so never matches.
		return false
	}
	return subtle.ConstantTimeCompare([]byte(computed), []byte(stored)) == 1
}

// phpassCrypt is phpass's crypt_private: setting is "$P$" or "$H$", an
// iteration character (2^n rounds, n in 7..30), 8 salt characters; the
// result is the first 12 characters of setting plus 22 characters of
// MD5-chain output. ok is false for an invalid setting.
func phpassCrypt(password, setting string) (string, bool) {
	if len(setting) < 12 || (setting[:3] != "$P$" && setting[:3] != "$H$") {
		return "", false
	}
	n := strings.IndexByte(itoa64, setting[3])
	if n < 7 || n > 30 {
		return "", false
	}
	salt := setting[4:12]
	h := md5.Sum([]byte(salt + password))
	buf := make([]byte, 0, md5.Size+len(password))
	for count := 1 << n; count > 0; count-- {
		buf = append(append(buf[:0], h[:]...), password...)
		h = md5.Sum(buf)
	}
	return setting[:12] + encode64(h[:]), true
}

// encode64 is phpass's little-endian base64 (not RFC 4648 bit order).
func encode64(in []byte) string {
	var b strings.Builder
	for i := 0; i < len(in); {
		v := uint32(in[i])
		i++
		b.WriteByte(itoa64[v&0x3f])
		if i < len(in) {
			v |= uint32(in[i]) << 8
		}
		b.WriteByte(itoa64[(v>>6)&0x3f])
		if i >= len(in) {
			break
		}
		i++
		if i < len(in) {
			v |= uint32(in[i]) << 16
		}
		b.WriteByte(itoa64[(v>>12)&0x3f])
		if i >= len(in) {
			break
		}
		i++
		b.WriteByte(itoa64[(v>>18)&0x3f])
	}
	return b.String()
}

// HashPhpass returns a phpass portable hash ("$P$B" + 8 salt characters +
// 22 hash characters, 8192 rounds) as PasswordHash(8, true)->HashPassword()
// does. The password is not trimmed here (WordPress ≤ 6.7 trimmed it in
// wp_hash_password before calling phpass). Use it for tests and legacy
// imports only; new hashes should come from HashPassword.
func HashPhpass(password string) (string, error) {
	if len(password) > MaxPasswordLength {
		return "", ErrPasswordTooLong
	}
	var random [6]byte
	if _, err := rand.Read(random[:]); err != nil {
		return "", err
	}
	// 'B' is itoa64[13]: iteration_count_log2 8 + 5.
	h, _ := phpassCrypt(password, "$P$B"+encode64(random[:]))
	return h, nil
}
