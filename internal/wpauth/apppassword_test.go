package wpauth

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// siteUser is one user of the reference site: the plaintext application
// password from compat-tests/testdata/site-a/meta.json and the
// `_application_passwords` usermeta row from fixture.sql.
type siteUser struct {
	login, appPassword, uuid, hash, meta string
}

var siteUsers = []siteUser{
	{"admin", "OracleAppPassw0rd0000000", "2492287c-40ac-48bf-859a-54cd9d20fea7", "$generic$RepRGepSyTeLHv6fYEEA-kZ4PazHyYdXo2FNABXl",
		`a:1:{i:0;a:7:{s:4:"uuid";s:36:"2492287c-40ac-48bf-859a-54cd9d20fea7";s:6:"app_id";s:0:"";s:4:"name";s:6:"oracle";s:8:"password";s:49:"$generic$RepRGepSyTeLHv6fYEEA-kZ4PazHyYdXo2FNABXl";s:7:"created";i:1795321729;s:9:"last_used";i:1795321731;s:7:"last_ip";s:9:"127.0.0.1";}}`},
	{"editor", "EditorAppPassw0rd0000000", "ae975191-a38d-4e00-a76b-b22e6cd253d4", "$generic$npleyeHYN29j0sNUSxeAwyBsxEQ9IdHP1dHeVMH4",
		`a:1:{i:0;a:7:{s:4:"uuid";s:36:"ae975191-a38d-4e00-a76b-b22e6cd253d4";s:6:"app_id";s:0:"";s:4:"name";s:6:"oracle";s:8:"password";s:49:"$generic$npleyeHYN29j0sNUSxeAwyBsxEQ9IdHP1dHeVMH4";s:7:"created";i:1795321730;s:9:"last_used";N;s:7:"last_ip";N;}}`},
	{"author", "AuthorAppPassw0rd0000000", "59dbc38b-ade7-4d49-b15d-415d8cda5ced", "$generic$rIQr25SeDMaas6Swxjr2xMCR08AGdrPJ_Oz0ahwY",
		`a:1:{i:0;a:7:{s:4:"uuid";s:36:"59dbc38b-ade7-4d49-b15d-415d8cda5ced";s:6:"app_id";s:0:"";s:4:"name";s:6:"oracle";s:8:"password";s:49:"$generic$rIQr25SeDMaas6Swxjr2xMCR08AGdrPJ_Oz0ahwY";s:7:"created";i:1795321730;s:9:"last_used";N;s:7:"last_ip";N;}}`},
	{"contributor", "ContribAppPassw0rd000000", "265e4134-7e88-4835-8a85-b2445b08171c", "$generic$-E5ssIeIH9T3YySFCX9niFBfd35wiP1C-pjzxYSu",
		`a:1:{i:0;a:7:{s:4:"uuid";s:36:"265e4134-7e88-4835-8a85-b2445b08171c";s:6:"app_id";s:0:"";s:4:"name";s:6:"oracle";s:8:"password";s:49:"$generic$-E5ssIeIH9T3YySFCX9niFBfd35wiP1C-pjzxYSu";s:7:"created";i:1795321730;s:9:"last_used";N;s:7:"last_ip";N;}}`},
	{"subscriber", "SubscrAppPassw0rd0000000", "87399099-b454-4f64-a81f-2f889ef6abe8", "$generic$c31rGInBLrs_mXFYQ8iCviAAUqcAe11-2e-I_kKo",
		`a:1:{i:0;a:7:{s:4:"uuid";s:36:"87399099-b454-4f64-a81f-2f889ef6abe8";s:6:"app_id";s:0:"";s:4:"name";s:6:"oracle";s:8:"password";s:49:"$generic$c31rGInBLrs_mXFYQ8iCviAAUqcAe11-2e-I_kKo";s:7:"created";i:1795321730;s:9:"last_used";N;s:7:"last_ip";N;}}`},
}

