package wpauth

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/internal/phpserial"
)

// LoggedInKeys are wp-config.php's LOGGED_IN_KEY and LOGGED_IN_SALT: wp_salt('logged_in') is their
// concatenation. The zero value holds no keys, and no cookie validates with it.
type LoggedInKeys struct {
	Key, Salt string
}

// Set reports whether keys were configured.
func (k LoggedInKeys) Set() bool { return k.Key != "" || k.Salt != "" }

// String never shows the keys (they sign every login cookie of the site).
func (k LoggedInKeys) String() string {
	if k.Set() {
		return "LoggedInKeys(set)"
	}
	return "LoggedInKeys(none)"
}

// LoggedInCookieName is the name of WordPress' logged-in cookie: "wordpress_logged_in_" followed by
// COOKIEHASH, md5 of the siteurl option.
func LoggedInCookieName(siteURL string) string {
	sum := md5.Sum([]byte(siteURL))
	return "wordpress_logged_in_" + hex.EncodeToString(sum[:])
}

// AuthCookie is a parsed logged-in cookie (wp_parse_auth_cookie): username|expiration|token|hmac.
type AuthCookie struct {
	Username   string
	Expiration string
	Token      string
	HMAC       string
}

// ParseAuthCookie splits a cookie value as wp_parse_auth_cookie does: exactly four fields.
func ParseAuthCookie(value string) (AuthCookie, bool) {
	parts := strings.Split(value, "|")
	if len(parts) != 4 {
		return AuthCookie{}, false
	}
	return AuthCookie{Username: parts[0], Expiration: parts[1], Token: parts[2], HMAC: parts[3]}, true
}

// CookieHMAC is the hmac wp_generate_auth_cookie puts in a cookie: hmac-sha256 of
// username|expiration|token keyed with wp_hash(username|pass_frag|expiration|token, 'logged_in'),
// where wp_hash is hmac-md5 keyed with wp_salt('logged_in') and pass_frag is characters 8 to 11 of
// the stored password hash.
func CookieHMAC(keys LoggedInKeys, username, userPass, expiration, token string) string {
	frag := ""
	if len(userPass) > 8 {
		frag = userPass[8:min(12, len(userPass))]
	}
	m := hmac.New(md5.New, []byte(keys.Key+keys.Salt))
	m.Write([]byte(username + "|" + frag + "|" + expiration + "|" + token))
	key := hex.EncodeToString(m.Sum(nil))
	s := hmac.New(sha256.New, []byte(key))
	s.Write([]byte(username + "|" + expiration + "|" + token))
	return hex.EncodeToString(s.Sum(nil))
}

// GenerateAuthCookie is wp_generate_auth_cookie's value for a session token.
func GenerateAuthCookie(keys LoggedInKeys, username, userPass string, expiration int64, token string) string {
	exp := strconv.FormatInt(expiration, 10)
	return username + "|" + exp + "|" + token + "|" + CookieHMAC(keys, username, userPass, exp, token)
}

// VerifyCookie checks a parsed cookie against its user's stored password hash and session_tokens
// user meta at now, as wp_validate_auth_cookie does for a GET: not expired, the hmac matches, and
// the session (keyed by sha256 of the token) exists and has not expired.
func VerifyCookie(keys LoggedInKeys, c AuthCookie, userPass, sessionTokens string, now time.Time) bool {
	if !keys.Set() {
		return false
	}
	exp, err := strconv.ParseInt(c.Expiration, 10, 64)
	if err != nil || exp < now.Unix() {
		return false
	}
	want := CookieHMAC(keys, c.Username, userPass, c.Expiration, c.Token)
	if !hmac.Equal([]byte(want), []byte(c.HMAC)) {
		return false
	}
	return SessionValid(sessionTokens, c.Token, now)
}

// SessionVerifier is the key of a session in session_tokens: sha256 of the token.
func SessionVerifier(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// SessionValid is WP_User_Meta_Session_Tokens::verify: the session exists and its expiration is not
// before now.
func SessionValid(sessionTokens, token string, now time.Time) bool {
	v, err := phpserial.Unmarshal(sessionTokens)
	if err != nil {
		return false
	}
	sessions, ok := v.(*phpserial.Array)
	if !ok {
		return false
	}
	s, ok := sessions.Get(SessionVerifier(token))
	if !ok {
		return false
	}
	session, ok := s.(*phpserial.Array)
	if !ok {
		return false
	}
	e, ok := session.Get("expiration")
	if !ok {
		return false
	}
	exp, ok := phpserial.ToInt(e)
	return ok && exp >= now.Unix()
}

// SessionTokens is a session_tokens value holding one session, as WP_Session_Tokens::create stores
// it (tests and tools mint logged-in users with it).
func SessionTokens(token string, expiration, login int64) string {
	return fmt.Sprintf(`a:1:{s:64:"%s";a:4:{s:10:"expiration";i:%d;s:2:"ip";s:9:"127.0.0.1";s:2:"ua";s:9:"calendard";s:5:"login";i:%d;}}`,
		SessionVerifier(token), expiration, login)
}

// CookieValue decodes a cookie value as PHP fills $_COOKIE (urldecode: "+" is a space).
func CookieValue(raw string) string {
	if v, err := url.QueryUnescape(raw); err == nil {
		return v
	}
	return raw
}

var defineRe = regexp.MustCompile(`define\(\s*['"](LOGGED_IN_KEY|LOGGED_IN_SALT)['"]\s*,\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*\)`)

// ParseWPConfig reads LOGGED_IN_KEY and LOGGED_IN_SALT from the define() lines of a wp-config.php
// (single- or double-quoted literals; \' and \\ unescaped as PHP does in single quotes).
func ParseWPConfig(text string) (LoggedInKeys, error) {
	var k LoggedInKeys
	found := map[string]bool{}
	for _, m := range defineRe.FindAllStringSubmatch(text, -1) {
		v := m[2]
		if m[3] != "" {
			v = m[3]
		}
		v = strings.NewReplacer(`\\`, `\`, `\'`, `'`, `\"`, `"`).Replace(v)
		if m[1] == "LOGGED_IN_KEY" {
			k.Key = v
		} else {
			k.Salt = v
		}
		found[m[1]] = true
	}
	if !found["LOGGED_IN_KEY"] || !found["LOGGED_IN_SALT"] {
		return LoggedInKeys{}, fmt.Errorf("wp-config.php defines no LOGGED_IN_KEY and LOGGED_IN_SALT")
	}
	return k, nil
}

// ReadWPConfig is ParseWPConfig of a file.
func ReadWPConfig(path string) (LoggedInKeys, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return LoggedInKeys{}, err
	}
	return ParseWPConfig(string(b))
}
