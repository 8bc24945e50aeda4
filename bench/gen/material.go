package gen

// The generated calendar's fixed material: nine cities (one per time zone), the words venue,
// organizer and event names are made of, the category tree and tag words. Addresses and phone
// numbers are invented; web addresses use example domains.

type city struct {
	name, state, province, country, zone string
	symbol                               string // local currency symbol
	postfix                              bool   // the symbol follows the amount ("25 €")
	lat, lng                             float64
	phone                                string // prefix of invented phone numbers
	zip                                  string // zip format: '#' is a digit
	streets                              []string
}

// cities are the nine time zones of the calendar.
var cities = []city{
	{name: "New York", state: "NY", country: "United States", zone: "America/New_York", symbol: "$", lat: 40.7306, lng: -73.9866,
		phone: "+1 212-555-", zip: "100##", streets: []string{"Ludlow Street", "West 42nd Street", "Bleecker Street", "Atlantic Avenue", "Broadway"}},
	{name: "Chicago", state: "IL", country: "United States", zone: "America/Chicago", symbol: "$", lat: 41.8781, lng: -87.6298,
		phone: "+1 312-555-", zip: "606##", streets: []string{"North Milwaukee Avenue", "West Randolph Street", "South Michigan Avenue"}},
	{name: "San Francisco", state: "CA", country: "United States", zone: "America/Los_Angeles", symbol: "$", lat: 37.7749, lng: -122.4194,
		phone: "+1 415-555-", zip: "941##", streets: []string{"Valencia Street", "Mission Street", "Embarcadero", "Hayes Street"}},
	{name: "London", country: "United Kingdom", zone: "Europe/London", symbol: "£", lat: 51.5072, lng: -0.1276,
		phone: "+44 20 7946 ", zip: "EC# #XX", streets: []string{"Rivington Street", "Belvedere Road", "Brick Lane", "Upper Street"}},
	{name: "Berlin", country: "Germany", zone: "Europe/Berlin", symbol: "€", postfix: true, lat: 52.52, lng: 13.405,
		phone: "+49 30 2789 ", zip: "10###", streets: []string{"Schlesische Straße", "Kastanienallee", "Oranienstraße", "Torstraße"}},
	{name: "Tokyo", province: "Tokyo", country: "Japan", zone: "Asia/Tokyo", symbol: "¥", lat: 35.6762, lng: 139.6503,
		phone: "+81 3-5555-", zip: "150-00##", streets: []string{"Shibuya", "Jingumae", "Ebisu-Nishi", "Kanda-Jinbocho"}},
	{name: "Sydney", province: "NSW", country: "Australia", zone: "Australia/Sydney", symbol: "A$", lat: -33.8688, lng: 151.2093,
		phone: "+61 2 5550 ", zip: "20##", streets: []string{"George Street", "Oxford Street", "King Street", "Crown Street"}},
	{name: "Mumbai", province: "Maharashtra", country: "India", zone: "Asia/Kolkata", symbol: "₹", lat: 19.076, lng: 72.8777,
		phone: "+91 22 5555 ", zip: "4000##", streets: []string{"Linking Road", "Hill Road", "Marine Drive", "Colaba Causeway"}},
	{name: "São Paulo", province: "SP", country: "Brazil", zone: "America/Sao_Paulo", symbol: "R$", lat: -23.5558, lng: -46.6396,
		phone: "+55 11 5555-", zip: "01###-000", streets: []string{"Avenida Paulista", "Rua Augusta", "Rua Oscar Freire"}},
}

var venueWords = []string{"Riverside", "Harbour", "Old Mill", "Lantern", "Northgate", "Foundry", "Greenhouse", "Canal",
	"Granary", "Skyline", "Orchard", "Quarry", "Lighthouse", "Market", "Station", "Garden", "Meridian", "Copper"}
var venueKinds = []string{"Hall", "Theatre", "Studio", "Loft", "Gallery", "Arena", "Club", "Pavilion", "Commons",
	"Playhouse", "Warehouse", "Library", "Rooms", "Stage"}

var orgWords = []string{"Blue", "North", "Bright", "Open", "Silver", "Maple", "Harbor", "Little", "Grand", "Wild",
	"Civic", "Urban", "Golden", "Quiet", "Second", "Common"}
var orgNouns = []string{"Star", "Lantern", "River", "Circle", "Signal", "Field", "Bridge", "Compass", "Thread", "Stone",
	"Window", "Table"}
var orgKinds = []string{"Collective", "Productions", "Society", "Club", "Foundation", "Guild", "Works", "Association",
	"Events", "Partners"}

// category is one term of the tribe_events_cat tree; topics make the titles of its events.
type category struct {
	name, slug, description string
	parent                  int // index of the parent category, -1 for none
	topics                  []string
}

