package handlers

// doc is GET /{ns}/doc: the OpenAPI document of the routes calendard serves.
func (s *Server) doc(*Request) (*Response, error) { return notImplemented(nil) }
