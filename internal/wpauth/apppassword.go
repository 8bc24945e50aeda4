package wpauth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/blake2b"

	"github.com/calendard/calendard/internal/phpserial"
)

// AppPasswordLength is the length of generated application passwords.
const AppPasswordLength = 24

// DayInSeconds is WordPress's DAY_IN_SECONDS: usage of an application
// password is recorded at most once per this interval.
const DayInSeconds = 86400

// ErrAppPasswordNotFound is returned by RecordAppPasswordUsage when no entry
// has the given uuid.
var ErrAppPasswordNotFound = errors.New("wpauth: application password not found")

// ErrEmptyAppPasswordName mirrors core's application_password_empty_name.
var ErrEmptyAppPasswordName = errors.New("wpauth: an application name is required")

// fastHashKey keys WordPress 6.8+'s wp_fast_hash() (libsodium generichash).
const fastHashKey = "wp_fast_hash_6.8+"

// genericPrefix marks a wp_fast_hash() value.
const genericPrefix = "$generic$"

// appPasswordChars is wp_generate_password()'s alphabet without special
// characters.
const appPasswordChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// NormalizeAppPassword keeps only ASCII letters and digits, as core's
// byte-wise preg_replace of /[^a-z\d]/i does: spaces, dashes and any
// non-ASCII bytes disappear, case is kept.
func NormalizeAppPassword(p string) string {
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ChunkAppPassword formats a password the way core displays it
// (WP_Application_Passwords::chunk_password): normalised, in groups of four
// separated by spaces.
func ChunkAppPassword(p string) string {
	p = NormalizeAppPassword(p)
	var b strings.Builder
	for i := 0; i < len(p); i += 4 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p[i:min(i+4, len(p))])
	}
	return b.String()
}