// A list shaped like one core leaves behind after deletions: integer keys
// with gaps, a pre-6.8 phpass entry, UTF-8 in a name.
const gapList = `a:2:{i:1;a:7:{s:4:"uuid";s:36:"11111111-1111-4111-8111-111111111111";s:6:"app_id";s:36:"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";s:4:"name";s:7:"Zürich";s:8:"password";s:34:"$P$BappsSaltKxTPWwVRIGPCOBGW0vDN61";s:7:"created";i:1600000000;s:9:"last_used";i:1600000100;s:7:"last_ip";s:11:"203.0.113.9";}i:3;a:7:{s:4:"uuid";s:36:"33333333-3333-4333-8333-333333333333";s:6:"app_id";s:0:"";s:4:"name";s:3:"cli";s:8:"password";s:49:"$generic$RepRGepSyTeLHv6fYEEA-kZ4PazHyYdXo2FNABXl";s:7:"created";i:1700000000;s:9:"last_used";N;s:7:"last_ip";N;}}`

// The pre-6.8 entry in gapList is phpass of the admin app password, computed
// by hand (salt "appsSalt").
const gapListPhpassPlain = "OracleAppPassw0rd0000000"

// chunk4 formats like the wp-admin display: groups of four with sep.
func chunk4(p, sep string) string {
	var parts []string
	for i := 0; i < len(p); i += 4 {
		parts = append(parts, p[i:min(i+4, len(p))])
	}
	return strings.Join(parts, sep)
}

func TestHashAppPasswordMatchesStoredHashes(t *testing.T) {
	for _, u := range siteUsers {
		t.Run(u.login+"'s stored $generic$ hash is reproduced byte for byte", func(t *testing.T) {
			if got := HashAppPassword(u.appPassword); got != u.hash {
				t.Fatalf("HashAppPassword = %q, want %q", got, u.hash)
			}
		})
	}
}

func TestMatchAppPasswordAgainstSiteUsers(t *testing.T) {
	for _, u := range siteUsers {
		entries, err := ParseAppPasswords(u.meta)
		if err != nil || len(entries) != 1 {
			t.Fatalf("%s: ParseAppPasswords = %v, %v", u.login, entries, err)
		}
		other := siteUsers[(indexOf(u.login)+1)%len(siteUsers)]
		tests := []struct {
			name     string
			supplied string
			want     bool
		}{
			{"exact password is accepted", u.appPassword, true},
			{"space-chunked form is accepted", chunk4(u.appPassword, " "), true},
			{"dash-separated form is accepted", chunk4(u.appPassword, "-"), true},
			{"surrounding whitespace and dots are ignored", "  " + chunk4(u.appPassword, ".") + "\n", true},
			{"non-ASCII bytes are stripped", "é" + u.appPassword + "✓", true},
			{"lower-cased form is rejected", strings.ToLower(u.appPassword), false},
			{"upper-cased form is rejected", strings.ToUpper(u.appPassword), false},
			{"truncated form is rejected", u.appPassword[:23], false},
			{"extra character is rejected", u.appPassword + "0", false},
			{"another user's app password is rejected", other.appPassword, false},
			{"the admin login password is rejected", adminPass, false},
			{"empty password is rejected", "", false},
		}
		for _, tt := range tests {
			t.Run(u.login+": "+tt.name, func(t *testing.T) {
				uuid, ok := MatchAppPassword(entries, tt.supplied)
				if ok != tt.want {
					t.Fatalf("MatchAppPassword(%q) ok = %v, want %v", tt.supplied, ok, tt.want)
				}
				if ok && uuid != u.uuid {
					t.Fatalf("uuid = %q, want %q", uuid, u.uuid)
				}
				if !ok && uuid != "" {
					t.Fatalf("uuid = %q on failure, want empty", uuid)
				}
			})
		}
	}
}

func indexOf(login string) int {
	for i, u := range siteUsers {
		if u.login == login {
			return i
		}
	}
	return -1
}

