package handlers

// settingsArgs are the writable settings of POST /wp/v2/settings.
func settingsArgs() []*Arg { return nil }

// settingsUpdate is WP_REST_Settings_Controller::update_item.
func settingsUpdate(r *Request) (*Response, error) { return notYet(r) }
