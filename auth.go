package calendard

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/calendard/calendard/internal/phpserial"
	"github.com/calendard/calendard/internal/wpauth"
	"github.com/calendard/calendard/internal/wptext"
)

// UserRecord is a wp_users row with the usermeta authentication and capabilities need.
type UserRecord struct {
	ID           int64
	Login        string
	Email        string
	Pass         string // user_pass hash
	CapsMeta     string // serialized {prefix}capabilities
	AppPasswords string // serialized _application_passwords ("" when absent)
	// SessionTokens is the serialized session_tokens user meta ("" when absent): the sessions the
	// logged-in cookie names.
	SessionTokens string
}

// UserService finds users. Lookups compare in SQL so the database collation decides, as in WordPress.
type UserService interface {
	UserByLogin(ctx context.Context, login string) (*UserRecord, error)
	UserByEmail(ctx context.Context, email string) (*UserRecord, error)
	UserByID(ctx context.Context, id int64) (*UserRecord, error)
	// RecordAppPasswordUsage stores last_used/last_ip of the matched entry (at most once a day).
	RecordAppPasswordUsage(ctx context.Context, userID int64, uuid, ip string, now time.Time) error
}

// Authentication errors WordPress returns when Basic credentials are present but wrong.
var (
	errInvalidUsername = &Error{Code: "invalid_username", Status: 401,
		Message: "<strong>Error:</strong> Unknown username. Check again or try your email address."}
	errInvalidEmail = &Error{Code: "invalid_email", Status: 401,
		Message: "<strong>Error:</strong> Unknown email address. Check again or try your username."}
	errIncorrectPassword = &Error{Code: "incorrect_password", Status: 401,
		Message: "The provided password is an invalid application password."}
)

// AuthenticateAppPassword is wp_authenticate_application_password for one Basic login. It returns the
// user, or a 401 *Error. The caller has already decided application passwords are available (TLS or a
// local environment, and the using_application_passwords option).
func AuthenticateAppPassword(ctx context.Context, users UserService, site *Site, login, password string, now time.Time, ip string) (*User, error) {
	rec, err := users.UserByLogin(ctx, SanitizeUser(login))
	if err != nil {
		return nil, err
	}
	email := IsEmail(login)
	if rec == nil && email {
		if rec, err = users.UserByEmail(ctx, strings.TrimSpace(login)); err != nil {
			return nil, err
		}
	}
	if rec == nil {
		if email {
			return nil, errInvalidEmail
		}
		return nil, errInvalidUsername
	}
	entries, _ := wpauth.ParseAppPasswords(rec.AppPasswords)
	uuid, ok := wpauth.MatchAppPassword(entries, password)
	if !ok {
		return nil, errIncorrectPassword
	}
	if err := users.RecordAppPasswordUsage(ctx, rec.ID, uuid, ip, now); err != nil {
		return nil, err
	}
	return UserFromRecord(site, rec), nil
}

// UserFromRecord computes the user's roles and capabilities.
func UserFromRecord(site *Site, rec *UserRecord) *User {
	var kvs []KV
	if v, err := phpserial.Unmarshal(rec.CapsMeta); err == nil {
		if a, ok := v.(*phpserial.Array); ok {
			for _, e := range a.Entries() {
				if k, ok := e.Key.(string); ok {
					kvs = append(kvs, KV{Key: k, Value: e.Value})
				}
			}
		}
	}
	roles, caps := BuildCaps(site.Roles, kvs)
	return &User{ID: rec.ID, Login: rec.Login, Email: rec.Email, Roles: roles, Caps: caps}
}

var (
	percentOctetRe = regexp.MustCompile(`%[a-fA-F0-9][a-fA-F0-9]`)
	entityRe       = regexp.MustCompile(`&.+?;`)
	spaceRunRe     = regexp.MustCompile(`\s+`)
)

// SanitizeUser is sanitize_user($username) (non-strict), which get_user_by('login') applies.
func SanitizeUser(s string) string {
	s = wptext.StripAllTags(s, false)
	s = wptext.RemoveAccents(s)
	s = percentOctetRe.ReplaceAllString(s, "")
	s = entityRe.ReplaceAllString(s, "")
	s = strings.TrimSpace(s)
	return spaceRunRe.ReplaceAllString(s, " ")
}

var (
	emailLocalRe = regexp.MustCompile(`^[a-zA-Z0-9!#$%&'*+/=?^_` + "`" + `{|}~\.-]+$`)
	emailLabelRe = regexp.MustCompile(`(?i)^[a-z0-9-]+$`)
)

// IsEmail is WordPress' is_email().
func IsEmail(s string) bool {
	if len(s) < 6 {
		return false
	}
	at := strings.Index(s, "@")
	if at < 1 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if !emailLocalRe.MatchString(local) {
		return false
	}
	if strings.Contains(domain, "..") || strings.Trim(domain, " \t\n\r\x00\x0B.") != domain {
		return false
	}
	subs := strings.Split(domain, ".")
	if len(subs) < 2 {
		return false
	}
	for _, sub := range subs {
		if strings.Trim(sub, " \t\n\r\x00\x0B-") != sub || !emailLabelRe.MatchString(sub) {
			return false
		}
	}
	return true
}
