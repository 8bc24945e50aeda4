package wpdb

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/phpserial"
)

// siteOptions are the wp_options rows the API depends on.
var siteOptions = []string{
	"home", "siteurl", "permalink_structure", "blog_charset", "timezone_string", "gmt_offset",
	"posts_per_page", "tribe_events_calendar_options", "tec_ct1_migration_state",
	"using_application_passwords", "upload_url_path", "tag_base",
	"page_on_front", "page_for_posts", "wp_page_for_privacy_policy", "blogname", "blogdescription",
}

// Options returns the raw values of the named options that exist.
func (db *DB) Options(ctx context.Context, names ...string) (map[string]string, error) {
	rows, err := db.sql.QueryContext(ctx,
		"SELECT option_name, option_value FROM "+db.t("options")+" WHERE option_name IN ("+placeholders(len(names))+")",
		stringArgs(names)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]string, len(names))
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

// SiteOverrides are configuration values that win over the database.
type SiteOverrides struct {
	HomeURL string // CALENDAR_SITE_URL
}

// LoadSite reads the options that shape API answers in one query.
func (db *DB) LoadSite(ctx context.Context, ov SiteOverrides) (*calendard.Site, error) {
	names := append(append([]string{}, siteOptions...), db.prefix+"user_roles")
	opts, err := db.Options(ctx, names...)
	if err != nil {
		return nil, err
	}
	return siteFromOptions(opts, db.prefix, ov)
}

func siteFromOptions(opts map[string]string, prefix string, ov SiteOverrides) (*calendard.Site, error) {
	s := &calendard.Site{
		Charset:               "UTF-8",
		DefaultCurrencySymbol: "$",
		DefaultCurrencyCode:   "USD",
		MultiDayCutoff:        "00:00",
		EventSlug:             "event",
		EventsSlug:            "events",
		VenueSlug:             "venue",
		OrganizerSlug:         "organizer",
		TagBase:               "tag",
		PrettyPermalinks:      opts["permalink_structure"] != "",
		UsingAppPasswords:     calendard.TruthyMeta(opts["using_application_passwords"]),
		Roles:                 map[string]calendard.Role{},
	}
	home := strings.TrimRight(opts["home"], "/")
	siteURL := strings.TrimRight(opts["siteurl"], "/")
	if siteURL == "" {
		siteURL = home
	}
	if ov.HomeURL != "" {
		over := strings.TrimRight(ov.HomeURL, "/")
		if strings.HasPrefix(siteURL, home) {
			siteURL = over + strings.TrimPrefix(siteURL, home)
		} else {
			siteURL = over
		}
		home = over
	}
	s.HomeURL, s.SiteURL = home, siteURL
	if c := opts["blog_charset"]; c != "" {
		s.Charset = c
	}
	if b := strings.Trim(opts["tag_base"], "/"); b != "" {
		s.TagBase = b
	}

	s.Name, s.Description, s.TimezoneName = opts["blogname"], opts["blogdescription"], opts["timezone_string"]
	s.GMTOffset = opts["gmt_offset"]
	s.TimezoneString = calendard.SiteZoneString(opts["timezone_string"], opts["gmt_offset"])
	loc, err := calendard.LoadZone(s.TimezoneString)
	if err != nil {
		return nil, fmt.Errorf("site timezone %q: %w", s.TimezoneString, err)
	}
	s.Location = loc

	s.PageOnFront, _ = strconv.ParseInt(opts["page_on_front"], 10, 64)
	s.PageForPosts, _ = strconv.ParseInt(opts["page_for_posts"], 10, 64)
	s.PrivacyPage, _ = strconv.ParseInt(opts["wp_page_for_privacy_policy"], 10, 64)

	tec, _ := phpserial.Unmarshal(opts["tribe_events_calendar_options"])
	tecOpts, _ := tec.(*phpserial.Array)
	applyTECOptions(s, tecOpts, opts["posts_per_page"])
	s.CategoryBase = s.EventsSlug + "/category"

	if st, _ := phpserial.Unmarshal(opts["tec_ct1_migration_state"]); st != nil {
		if a, ok := st.(*phpserial.Array); ok {
			phase, _ := a.Get("phase")
			switch phase {
			case "migration-not-required", "migration-complete":
				s.UseCustomTables = true
			}
		}
	}

	if r, _ := phpserial.Unmarshal(opts[prefix+"user_roles"]); r != nil {
		if roles, ok := r.(*phpserial.Array); ok {
			for _, e := range roles.Entries() {
				def, ok := e.Value.(*phpserial.Array)
				if !ok {
					continue
				}
				role := calendard.Role{Capabilities: map[string]bool{}}
				if n, ok := def.Get("name"); ok {
					role.Name, _ = n.(string)
				}
				if caps, ok := def.Get("capabilities"); ok {
					if ca, ok := caps.(*phpserial.Array); ok {
						for _, c := range ca.Entries() {
							role.Capabilities[fmt.Sprint(c.Key)] = phpserial.ToBool(c.Value)
						}
					}
				}
				s.Roles[fmt.Sprint(e.Key)] = role
			}
		}
	}
	return s, nil
}