func TestMatchAppPasswordOrderAndFallback(t *testing.T) {
	entries, err := ParseAppPasswords(gapList)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		entries  []AppPassword
		supplied string
		wantUUID string
		wantOK   bool
	}{
		{"first verifying entry wins (pre-6.8 phpass entry comes first)", entries, gapListPhpassPlain, "11111111-1111-4111-8111-111111111111", true},
		{"later entry matches when the first does not", entries[1:], gapListPhpassPlain, "33333333-3333-4333-8333-333333333333", true},
		{"no entries never match", nil, gapListPhpassPlain, "", false},
		{"wrong password matches nothing", entries, "WrongAppPassw0rd00000000", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			uuid, ok := MatchAppPassword(tt.entries, tt.supplied)
			if uuid != tt.wantUUID || ok != tt.wantOK {
				t.Fatalf("MatchAppPassword = %q, %v; want %q, %v", uuid, ok, tt.wantUUID, tt.wantOK)
			}
		})
	}
}

func TestCheckAppPassword(t *testing.T) {
	const plain = "OracleAppPassw0rd0000000"
	wpHash, err := HashPassword(plain)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		stored string
		in     string
		want   bool
	}{
		{"$generic$ hash accepts its password", siteUsers[0].hash, plain, true},
		{"$generic$ hash rejects another password", siteUsers[0].hash, siteUsers[1].appPassword, false},
		{"$generic$ hash with a changed character is rejected", siteUsers[0].hash[:48] + "m", plain, false},
		{"$generic$ hash with trailing bytes is rejected", siteUsers[0].hash + "=", plain, false},
		{"pre-6.8 phpass hash falls back to the user-password check", "$P$BappsSaltKxTPWwVRIGPCOBGW0vDN61", plain, true},
		{"pre-6.8 phpass hash rejects another password", "$P$BappsSaltKxTPWwVRIGPCOBGW0vDN61", siteUsers[1].appPassword, false},
		{"$wp bcrypt hash falls back to the user-password check", wpHash, plain, true},
		{"MD5 hash falls back to the user-password check", md5hex(plain), plain, true},
		{"empty stored hash never matches", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CheckAppPassword(tt.in, tt.stored); got != tt.want {
				t.Fatalf("CheckAppPassword(%q, %q) = %v, want %v", tt.in, tt.stored, got, tt.want)
			}
		})
	}
}