var categories = []category{
	{name: "Music", slug: "music", description: "Concerts and live music", parent: -1, topics: []string{"Live Music", "Songwriters", "Choir"}},
	{name: "Jazz", slug: "jazz", description: "Jazz nights", parent: 0, topics: []string{"Jazz", "Swing", "Bebop"}},
	{name: "Rock &amp; Pop", slug: "rock-pop", parent: 0, topics: []string{"Rock", "Indie", "Pop"}},
	{name: "Classical", slug: "classical", description: "Orchestras and chamber music", parent: 0, topics: []string{"Chamber Music", "String Quartet", "Organ"}},
	{name: "Arts", slug: "arts", description: "Visual and performing arts", parent: -1, topics: []string{"Art", "Illustration", "Photography"}},
	{name: "Theatre", slug: "theatre", parent: 4, topics: []string{"Improv", "Drama", "Comedy"}},
	{name: "Exhibitions", slug: "exhibitions", parent: 4, topics: []string{"Print", "Sculpture", "Design"}},
	{name: "Sports", slug: "sports", description: "Sporting events", parent: -1, topics: []string{"Football", "Climbing", "Yoga"}},
	{name: "Running", slug: "running", description: "Races and fun runs", parent: 7, topics: []string{"5K", "Trail Run", "Half Marathon"}},
	{name: "Cycling", slug: "cycling", parent: 7, topics: []string{"Cycling", "Gravel Ride", "Bike Repair"}},
	{name: "Technology", slug: "technology", description: "Tech and business conferences", parent: -1, topics: []string{"Cloud", "Open Source", "Security"}},
	{name: "Meetups", slug: "meetups", parent: 10, topics: []string{"Go", "Data", "Web Performance"}},
	{name: "Conferences", slug: "conferences", parent: 10, topics: []string{"DevOps", "Product", "AI"}},
	{name: "Food &amp; Drink", slug: "food-drink", parent: -1, topics: []string{"Wine", "Street Food", "Coffee"}},
	{name: "Tastings", slug: "tastings", parent: 13, topics: []string{"Cheese", "Craft Beer", "Olive Oil"}},
	{name: "Family", slug: "family", description: "For children and parents", parent: -1, topics: []string{"Family", "Puppet", "Story"}},
	{name: "Kids", slug: "kids", parent: 15, topics: []string{"Lego", "Science", "Dance"}},
	{name: "Community", slug: "community", parent: -1, topics: []string{"Neighbourhood", "Volunteer", "Repair Café"}},
	{name: "Education", slug: "education", description: "<b>Hands-on</b> sessions", parent: -1, topics: []string{"Language", "History", "Writing"}},
	{name: "Workshops", slug: "workshops", parent: 18, topics: []string{"Pottery", "Woodwork", "Sketching"}},
	{name: "Talks", slug: "talks", parent: 18, topics: []string{"Architecture", "Economics", "Astronomy"}},
}

var seasons = []string{"Spring", "Summer", "Autumn", "Winter", "Friday", "Sunday", "Late", "Open", "Grand", "Little",
	"Monthly", "Annual", "Community", "Evening", "Morning", "Neighbourhood"}

// eventKinds end event titles; searchWord is rare on purpose (search= in the mix).
var eventKinds = []string{"Night", "Meetup", "Workshop", "Festival", "Session", "Showcase", "Fair", "Evening", "Concert",
	"Class", "Tour", "Market", "Summit", "Jam", "Lecture", "Gala", "Weekend", "Social"}

// searchWord appears in the titles of about 1% of the events and nowhere else.
const searchWord = "Masterclass"

var tagWords = []string{"outdoor", "indoor", "free entry", "family friendly", "accessible", "late night", "weekend",
	"online", "beginner", "advanced", "networking", "live", "hands-on", "all ages", "18+", "students", "seniors",
	"charity", "premiere", "festival", "summer", "winter", "rooftop", "riverside", "bilingual", "vegan", "wine",
	"kids", "book club", "photography", "open air", "sold out soon", "members", "workshop", "talk", "dj", "acoustic",
	"jam", "market", "tour"}

var tagQualifiers = []string{"series", "club", "week", "night", "special", "edition", "circle", "lab", "corner", "hour"}

var paragraphs = []string{
	"Join us for an evening of good company and great conversation. Doors open thirty minutes before the start.",
	"Tickets are limited, so please register early. Members get a discount at the door.",
	"We will have refreshments, a short introduction from the organisers and plenty of time to meet other attendees.",
	"The venue is step-free and has accessible toilets. Let us know in advance if you need anything else.",
	"Bring a friend, bring your questions, and bring your curiosity. No previous experience is required.",
	"Children under twelve go free when accompanied by an adult. Strollers can be left in the cloakroom.",
	"The programme runs in two parts with a break in between. Food trucks will be parked outside.",
	"Speakers include local practitioners and guests from abroad; slides will be shared after the session.",
	"Please note that the schedule may change slightly on the day. Follow our page for updates.",
	"Everyone is welcome. Our code of conduct applies to all attendees, speakers and volunteers.",
}

var listItems = []string{"Welcome and introductions", "Main programme", "Questions and answers", "Networking",
	"Closing remarks", "Live demonstrations", "Open floor"}

var costs = []string{"Free", "10", "25", "100", "12.99", "15,50", "5 - 50", "10-20", "15", "40", "0", "8 – 12"}
