package main

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"

	"github.com/calendard/calendard/webhook"
)

// mask stands in for a password wherever a DSN or URL is shown.
const mask = "xxxxx"

// redact returns a CALENDAR_DB value (mysql://DSN or sqlite://PATH) or a redis://, rediss:// or
// http(s):// URL with its password masked, for output and logs. A value that does not parse but
// looks like it carries credentials (scheme://user:pass@…) is masked from the first ':' after the
// user to the last '@'.
func redact(v string) string {
	if dsn, ok := strings.CutPrefix(v, "mysql://"); ok {
		// ParseDSN splits "user:password@net(addr)/db" at the first ':' and the last '@' before
		// the last '/': the DSN starts with exactly user:password@.
		if cfg, err := mysql.ParseDSN(dsn); err == nil {
			if cfg.Passwd == "" {
				return v
			}
			if rest, ok := strings.CutPrefix(dsn, cfg.User+":"+cfg.Passwd+"@"); ok {
				return "mysql://" + cfg.User + ":" + mask + "@" + rest
			}
		}
	} else if u, err := url.Parse(v); err == nil && u.User != nil {
		if _, set := u.User.Password(); !set {
			return v
		}
		return u.Redacted()
	} else if err == nil {
		return v
	}
	// Unparsable: mask what would be the password of scheme://user:password@host.
	_, rest, ok := strings.Cut(v, "://")
	at := strings.LastIndexByte(rest, '@')
	if !ok || at < 0 {
		return v
	}
	head := v[:len(v)-len(rest)]
	if user, _, hasPass := strings.Cut(rest[:at], ":"); hasPass {
		return head + user + ":" + mask + rest[at:]
	}
	return v
}

// redactReplicas is redact for each DSN of a CALENDAR_DB_REPLICAS list.
func redactReplicas(v string) string {
	parts := splitReplicas(v)
	for i, p := range parts {
		parts[i] = redact(p)
	}
	return strings.Join(parts, ",")
}

// secretsOf returns the passwords a value carries (see redact), for scrubbing text that may quote
// them in other forms.
func secretsOf(v string) []string {
	if dsn, ok := strings.CutPrefix(v, "mysql://"); ok {
		if cfg, err := mysql.ParseDSN(dsn); err == nil && cfg.Passwd != "" {
			return []string{cfg.Passwd}
		}
	} else if u, err := url.Parse(v); err == nil && u.User != nil {
		if p, set := u.User.Password(); set && p != "" {
			return []string{p, url.QueryEscape(p)}
		}
	}
	if r := redact(v); r != v {
		// Unparsable with credentials: the masked span is the secret.
		_, rest, _ := strings.Cut(v, "://")
		at := strings.LastIndexByte(rest, '@')
		_, pass, _ := strings.Cut(rest[:at], ":")
		if pass != "" {
			return []string{pass}
		}
	}
	return nil
}

// scrubValue masks the credentials of v in text that may quote it (a parser's error).
func scrubValue(text, v string) string {
	if r := redact(v); r != v {
		text = strings.ReplaceAll(text, v, r)
	}
	for _, p := range secretsOf(v) {
		if p != "" {
			text = strings.ReplaceAll(text, p, mask)
		}
	}
	return text
}

// secretSettings are the variables and flags whose values carry credentials.
var secretSettings = map[string]bool{
	"CALENDAR_DB": true, "CALENDAR_DB_REPLICAS": true, "db-replicas": true, "CALENDAR_REDIS_URL": true, "CALENDAR_MEILI_URL": true, "CALENDAR_MEILI_KEY": true,
	"CALENDAR_LOGGED_IN_KEY": true, "CALENDAR_LOGGED_IN_SALT": true, "logged-in-key": true, "logged-in-salt": true,
	"db": true, "redis-url": true, "meili-url": true, "meili-key": true, "from": true, "to": true,
	"app-password": true, "CALENDAR_IMPORT_APP_PASSWORD": true, "CALENDAR_WEBHOOKS": true, "webhooks": true,
}