func TestNormalizeAppPassword(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain is unchanged", "AbC123", "AbC123"},
		{"spaces removed", "Orac leAp pPas sw0r d000 0000", "OracleAppPassw0rd0000000"},
		{"dashes and dots removed", "ab-cd.ef_gh", "abcdefgh"},
		{"case kept", "aBc", "aBc"},
		{"multi-byte UTF-8 removed entirely", "Zürich", "Zrich"},
		{"fullwidth digits are not ASCII digits", "１2", "2"},
		{"control bytes removed", "a\x00b\tc\n", "abc"},
		{"only punctuation becomes empty", "-- --", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NormalizeAppPassword(tt.in); got != tt.want {
				t.Fatalf("NormalizeAppPassword(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestChunkAppPassword(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"24 chars become six groups", "OracleAppPassw0rd0000000", "Orac leAp pPas sw0r d000 0000"},
		{"already chunked input is re-chunked the same", "Orac leAp pPas sw0r d000 0000", "Orac leAp pPas sw0r d000 0000"},
		{"short tail group", "abcdef", "abcd ef"},
		{"empty stays empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ChunkAppPassword(tt.in); got != tt.want {
				t.Fatalf("ChunkAppPassword(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestGenerateAppPassword(t *testing.T) {
	valid := regexp.MustCompile(`^[a-zA-Z0-9]{24}$`)
	seen := make(map[string]bool)
	charsSeen := make(map[byte]bool)
	for i := 0; i < 500; i++ {
		p, err := GenerateAppPassword()
		if err != nil {
			t.Fatal(err)
		}
		if !valid.MatchString(p) {
			t.Fatalf("generated %q, want 24 chars of [a-zA-Z0-9]", p)
		}
		if seen[p] {
			t.Fatalf("generated %q twice", p)
		}
		seen[p] = true
		for j := 0; j < len(p); j++ {
			charsSeen[p[j]] = true
		}
	}
	// 12,000 draws from 62 symbols: every symbol appears unless the
	// generator is biased or truncated.
	if len(charsSeen) != 62 {
		t.Fatalf("only %d of 62 characters were ever generated", len(charsSeen))
	}
}

func TestParseAppPasswords(t *testing.T) {
	lastUsed := int64(1795321731)
	ip := "127.0.0.1"
	tests := []struct {
		name    string
		meta    string
		want    []AppPassword
		wantErr bool
	}{
		{"admin's row decodes every field", siteUsers[0].meta, []AppPassword{{
			UUID: siteUsers[0].uuid, AppID: "", Name: "oracle", Password: siteUsers[0].hash,
			Created: 1795321729, LastUsed: &lastUsed, LastIP: &ip,
		}}, false},
		{"null last_used / last_ip decode as nil", siteUsers[1].meta, []AppPassword{{
			UUID: siteUsers[1].uuid, Name: "oracle", Password: siteUsers[1].hash, Created: 1795321730,
		}}, false},
		{"missing row means no passwords", "", nil, false},
		{"emptied list means no passwords", "a:0:{}", []AppPassword{}, false},
		{"serialized string is not a list", `s:3:"abc";`, nil, false},
		{"serialized false is not a list", `b:0;`, nil, false},
		{"plain text is not a list", "garbage", nil, false},
		{"non-array entries are skipped", `a:2:{i:0;s:1:"x";i:1;a:1:{s:4:"uuid";s:1:"u";}}`, []AppPassword{{UUID: "u"}}, false},
		{"malformed serialized data is an error with no entries", `a:1:{i:0;a:1:{s:4:"uuid";}}`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAppPasswords(tt.meta)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, wantErr %v", err, tt.wantErr)
			}
			if !appPasswordsEqual(got, tt.want) {
				t.Fatalf("ParseAppPasswords = %+v, want %+v", got, tt.want)
			}
		})
	}
	t.Run("gap list keeps stored order and reads every entry", func(t *testing.T) {
		got, err := ParseAppPasswords(gapList)
		if err != nil || len(got) != 2 {
			t.Fatalf("got %+v, %v", got, err)
		}
		if got[0].Name != "Zürich" || got[0].AppID != "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa" || got[1].UUID != "33333333-3333-4333-8333-333333333333" {
			t.Fatalf("entries out of order or misread: %+v", got)
		}
	})
}

func appPasswordsEqual(a, b []AppPassword) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.UUID != y.UUID || x.AppID != y.AppID || x.Name != y.Name || x.Password != y.Password || x.Created != y.Created {
			return false
		}
		if (x.LastUsed == nil) != (y.LastUsed == nil) || (x.LastUsed != nil && *x.LastUsed != *y.LastUsed) {
			return false
		}
		if (x.LastIP == nil) != (y.LastIP == nil) || (x.LastIP != nil && *x.LastIP != *y.LastIP) {
			return false
		}
	}
	return true
}

func TestRecordAppPasswordUsage(t *testing.T) {
	admin, subscriber := siteUsers[0], siteUsers[4]
	const adminLastUsed = 1795321731
	const now = int64(1795400000)
	nullUsage := `s:9:"last_used";N;s:7:"last_ip";N;`
	tests := []struct {
		name        string
		meta        string
		uuid        string
		now         int64
		ip          string
		wantValue   string
		wantChanged bool
		wantErr     error
	}{
		{
			name: "first use writes last_used as int and last_ip as string",
			meta: subscriber.meta, uuid: subscriber.uuid, now: now, ip: "127.0.0.1",
			wantValue:   strings.Replace(subscriber.meta, nullUsage, `s:9:"last_used";i:1795400000;s:7:"last_ip";s:9:"127.0.0.1";`, 1),
			wantChanged: true,
		},
		{
			name: "use within a day of the last one writes nothing",
			meta: admin.meta, uuid: admin.uuid, now: adminLastUsed + DayInSeconds - 1, ip: "10.0.0.1",
			wantValue: admin.meta,
		},
		{
			name: "use exactly a day later is recorded",
			meta: admin.meta, uuid: admin.uuid, now: adminLastUsed + DayInSeconds, ip: "10.0.0.1",
			wantValue:   strings.Replace(admin.meta, `i:1795321731;s:7:"last_ip";s:9:"127.0.0.1";`, `i:1795408131;s:7:"last_ip";s:8:"10.0.0.1";`, 1),
			wantChanged: true,
		},
		{
			name: "IPv6 address length is counted in bytes",
			meta: subscriber.meta, uuid: subscriber.uuid, now: now, ip: "2001:db8::1",
			wantValue:   strings.Replace(subscriber.meta, nullUsage, `s:9:"last_used";i:1795400000;s:7:"last_ip";s:11:"2001:db8::1";`, 1),
			wantChanged: true,
		},
		{
			name: "only the matching entry of a gap list changes; keys, order and other bytes stay",
			meta: gapList, uuid: "33333333-3333-4333-8333-333333333333", now: now, ip: "198.51.100.7",
			wantValue:   strings.Replace(gapList, `i:1700000000;`+nullUsage, `i:1700000000;s:9:"last_used";i:1795400000;s:7:"last_ip";s:12:"198.51.100.7";`, 1),
			wantChanged: true,
		},
		{
			name: "old last_used on the first entry is refreshed in place",
			meta: gapList, uuid: "11111111-1111-4111-8111-111111111111", now: now, ip: "::1",
			wantValue:   strings.Replace(gapList, `i:1600000100;s:7:"last_ip";s:11:"203.0.113.9";`, `i:1795400000;s:7:"last_ip";s:3:"::1";`, 1),
			wantChanged: true,
		},
		{
			name: "entry without usage fields gets them appended, as PHP does",
			meta: `a:1:{i:0;a:1:{s:4:"uuid";s:1:"u";}}`, uuid: "u", now: now, ip: "1.2.3.4",
			wantValue:   `a:1:{i:0;a:3:{s:4:"uuid";s:1:"u";s:9:"last_used";i:1795400000;s:7:"last_ip";s:7:"1.2.3.4";}}`,
			wantChanged: true,
		},
		{
			name: "numeric-string last_used counts as a number",
			meta: `a:1:{i:0;a:2:{s:4:"uuid";s:1:"u";s:9:"last_used";s:10:"1795399999";}}`, uuid: "u", now: now, ip: "x",
			wantValue: `a:1:{i:0;a:2:{s:4:"uuid";s:1:"u";s:9:"last_used";s:10:"1795399999";}}`,
		},
		{
			name: "unknown uuid is not found and nothing changes",
			meta: admin.meta, uuid: subscriber.uuid, now: now, ip: "x",
			wantValue: admin.meta, wantErr: ErrAppPasswordNotFound,
		},
		{
			name: "uuid match is exact, not case-insensitive",
			meta: admin.meta, uuid: strings.ToUpper(admin.uuid), now: now, ip: "x",
			wantValue: admin.meta, wantErr: ErrAppPasswordNotFound,
		},
		{
			name: "missing row has no entries",
			meta: "", uuid: admin.uuid, now: now, ip: "x",
			wantValue: "", wantErr: ErrAppPasswordNotFound,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, err := RecordAppPasswordUsage(tt.meta, tt.uuid, tt.now, tt.ip)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if changed != tt.wantChanged {
				t.Fatalf("changed = %v, want %v", changed, tt.wantChanged)
			}
			if got != tt.wantValue {
				t.Fatalf("value:\n got %s\nwant %s", got, tt.wantValue)
			}
		})
	}
	t.Run("corrupt serialized data is an error and is returned unchanged", func(t *testing.T) {
		const bad = `a:1:{i:0;a:1:{s:4:"uuid";}}`
		got, changed, err := RecordAppPasswordUsage(bad, "u", now, "x")
		if err == nil || errors.Is(err, ErrAppPasswordNotFound) || changed || got != bad {
			t.Fatalf("got %q, %v, %v", got, changed, err)
		}
	})
	t.Run("the updated entry still authenticates", func(t *testing.T) {
		got, _, err := RecordAppPasswordUsage(subscriber.meta, subscriber.uuid, now, "127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		entries, _ := ParseAppPasswords(got)
		if uuid, ok := MatchAppPassword(entries, subscriber.appPassword); !ok || uuid != subscriber.uuid {
			t.Fatalf("MatchAppPassword after recording = %q, %v", uuid, ok)
		}
		if entries[0].LastUsed == nil || *entries[0].LastUsed != now || entries[0].LastIP == nil || *entries[0].LastIP != "127.0.0.1" {
			t.Fatalf("usage not recorded: %+v", entries[0])
		}
	})
}

func TestNewAppPasswordEntry(t *testing.T) {
	uuidV4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	const now = int64(1800000000)
	tests := []struct {
		name       string
		meta       string
		wantPrefix string // existing bytes that must be kept verbatim
		wantKey    string // serialized key of the new entry
		wantCount  string
	}{
		{"missing row starts a new list at key 0", "", "", "i:0;", "a:1:{"},
		{"emptied list starts at key 0", "a:0:{}", "", "i:0;", "a:1:{"},
		{"non-array value is replaced by a new list, as in core", `s:3:"abc";`, "", "i:0;", "a:1:{"},
		{"existing list is kept and the entry appended at key 1", siteUsers[0].meta,
			strings.TrimSuffix(strings.TrimPrefix(siteUsers[0].meta, "a:1:{"), "}"), "i:1;", "a:2:{"},
		{"gap list appends after the largest key", gapList,
			strings.TrimSuffix(strings.TrimPrefix(gapList, "a:2:{"), "}"), "i:4;", "a:3:{"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, plain, uuid, err := NewAppPasswordEntry(tt.meta, "My App", now)
			if err != nil {
				t.Fatal(err)
			}
			if !uuidV4.MatchString(uuid) {
				t.Fatalf("uuid %q is not a lower-case v4 UUID", uuid)
			}
			wantEntry := tt.wantKey + `a:7:{s:4:"uuid";s:36:"` + uuid + `";s:6:"app_id";s:0:"";s:4:"name";s:6:"My App";s:8:"password";s:49:"` +
				HashAppPassword(plain) + `";s:7:"created";i:1800000000;s:9:"last_used";N;s:7:"last_ip";N;}`
			if want := tt.wantCount + tt.wantPrefix + wantEntry + "}"; got != want {
				t.Fatalf("value:\n got %s\nwant %s", got, want)
			}
			entries, err := ParseAppPasswords(got)
			if err != nil {
				t.Fatal(err)
			}
			if id, ok := MatchAppPassword(entries, ChunkAppPassword(plain)); !ok || id != uuid {
				t.Fatalf("new password does not authenticate as its entry: %q, %v", id, ok)
			}
		})
	}
	t.Run("empty name is refused", func(t *testing.T) {
		if _, _, _, err := NewAppPasswordEntry("", "", now); !errors.Is(err, ErrEmptyAppPasswordName) {
			t.Fatalf("error = %v, want ErrEmptyAppPasswordName", err)
		}
	})
	t.Run("corrupt serialized data is refused rather than overwritten", func(t *testing.T) {
		if _, _, _, err := NewAppPasswordEntry(`a:1:{i:0;`, "x", now); err == nil {
			t.Fatal("expected an error")
		}
	})
	t.Run("two entries get different secrets and uuids", func(t *testing.T) {
		v1, p1, u1, _ := NewAppPasswordEntry("", "a", now)
		_, p2, u2, _ := NewAppPasswordEntry(v1, "b", now)
		if p1 == p2 || u1 == u2 {
			t.Fatal("secrets or uuids repeat")
		}
	})
}