// applyTECOptions reads the TEC options array (tribe_events_calendar_options).
func applyTECOptions(s *calendard.Site, tec *phpserial.Array, wpPerPage string) {
	str := func(key string) (string, bool) {
		if tec == nil {
			return "", false
		}
		v, ok := tec.Get(key)
		if !ok {
			return "", false
		}
		switch x := v.(type) {
		case string:
			return x, true
		case int64:
			return strconv.FormatInt(x, 10), true
		case bool:
			if x {
				return "1", true
			}
			return "", true
		case nil:
			return "", true
		}
		return fmt.Sprint(v), true
	}

	// Default page size: the TEC key wins whenever it exists (even empty), else the WP option.
	raw, ok := str("posts_per_page")
	if !ok {
		raw = wpPerPage
	}
	s.PerPageRaw = raw
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	switch {
	case err == nil && n < 0:
		s.PerPageInvalid = true
		s.PerPage = 20
	case err != nil || n == 0:
		s.PerPage = 20
	default:
		s.PerPage = n
	}
	if s.PerPage > 50 {
		s.PerPage = 50
	}

	if v, ok := str("defaultCurrencySymbol"); ok && v != "" {
		s.DefaultCurrencySymbol = v
	}
	if v, ok := str("defaultCurrencyCode"); ok && v != "" {
		s.DefaultCurrencyCode = v
	}
	if v, ok := str("reverseCurrencyPosition"); ok {
		s.ReverseCurrencyPosition = calendard.TruthyMeta(v)
	}
	if v, ok := str("multiDayCutoff"); ok && v != "" {
		s.MultiDayCutoff = v
	}
	if v, ok := str("tribe_events_timezone_mode"); ok {
		s.TimezoneModeSite = v == "site"
	}
	if v, ok := str("rest-v1-disabled"); ok {
		s.RESTDisabled = calendard.TruthyMeta(v)
	}
	if v, ok := str("singleEventSlug"); ok && v != "" {
		s.EventSlug = v
	}
	if v, ok := str("eventsSlug"); ok && v != "" {
		s.EventsSlug = v
	}
	if tec != nil {
		if cf, ok := tec.Get("custom-fields"); ok {
			if list, ok := cf.(*phpserial.Array); ok {
				for _, e := range list.Entries() {
					f, ok := e.Value.(*phpserial.Array)
					if !ok {
						continue
					}
					name, _ := f.Get("name")
					label, _ := f.Get("label")
					ns, _ := name.(string)
					ls, _ := label.(string)
					if ns != "" {
						s.CustomFields = append(s.CustomFields, calendard.CustomField{Name: ns, Label: ls})
					}
				}
			}
		}
	}
}

// Store is the database plus the configuration that overrides its options.
type Store struct {
	*DB
	overrides SiteOverrides
}

// NewStore wraps db; the site settings it serves apply the overrides.
func NewStore(db *DB, ov SiteOverrides) *Store { return &Store{DB: db, overrides: ov} }

// Site loads the current site settings (one query).
func (s *Store) Site(ctx context.Context) (*calendard.Site, error) {
	return s.LoadSite(ctx, s.overrides)
}
