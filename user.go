package calendard

import "github.com/calendard/calendard/internal/phpserial"

// User is an authenticated WordPress user with the capabilities WordPress computes for them.
// The zero value (ID 0) is the anonymous visitor, who has no capability at all (not even "read").
type User struct {
	ID    int64
	Login string
	Email string
	Roles []string
	// Caps is WordPress' allcaps: role capabilities merged in role order, then the user's own
	// grants/denials from the prefixed "capabilities" usermeta, then the role keys themselves.
	Caps map[string]bool
}

// Anonymous is the visitor without credentials.
var Anonymous = &User{}

// LoggedIn reports whether the user is authenticated.
func (u *User) LoggedIn() bool { return u != nil && u.ID != 0 }

// Can reports whether the user holds a primitive capability ("exist" is implied for everyone).
func (u *User) Can(cap string) bool {
	if cap == "exist" {
		return true
	}
	if u == nil || cap == "do_not_allow" {
		return false
	}
	return u.Caps[cap]
}

// Role is a role definition from the {prefix}user_roles option.
type Role struct {
	Name         string
	Capabilities map[string]bool
}

// BuildCaps computes allcaps the way WP_User::get_role_caps does: capability maps of the user's roles
// in order, then per-user entries on top (later keys win, so a per-user false removes a grant).
// userCaps holds the decoded {prefix}capabilities usermeta in stored order.
func BuildCaps(roles map[string]Role, userCaps []KV) (roleNames []string, caps map[string]bool) {
	caps = map[string]bool{}
	for _, kv := range userCaps {
		if r, ok := roles[kv.Key]; ok && phpserial.ToBool(kv.Value) {
			roleNames = append(roleNames, kv.Key)
			for c, g := range r.Capabilities {
				caps[c] = g
			}
		}
	}
	for _, kv := range userCaps {
		caps[kv.Key] = phpserial.ToBool(kv.Value)
	}
	for k, v := range caps {
		if !v {
			delete(caps, k)
		}
	}
	return roleNames, caps
}

// PostTypeCaps are the capability names a TEC post type was registered with (capability_type pair
// and map_meta_cap).
type PostTypeCaps struct {
	Edit, EditOthers, EditPrivate, EditPublished         string
	Delete, DeleteOthers, DeletePrivate, DeletePublished string
	Publish, ReadPrivate                                 string
}

func capsFor(plural string) PostTypeCaps {
	return PostTypeCaps{
		Edit: "edit_" + plural, EditOthers: "edit_others_" + plural, EditPrivate: "edit_private_" + plural,
		EditPublished: "edit_published_" + plural, Delete: "delete_" + plural, DeleteOthers: "delete_others_" + plural,
		DeletePrivate: "delete_private_" + plural, DeletePublished: "delete_published_" + plural,
		Publish: "publish_" + plural, ReadPrivate: "read_private_" + plural,
	}
}

// CapsOf returns the capability names of a post type; unknown types use the core "posts" names.
func CapsOf(postType string) PostTypeCaps {
	switch postType {
	case PostTypeEvent:
		return capsFor("tribe_events")
	case PostTypeVenue:
		return capsFor("tribe_venues")
	case PostTypeOrganizer:
		return capsFor("tribe_organizers")
	case "page":
		return capsFor("pages")
	default:
		return capsFor("posts")
	}
}

// PostRef is what map_meta_cap needs to know about a post.
type PostRef struct {
	ID     int64
	Type   string
	Status string
	Author int64
	// TrashedFrom is the _wp_trash_meta_status meta of a trashed post (its status before trashing).
	TrashedFrom string
}

// CanEditPost is the edit_post meta capability (wp-includes/capabilities.php map_meta_cap).
func (u *User) CanEditPost(p *PostRef) bool { return u.allOf(u.metaCap(p, "edit")) }

// CanDeletePost is the delete_post meta capability.
func (u *User) CanDeletePost(p *PostRef) bool { return u.allOf(u.metaCap(p, "delete")) }

// CanReadPost is the read_post meta capability.
func (u *User) CanReadPost(p *PostRef) bool {
	if p == nil {
		return false
	}
	own := p.Author != 0 && u != nil && p.Author == u.ID
	switch {
	case p.Status == "publish" || own:
		return u.Can("read")
	case p.Status == "private":
		return u.Can(CapsOf(p.Type).ReadPrivate)
	case !IsRegisteredStatus(p.Status):
		return u.Can("edit_others_posts")
	default:
		return u.CanEditPost(p)
	}
}

func (u *User) allOf(caps []string) bool {
	for _, c := range caps {
		if !u.Can(c) {
			return false
		}
	}
	return true
}

// metaCap maps edit_post/delete_post to primitive capabilities.
func (u *User) metaCap(p *PostRef, action string) []string {
	if p == nil {
		return []string{"do_not_allow"}
	}
	c := CapsOf(p.Type)
	pick := func(edit, del string) string {
		if action == "edit" {
			return edit
		}
		return del
	}
	status := p.Status
	own := p.Author != 0 && u != nil && p.Author == u.ID
	if own {
		if status == "publish" || status == "future" ||
			(status == "trash" && (p.TrashedFrom == "publish" || p.TrashedFrom == "future")) {
			return []string{pick(c.EditPublished, c.DeletePublished)}
		}
		return []string{pick(c.Edit, c.Delete)}
	}
	caps := []string{pick(c.EditOthers, c.DeleteOthers)}
	if status == "publish" || status == "future" {
		caps = append(caps, pick(c.EditPublished, c.DeletePublished))
	}
	if status == "private" {
		caps = append(caps, pick(c.EditPrivate, c.DeletePrivate))
	}
	return caps
}
