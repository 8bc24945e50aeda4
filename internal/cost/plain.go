package cost

// Plain is tribe_get_cost($event_id) without the currency symbol: the formatted cost of the
// `_EventCost` rows ("5 – 50", "15,50", "Free"), "" when there is none. The plugin re-saves it as the
// event's cost after every wp/v2 update.
func Plain(rows []string) string {
	return formatted(rows, "", "", DefaultSettings(), false)
}