// redactWebhooks masks the secrets of a CALENDAR_WEBHOOKS value.
func redactWebhooks(v string) string {
	for _, s := range webhook.Secrets(v) {
		v = strings.ReplaceAll(v, s, mask)
	}
	return v
}

// scrubber masks every configured secret in text: the passwords of the DSN and URLs given in the
// environment or on the command line, and the Meilisearch key. It is the last line of defence for
// error messages of libraries that quote what they were given.
type scrubber struct {
	mu      sync.RWMutex
	raw     []string // whole values, replaced by their redacted form
	secrets []string // passwords and keys, replaced by mask
}

var secrets = &scrubber{}

// add registers a configured value; key marks a value that is itself a secret (an API key).
func (s *scrubber) add(v string, key bool) {
	if v == "" {
		return
	}
	if parts := splitReplicas(v); !key && len(parts) > 1 {
		// A CALENDAR_DB_REPLICAS list: each DSN carries its own password.
		for _, p := range parts {
			s.add(p, false)
		}
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if key {
		// Short values would mask unrelated text; a key that short is no secret worth the noise.
		if len(v) >= 4 {
			s.secrets = append(s.secrets, v)
		}
		return
	}
	if redact(v) != v {
		s.raw = append(s.raw, v)
	}
	for _, p := range secretsOf(v) {
		if len(p) >= 4 {
			s.secrets = append(s.secrets, p)
		}
	}
}

// collect registers the secret-bearing values of the environment and of args (-flag value and
// -flag=value forms).
func (s *scrubber) collect(getenv func(string) string, args []string) {
	for name := range secretSettings {
		if name == "CALENDAR_WEBHOOKS" {
			for _, secret := range webhook.Secrets(getenv(name)) {
				s.add(secret, true)
			}
		} else if strings.HasPrefix(name, "CALENDAR_") {
			s.add(getenv(name), name == "CALENDAR_MEILI_KEY" || name == "CALENDAR_IMPORT_APP_PASSWORD")
		}
	}
	for i, a := range args {
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || !secretSettings[name] {
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				continue
			}
			val = args[i+1]
		}
		if name == "webhooks" {
			for _, secret := range webhook.Secrets(val) {
				s.add(secret, true)
			}
			continue
		}
		s.add(val, name == "meili-key" || name == "app-password")
	}
}

// scrub masks the registered secrets in text.
func (s *scrubber) scrub(text string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, r := range s.raw {
		text = strings.ReplaceAll(text, r, redact(r))
	}
	for _, p := range s.secrets {
		text = strings.ReplaceAll(text, p, mask)
	}
	return text
}

// empty reports whether nothing is registered (the logs then need no scrubbing).
func (s *scrubber) empty() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.raw) == 0 && len(s.secrets) == 0
}

// scrubHandler masks the registered secrets in the message and the string and error attributes of
// every record before the wrapped handler writes it.
type scrubHandler struct{ slog.Handler }

func (h scrubHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, secrets.scrub(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(scrubAttr(a))
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h scrubHandler) WithAttrs(as []slog.Attr) slog.Handler {
	for i := range as {
		as[i] = scrubAttr(as[i])
	}
	return scrubHandler{h.Handler.WithAttrs(as)}
}

func (h scrubHandler) WithGroup(name string) slog.Handler {
	return scrubHandler{h.Handler.WithGroup(name)}
}

func scrubAttr(a slog.Attr) slog.Attr {
	switch a.Value.Kind() {
	case slog.KindString:
		return slog.String(a.Key, secrets.scrub(a.Value.String()))
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok {
			return slog.String(a.Key, secrets.scrub(err.Error()))
		}
	case slog.KindGroup:
		attrs := a.Value.Group()
		out := make([]any, len(attrs))
		for i, g := range attrs {
			out[i] = scrubAttr(g)
		}
		return slog.Group(a.Key, out...)
	}
	return a
}
