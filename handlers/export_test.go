package handlers

import "github.com/calendard/calendard/internal/phpjson"

// What the external tests of /doc read of the server's internals.

// OpenAPI is the /doc document for r's namespace.
func (s *Server) OpenAPI(r *Request) *phpjson.Object { return s.openAPI(r) }

// Routes is the plugin namespaces' route table.
func (s *Server) Routes() []*Route { return s.routes }

var (
	OpenAPIPath         = openAPIPath
	DocOperations       = docOperations
	EndpointFor         = endpointFor
	DocServerURL        = docServerURL
	DocBodyWithReadArgs = docBodyWithReadArgs
	DocParameters       = docParameters
	DocRequestBody      = docRequestBody
)

// CollectionOf is the archive route an item route documents its creation under.
func (s *Server) CollectionOf(item *Route) *Route { return s.collectionOf(item) }
