// Package search keeps a Meilisearch index of events, venues and organizers in step with the
// calendar and answers search and geo queries from it; see README "Search and geo".
package search

import _ "github.com/meilisearch/meilisearch-go"
