package calendard

import "context"

// GeoService finds venues by their coordinates (_VenueLat/_VenueLng), as the plugin's paid edition
// (Events Calendar Pro) does for its geoloc filters.
type GeoService interface {
	// VenuesWithCoordinates returns the IDs of the venues whose coordinates are numbers.
	VenuesWithCoordinates(ctx context.Context) ([]int64, error)
	// VenuesNear returns the IDs of the venues within radiusKM of the point, nearest first.
	VenuesNear(ctx context.Context, lat, lng, radiusKM float64) ([]int64, error)
}
