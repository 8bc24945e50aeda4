package handlers

// termsHandler serves /categories and /tags (the plugin's wrappers around WordPress' terms controller).
type termsHandler struct {
	taxonomy     string
	kind         string // "category" or "tag"
	plural       string // route segment
	hierarchical bool
}

// listArgs are the archive parameters of the term lists.
func (h *termsHandler) listArgs() []*Arg { return nil }

// idArg is the path parameter of the single-term route.
func (h *termsHandler) idArg() *Arg { return termIDArg(h.kind) }

func (h *termsHandler) list(*Request) (*Response, error) { return notImplemented(nil) }

func (h *termsHandler) get(*Request) (*Response, error) { return notImplemented(nil) }
