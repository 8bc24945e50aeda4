package handlers

// wp/v2 create and update of the calendar's post types (WP_REST_Posts_Controller::create_item and
// update_item as the plugin registers its types).

func (h *corePosts) writeArgs(update bool) []*Arg {
	if update {
		return []*Arg{coreIDArg()}
	}
	return nil
}

// createPermission is create_item_permissions_check.
func (h *corePosts) createPermission(r *Request) error { return nil }

// updatePermission is update_item_permissions_check.
func (h *corePosts) updatePermission(r *Request) error { return h.editPermission(r) }

func (h *corePosts) create(r *Request) (*Response, error) { return notYet(r) }

func (h *corePosts) update(r *Request) (*Response, error) { return notYet(r) }
