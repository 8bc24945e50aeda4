package calendard

import (
	"testing"

	"github.com/calendard/calendard/internal/phpserial"
)

// roles mirrors the capability grants TEC installs (reference wordpress-auth.md §4.4).
func testRoles() map[string]Role {
	full := func(x string) []string {
		return []string{"read", "read_private_" + x, "edit_" + x, "edit_others_" + x, "edit_private_" + x, "edit_published_" + x,
			"delete_" + x, "delete_others_" + x, "delete_private_" + x, "delete_published_" + x, "publish_" + x}
	}
	mk := func(caps ...string) Role {
		r := Role{Capabilities: map[string]bool{}}
		for _, c := range caps {
			r.Capabilities[c] = true
		}
		return r
	}
	return map[string]Role{
		"editor":      mk(append(full("tribe_events"), "manage_categories", "edit_posts")...),
		"author":      mk("read", "edit_tribe_events", "edit_published_tribe_events", "delete_tribe_events", "delete_published_tribe_events", "publish_tribe_events", "edit_posts"),
		"contributor": mk("read", "edit_tribe_events", "delete_tribe_events", "edit_posts"),
		"subscriber":  mk("read"),
	}
}

func userWith(id int64, role string, extra ...KV) *User {
	roles, caps := BuildCaps(testRoles(), append([]KV{{Key: role, Value: true}}, extra...))
	return &User{ID: id, Roles: roles, Caps: caps}
}

func TestBuildCapsPerUserOverrides(t *testing.T) {
	u := userWith(9, "subscriber", KV{Key: "edit_tribe_events", Value: true})
	if !u.Can("edit_tribe_events") || !u.Can("read") || !u.Can("subscriber") {
		t.Errorf("per-user grant missing: %v", u.Caps)
	}
	u = userWith(9, "subscriber", KV{Key: "read", Value: false})
	if u.Can("read") {
		t.Error("per-user false must remove the role's read")
	}
	roles, _ := BuildCaps(testRoles(), []KV{{Key: "nosuchrole", Value: true}})
	if len(roles) != 0 {
		t.Errorf("unknown keys are capabilities, not roles: %v", roles)
	}
	// Stored flags are PHP values: (bool) of "0", 0, "" and an empty array is false.
	for _, v := range []any{"0", int64(0), "", phpserial.NewArray(), nil} {
		roles, caps := BuildCaps(testRoles(), []KV{{Key: "editor", Value: v}})
		if len(roles) != 0 || len(caps) != 0 {
			t.Errorf("role flag %#v grants %v %v, want nothing", v, roles, caps)
		}
	}
}

// The decision table of wordpress-auth.md §4.4 (edit/delete/read), as printed by WordPress' user_can.
func TestMetaCapabilitiesMatchWordPress(t *testing.T) {
	const own, other = 7, 8
	cases := []struct {
		role, status, trashedFrom string
		author                    int64
		want                      string // edit, delete, read as Y/N
	}{
		{"editor", "draft", "", other, "YYY"},
		{"author", "publish", "", own, "YYY"},
		{"author", "publish", "", other, "NNY"},
		{"author", "future", "", other, "NNN"},
		{"author", "draft", "", own, "YYY"},
		{"author", "private", "", other, "NNN"},
		{"author", "trash", "publish", own, "YYY"},
		{"contributor", "publish", "", own, "NNY"},
		{"contributor", "future", "", own, "NNY"},
		{"contributor", "draft", "", own, "YYY"},
		{"contributor", "pending", "", own, "YYY"},
		{"contributor", "private", "", own, "YYY"},
		{"contributor", "trash", "publish", own, "NNY"},
		{"contributor", "trash", "draft", own, "YYY"},
		{"contributor", "draft", "", other, "NNN"},
		{"subscriber", "publish", "", own, "NNY"},
		{"subscriber", "draft", "", own, "NNY"},
		{"subscriber", "draft", "", other, "NNN"},
	}
	yn := func(b bool) string {
		if b {
			return "Y"
		}
		return "N"
	}
	for _, c := range cases {
		t.Run(c.role+" "+c.status+" "+map[bool]string{true: "own", false: "other"}[c.author == own]+" gives "+c.want, func(t *testing.T) {
			u := userWith(own, c.role)
			p := &PostRef{ID: 1, Type: PostTypeEvent, Status: c.status, Author: c.author, TrashedFrom: c.trashedFrom}
			got := yn(u.CanEditPost(p)) + yn(u.CanDeletePost(p)) + yn(u.CanReadPost(p))
			if got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
	t.Run("anonymous cannot even read a published post", func(t *testing.T) {
		if Anonymous.CanReadPost(&PostRef{ID: 1, Type: PostTypeEvent, Status: "publish", Author: 1}) {
			t.Error("anonymous has no read capability")
		}
	})
}