// HashAppPassword is wp_fast_hash(): "$generic$" + unpadded base64url of the
// 30-byte BLAKE2b of the normalised password keyed with "wp_fast_hash_6.8+".
// It is unsalted, which is only safe for generated high-entropy secrets.
func HashAppPassword(normalized string) string {
	h, err := blake2b.New(30, []byte(fastHashKey))
	if err != nil {
		// Only possible with an invalid size or key length, both constant.
		panic(err)
	}
	h.Write([]byte(normalized))
	return genericPrefix + base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// CheckAppPassword is WP_Application_Passwords::check_password(): a
// "$generic$" hash is compared in constant time with HashAppPassword;
// anything else (pre-6.8 entries, in practice "$P$") goes through the full
// user-password check. Old entries are never upgraded on use.
func CheckAppPassword(normalized, stored string) bool {
	if strings.HasPrefix(stored, genericPrefix) {
		return subtle.ConstantTimeCompare([]byte(HashAppPassword(normalized)), []byte(stored)) == 1
	}
	return CheckPassword(normalized, stored)
}

// GenerateAppPassword returns a new 24-character [a-zA-Z0-9] secret from
// crypto/rand (about 143 bits), like wp_generate_password(24, false).
func GenerateAppPassword() (string, error) {
	out := make([]byte, 0, AppPasswordLength)
	var buf [32]byte
	for len(out) < AppPasswordLength {
		if _, err := rand.Read(buf[:]); err != nil {
			return "", err
		}
		for _, c := range buf {
			// Rejection sampling keeps every character equally likely:
			// 248 is the largest multiple of 62 that fits a byte.
			if c < 248 && len(out) < AppPasswordLength {
				out = append(out, appPasswordChars[int(c)%len(appPasswordChars)])
			}
		}
	}
	return string(out), nil
}

// AppPassword is one entry of a user's _application_passwords list.
type AppPassword struct {
	UUID     string
	AppID    string
	Name     string
	Password string // hash: "$generic$…" (6.8+) or "$P$…" (5.6 – 6.7)
	Created  int64
	LastUsed *int64  // nil: never used
	LastIP   *string // nil: never used
}

// decodeAppPasswords reads the usermeta value as get_user_meta(..., true)
// would (maybe_unserialize). A missing row, a non-serialized string or a
// serialized non-array all mean "no passwords" (list == nil, err == nil);
// serialized data that fails to decode is reported as an error.
func decodeAppPasswords(metaValue string) (*phpserial.Array, error) {
	v, err := phpserial.MaybeUnserialize(metaValue)
	if err != nil {
		return nil, fmt.Errorf("wpauth: corrupt _application_passwords value: %w", err)
	}
	list, _ := v.(*phpserial.Array)
	return list, nil
}

// ParseAppPasswords decodes the `_application_passwords` usermeta value into
// its entries, in stored order. As in core, a value that is not an array
// yields no entries. Entries that are not arrays are skipped (core would
// fail on them). If the value looks serialized but is malformed, the error
// says so and the list is empty, which is what core sees too.
func ParseAppPasswords(metaValue string) ([]AppPassword, error) {
	list, err := decodeAppPasswords(metaValue)
	if err != nil || list == nil {
		return nil, err
	}
	out := make([]AppPassword, 0, list.Len())
	for _, e := range list.Entries() {
		item, ok := e.Value.(*phpserial.Array)
		if !ok {
			continue
		}
		var ap AppPassword
		ap.UUID, _ = item.String("uuid")
		ap.AppID, _ = item.String("app_id")
		ap.Name, _ = item.String("name")
		ap.Password, _ = item.String("password")
		ap.Created, _ = item.Int("created")
		if v, ok := item.Get("last_used"); ok && v != nil {
			if n, ok := phpserial.ToInt(v); ok {
				ap.LastUsed = &n
			}
		}
		if v, ok := item.Get("last_ip"); ok && v != nil {
			if s, ok := phpserial.ToString(v); ok {
				ap.LastIP = &s
			}
		}
		out = append(out, ap)
	}
	return out, nil
}

// MatchAppPassword normalises the supplied password and returns the uuid of
// the first entry, in stored order, whose hash verifies (core's
// wp_authenticate_application_password). Name and app_id play no part.
func MatchAppPassword(entries []AppPassword, supplied string) (uuid string, ok bool) {
	normalized := NormalizeAppPassword(supplied)
	for _, e := range entries {
		if CheckAppPassword(normalized, e.Password) {
			return e.UUID, true
		}
	}
	return "", false
}

// RecordAppPasswordUsage applies record_application_password_usage() to the
// `_application_passwords` usermeta value: if the entry with this uuid was
// last used less than a day before now, nothing changes (changed == false,
// newValue == metaValue); otherwise last_used = now and last_ip = ip are set
// and the whole list is re-serialised, every other entry, key and field
// byte for byte as it was. ErrAppPasswordNotFound means no entry matched.
func RecordAppPasswordUsage(metaValue, uuid string, now int64, ip string) (newValue string, changed bool, err error) {
	list, err := decodeAppPasswords(metaValue)
	if err != nil {
		return metaValue, false, err
	}
	if list == nil {
		return metaValue, false, ErrAppPasswordNotFound
	}
	for _, e := range list.Entries() {
		item, ok := e.Value.(*phpserial.Array)
		if !ok {
			continue
		}
		if id, ok := item.Get("uuid"); !ok || id != uuid { // PHP !== : must be the same string
			continue
		}
		last, _ := item.Get("last_used")
		if usedWithinDay(last, now) {
			return metaValue, false, nil
		}
		item.Set("last_used", now)
		item.Set("last_ip", ip)
		out, err := phpserial.Marshal(list)
		if err != nil {
			return metaValue, false, err
		}
		return out, true, nil
	}
	return metaValue, false, ErrAppPasswordNotFound
}

// usedWithinDay evaluates core's `$last_used + DAY_IN_SECONDS > time()`
// with PHP arithmetic: null counts as 0, numeric strings as numbers.
func usedWithinDay(last any, now int64) bool {
	if f, ok := last.(float64); ok {
		return f+DayInSeconds > float64(now)
	}
	n, _ := phpserial.ToInt(last)
	if n > (1<<63-1)-DayInSeconds {
		return true // PHP would overflow to a float that is still > now
	}
	return n+DayInSeconds > now
}

// NewAppPasswordEntry appends a new application password to the
// `_application_passwords` usermeta value as
// WP_Application_Passwords::create_new_application_password() does: a fresh
// 24-character secret (returned in plaintext, once), stored as its
// "$generic$" hash, with a random v4 uuid, app_id "", created = now and
// last_used / last_ip null, under the next integer key. A value that is not
// an array starts a new list, as in core; a corrupt serialized value is an
// error rather than being overwritten. The caller must sanitise name (core
// runs sanitize_text_field) and set the using_application_passwords option.
func NewAppPasswordEntry(metaValue, name string, now int64) (newValue, plaintext, uuid string, err error) {
	if name == "" {
		return "", "", "", ErrEmptyAppPasswordName
	}
	list, err := decodeAppPasswords(metaValue)
	if err != nil {
		return "", "", "", err
	}
	if list == nil {
		list = phpserial.NewArray()
	}
	plaintext, err = GenerateAppPassword()
	if err != nil {
		return "", "", "", err
	}
	uuid, err = newUUID4()
	if err != nil {
		return "", "", "", err
	}
	item := phpserial.NewArray()
	item.Set("uuid", uuid)
	item.Set("app_id", "")
	item.Set("name", name)
	item.Set("password", HashAppPassword(plaintext))
	item.Set("created", now)
	item.Set("last_used", nil)
	item.Set("last_ip", nil)
	if err := list.Append(item); err != nil {
		return "", "", "", err
	}
	newValue, err = phpserial.Marshal(list)
	if err != nil {
		return "", "", "", err
	}
	return newValue, plaintext, uuid, nil
}

// newUUID4 returns a random RFC 4122 version 4 UUID in lower case, the
// format of wp_generate_uuid4().
func newUUID4() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// ErrDuplicateAppPasswordName mirrors core's application_password_duplicate_name: names are unique
// per user.
var ErrDuplicateAppPasswordName = errors.New("wpauth: each application name should be unique")

// AppPasswordNameExists is WP_Application_Passwords::application_name_exists_for_user.
func AppPasswordNameExists(entries []AppPassword, name string) bool {
	for _, e := range entries {
		if e.Name == name {
			return true
		}
	}
	return false
}

// RevokeAppPassword removes the entry with this uuid from the `_application_passwords` usermeta
// value as WP_Application_Passwords::delete_application_password() does: the entry is unset and
// the array re-serialised with the other entries under their keys. ErrAppPasswordNotFound means
// no entry matched.
func RevokeAppPassword(metaValue, uuid string) (string, error) {
	list, err := decodeAppPasswords(metaValue)
	if err != nil {
		return metaValue, err
	}
	if list == nil {
		return metaValue, ErrAppPasswordNotFound
	}
	for _, e := range list.Entries() {
		item, ok := e.Value.(*phpserial.Array)
		if !ok {
			continue
		}
		if id, ok := item.Get("uuid"); ok && id == uuid {
			list.Delete(e.Key)
			return phpserial.Marshal(list)
		}
	}
	return metaValue, ErrAppPasswordNotFound
}

// NoAppPasswords is the value delete_all_application_passwords() stores: an empty array.
const NoAppPasswords = "a:0:{}"
