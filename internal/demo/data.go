package demo

// The demo calendar's fixed material: cities, venues, organizers, the category tree, tags and the
// kinds of events. Names are invented; addresses and coordinates are plausible places in real
// cities, phone numbers use reserved or fictional ranges and web addresses use example domains.

// city is where venues are; its zone becomes the timezone of the events there.
type city struct {
	name     string
	state    string // US state (the plugin stores it as State and derives StateProvince from it)
	province string // province, region or state outside the US
	country  string
	zone     string
	// currency formats an amount the way the city writes prices ("$25", "25 €"); scale turns a
	// price in euros into a typical amount of that currency.
	symbol  string
	postfix bool
	scale   float64
}

var cities = []city{
	{name: "Berlin", country: "Germany", zone: "Europe/Berlin", symbol: "€", postfix: true, scale: 1},
	{name: "London", country: "United Kingdom", zone: "Europe/London", symbol: "£", scale: 0.9},
	{name: "Paris", province: "Île-de-France", country: "France", zone: "Europe/Paris", symbol: "€", postfix: true, scale: 1},
	{name: "Lisbon", country: "Portugal", zone: "Europe/Lisbon", symbol: "€", postfix: true, scale: 0.8},
	{name: "New York", state: "NY", country: "United States", zone: "America/New_York", symbol: "$", scale: 1.1},
	{name: "Chicago", state: "IL", country: "United States", zone: "America/Chicago", symbol: "$", scale: 1},
	{name: "San Francisco", state: "CA", country: "United States", zone: "America/Los_Angeles", symbol: "$", scale: 1.2},
	{name: "Toronto", province: "Ontario", country: "Canada", zone: "America/Toronto", symbol: "CA$", scale: 1.5},
	{name: "Mexico City", province: "CDMX", country: "Mexico", zone: "America/Mexico_City", symbol: "MX$", scale: 18},
	{name: "São Paulo", province: "SP", country: "Brazil", zone: "America/Sao_Paulo", symbol: "R$", scale: 5},
	{name: "Cape Town", province: "Western Cape", country: "South Africa", zone: "Africa/Johannesburg", symbol: "R", scale: 18},
	{name: "Mumbai", province: "Maharashtra", country: "India", zone: "Asia/Kolkata", symbol: "₹", scale: 80},
	{name: "Singapore", country: "Singapore", zone: "Asia/Singapore", symbol: "S$", scale: 1.4},
	{name: "Tokyo", province: "Tokyo", country: "Japan", zone: "Asia/Tokyo", symbol: "¥", scale: 150},
	{name: "Sydney", province: "NSW", country: "Australia", zone: "Australia/Sydney", symbol: "A$", scale: 1.6},
	{name: "Auckland", country: "New Zealand", zone: "Pacific/Auckland", symbol: "NZ$", scale: 1.7},
	{name: "Reykjavík", country: "Iceland", zone: "Atlantic/Reykjavik", symbol: "kr", postfix: true, scale: 140},
}

// cityIndex returns the index of a city by name (the tables below refer to cities by name).
func cityIndex(name string) int {
	for i, c := range cities {
		if c.name == name {
			return i
		}
	}
	panic("demo: unknown city " + name)
}

type venue struct {
	name, city, address, zip, phone, website, description string
	lat, lng                                              float64
	// short is how event titles refer to the venue.
	short string
}

var venues = []venue{
	{name: "Spreeufer Konzerthaus", short: "Spreeufer", city: "Berlin", address: "Schlesische Straße 38", zip: "10997",
		phone: "+49 30 2789 4410", website: "https://spreeufer-konzerthaus.example.de", lat: 52.4996, lng: 13.4467,
		description: "A former riverside warehouse turned concert hall, with a 900-capacity main room and a terrace over the Spree."},
	{name: "Atelierhof Prenzlauer Berg", short: "Atelierhof", city: "Berlin", address: "Kastanienallee 77", zip: "10435",
		phone: "+49 30 4403 1187", website: "https://atelierhof.example.de", lat: 52.5390, lng: 13.4090,
		description: "Courtyard studios and a daylight gallery in a 19th-century brewery building."},
	{name: "Southbank Assembly Rooms", short: "Southbank", city: "London", address: "48 Belvedere Road", zip: "SE1 8XX",
		phone: "+44 20 7946 0321", website: "https://southbank-assembly.example.co.uk", lat: 51.5045, lng: -0.1160,
		description: "Three flexible rooms on the Thames, step-free throughout, five minutes from Waterloo."},
	{name: "Shoreditch Works", short: "Shoreditch Works", city: "London", address: "12 Rivington Street", zip: "EC2A 3DT",
		phone: "+44 20 7946 0877", website: "https://shoreditch-works.example.co.uk", lat: 51.5265, lng: -0.0800,
		description: "A co-working loft that turns into a meetup and workshop space in the evenings."},
	{name: "La Halle aux Idées", short: "La Halle", city: "Paris", address: "21 Rue de la Roquette", zip: "75011",
		phone: "+33 1 70 36 42 18", website: "https://halle-aux-idees.example.fr", lat: 48.8550, lng: 2.3740,
		description: "Market hall of 1898, now a venue for talks, screenings and tastings near Bastille."},
	{name: "Armazém do Tejo", short: "Armazém", city: "Lisbon", address: "Rua da Cintura do Porto 14", zip: "1200-109",
		phone: "+351 21 555 0142", website: "https://armazem-tejo.example.pt", lat: 38.7060, lng: -9.1490,
		description: "Dockside warehouse with river views, known for its long tables and late concerts."},
	{name: "Lower East Side Playhouse", short: "LES Playhouse", city: "New York", address: "154 Ludlow Street", zip: "10002",
		phone: "+1 212-555-0147", website: "https://les-playhouse.example.com", lat: 40.7210, lng: -73.9880,
		description: "A 220-seat black box theatre with a bar that stays open after the show."},
	{name: "Riverside Conference Center", short: "Riverside Center", city: "New York", address: "350 W 42nd Street", zip: "10036",
		phone: "+1 212-555-0193", website: "https://riverside-cc.example.com", lat: 40.7580, lng: -73.9920,
		description: "Conference floors with a 600-seat auditorium and twelve breakout rooms in Midtown."},
	{name: "Lakeshore Jazz Cellar", short: "Jazz Cellar", city: "Chicago", address: "1210 N Wells Street", zip: "60610",
		phone: "+1 312-555-0199", website: "https://lakeshore-jazz.example.com", lat: 41.9040, lng: -87.6340,
		description: "Basement club with a Steinway, candlelit tables and two sets a night."},
	{name: "Mission Bay Innovation Hub", short: "Mission Bay Hub", city: "San Francisco", address: "455 Mission Bay Blvd S", zip: "94158",
		phone: "+1 415-555-0110", website: "https://missionbay-hub.example.com", lat: 37.7700, lng: -122.3910,
		description: "Event floor and labs of a university innovation campus, next to the T Third line."},
	{name: "Presidio Meadow Stage", short: "Presidio Meadow", city: "San Francisco", address: "Main Post Lawn", zip: "94129",
		phone: "+1 415-555-0168", website: "https://presidio-meadow.example.com", lat: 37.8000, lng: -122.4590,
		description: "Open-air stage on a lawn with views of the bay; bring a blanket."},
	{name: "Distillery Lane Gallery", short: "Distillery Lane", city: "Toronto", address: "55 Mill Street", zip: "M5A 3C4",
		phone: "+1 416-555-0132", website: "https://distillery-lane.example.ca", lat: 43.6503, lng: -79.3596,
		description: "Brick-and-timber gallery in the old distillery district."},
	{name: "Foro Roma Norte", short: "Foro Roma", city: "Mexico City", address: "Calle Colima 145, Roma Norte", zip: "06700",
		phone: "+52 55 5555 0183", website: "https://fororoma.example.mx", lat: 19.4180, lng: -99.1600,
		description: "Art deco cinema restored as a forum for film, music and food."},
	{name: "Galpão Vila Madalena", short: "Galpão", city: "São Paulo", address: "Rua Aspicuelta 220", zip: "05433-010",
		phone: "+55 11 5555-0164", website: "https://galpao-vm.example.com.br", lat: -23.5560, lng: -46.6900,
		description: "Industrial shed with a garden, home to samba nights and design markets."},
	{name: "Harbour Light Theatre", short: "Harbour Light", city: "Cape Town", address: "19 Dock Road, V&A Waterfront", zip: "8001",
		phone: "+27 21 555 0175", website: "https://harbourlight.example.co.za", lat: -33.9050, lng: 18.4190,
		description: "Waterfront theatre with Table Mountain behind the stage door."},
	{name: "Kala Ghoda Arts Terrace", short: "Kala Ghoda Terrace", city: "Mumbai", address: "8 Rampart Row, Fort", zip: "400001",
		phone: "+91 22 5555 0190", website: "https://kalaghoda-terrace.example.in", lat: 18.9280, lng: 72.8320,
		description: "Rooftop terrace and gallery rooms in the heart of the arts district."},
	{name: "Tanjong Pagar Makers Loft", short: "Makers Loft", city: "Singapore", address: "31 Tanjong Pagar Road", zip: "088454",
		phone: "+65 5555 0121", website: "https://makersloft.example.sg", lat: 1.2790, lng: 103.8440,
		description: "Shophouse loft with workbenches, a laser cutter and a café downstairs."},
	{name: "Shibuya Sound Lab", short: "Sound Lab", city: "Tokyo", address: "2-14-5 Dogenzaka, Shibuya-ku", zip: "150-0043",
		phone: "+81 3-5555-0126", website: "https://soundlab.example.jp", lat: 35.6580, lng: 139.6970,
		description: "Listening bar and live room with a hand-built sound system."},
	{name: "Harbourside Pavilion", short: "Harbourside", city: "Sydney", address: "2 Circular Quay West, The Rocks", zip: "2000",
		phone: "+61 2 5555 0148", website: "https://harbourside-pavilion.example.com.au", lat: -33.8590, lng: 151.2090,
		description: "Glass pavilion on the quay, facing the Opera House."},
	{name: "Waitematā Boathouse", short: "Boathouse", city: "Auckland", address: "90 Quay Street", zip: "1010",
		phone: "+64 9 555 0137", website: "https://boathouse.example.co.nz", lat: -36.8440, lng: 174.7680,
		description: "Restored rowing club on the harbour, with a deck for sunset sessions."},
	{name: "Grandi Harbour Hall", short: "Grandi Hall", city: "Reykjavík", address: "Grandagarður 2", zip: "101",
		phone: "+354 555 0119", website: "https://grandi-hall.example.is", lat: 64.1530, lng: -21.9500,
		description: "Former fish-processing hall in the old harbour, now concerts and exhibitions."},
}

type organizer struct {
	name, city, email, phone, website, description string
}

var organizers = []organizer{
	{name: "Spreeufer Collective", city: "Berlin", email: "hello@spreeufer.example.de", phone: "+49 30 2789 4411",
		website: "https://collective.spreeufer.example.de", description: "Independent promoters of live music and club culture in Berlin."},
	{name: "Southbank Arts Trust", city: "London", email: "events@southbank-trust.example.org.uk", phone: "+44 20 7946 0455",
		website: "https://southbank-trust.example.org.uk", description: "A charity bringing theatre, talks and film to the South Bank."},
	{name: "Rive Gauche Cinéclub", city: "Paris", email: "bonjour@cineclub.example.fr", phone: "+33 1 70 36 42 90",
		website: "https://cineclub.example.fr", description: "Weekly screenings of classics and new independent cinema."},
	{name: "Hudson River Run Club", city: "New York", email: "run@hudsonrun.example.com", phone: "+1 646-555-0172",
		website: "https://hudsonrun.example.com", description: "Free group runs for every pace, rain or shine."},
	{name: "Lakeshore Jazz Society", city: "Chicago", email: "info@lakeshorejazz.example.org", phone: "+1 312-555-0114",
		website: "https://lakeshorejazz.example.org", description: "Keeping Chicago's jazz clubs full since 1987."},
	{name: "Pacific Code Guild", city: "San Francisco", email: "organizers@pacificcode.example.dev", phone: "+1 415-555-0186",
		website: "https://pacificcode.example.dev", description: "Community meetups, workshops and an annual conference for software people."},
	{name: "Maple & Pixel Studio", city: "Toronto", email: "studio@maplepixel.example.ca", phone: "+1 416-555-0155",
		website: "https://maplepixel.example.ca", description: "Design studio running exhibitions and hands-on workshops."},
	{name: "Cidade Viva Produções", city: "São Paulo", email: "contato@cidadeviva.example.com.br", phone: "+55 11 5555-0177",
		website: "https://cidadeviva.example.com.br", description: "Festivals, markets and street culture across São Paulo."},
	{name: "Cape Film Society", city: "Cape Town", email: "screenings@capefilm.example.org.za", phone: "+27 21 555 0102",
		website: "https://capefilm.example.org.za", description: "Film club with open-air screenings every summer."},
	{name: "Kala Ghoda Heritage Walks", city: "Mumbai", email: "walks@kalaghoda.example.in", phone: "+91 22 5555 0135",
		website: "https://kalaghoda-walks.example.in", description: "Guided walks through Mumbai's architecture and history."},
	{name: "Maker Futures Singapore", city: "Singapore", email: "hello@makerfutures.example.sg", phone: "+65 5555 0168",
		website: "https://makerfutures.example.sg", description: "Workshops on electronics, fabrication and repair."},
	{name: "Tokyo Indie Games Circle", city: "Tokyo", email: "contact@indiegames.example.jp", phone: "+81 3-5555-0199",
		website: "https://indiegames.example.jp", description: "Playtests, game jams and talks by independent developers."},
	{name: "Harbour City Festivals", city: "Sydney", email: "team@harbourfest.example.com.au", phone: "+61 2 5555 0101",
		website: "https://harbourfest.example.com.au", description: "Sydney's waterfront festival office."},
	{name: "Nordic Light Collective", city: "Reykjavík", email: "ljos@nordiclight.example.is", phone: "+354 555 0188",
		website: "https://nordiclight.example.is", description: "Artists working with light, sound and long winter nights."},
	{name: "Green Table Food Co-op", city: "", email: "hello@greentable.example.org", phone: "+44 20 7946 0990",
		website: "https://greentable.example.org", description: "A network of food co-ops hosting tastings and markets in many cities."},
}

// category is a top-level category and its children.
type category struct {
	name, description string
	children          []string
}

var categories = []category{
	{"Music", "Concerts, club nights and everything with a stage and speakers.", []string{"Concerts", "Jazz & Blues", "Classical", "Club Nights"}},
	{"Arts & Culture", "Exhibitions, theatre and film.", []string{"Exhibitions", "Theatre", "Film Screenings"}},
	{"Technology", "Conferences, meetups and hands-on workshops for people who build software and hardware.", []string{"Conferences", "Meetups", "Workshops"}},
	{"Food & Drink", "Tastings, markets and long dinners.", []string{"Tastings", "Markets"}},
	{"Sports & Outdoors", "Runs, rides and walks.", []string{"Running", "Cycling", "Guided Walks"}},
	{"Community", "Free and family events, volunteering.", []string{"Family", "Volunteering"}},
}

var tagNames = []string{
	"Family Friendly", "Outdoor", "Free Entry", "Wheelchair Accessible", "Beginner Friendly", "Networking",
	"Live Music", "Vegetarian Options", "Early Bird", "Limited Seats", "Open Air", "Evening", "Weekend",
	"Hands-on", "Livestream",
}

// kind describes events of one child category: how they are named, when they start, how long they
// last and what they cost.
type kind struct {
	category string   // child category name
	titles   []string // "%s" is replaced by a name from fill, "{city}"/"{venue}" by the place
	fill     []string
	hours    []string // start times "HH:MM"
	minutes  [2]int   // duration range for timed events, in minutes
	allDay   float64  // probability of an all-day event
	multiDay float64  // probability of a multi-day event
	days     [2]int   // extra days of a multi-day event
	free     float64  // probability the event is free
	price    [2]int   // price range in euros (scaled to the city's currency)
	tags     []string // tags that fit
	weight   int      // how common the kind is
	online   bool     // may happen online (no venue, livestream)
	blurb    []string // description sentences
}

var kinds = []kind{
	{category: "Concerts", weight: 10, titles: []string{"%s in Concert", "%s – Album Release Show", "%s Live at {venue}", "An Evening with %s"},
		fill:  []string{"The Velvet Tides", "Northern Static", "Luna Park Orchestra", "Paper Lanterns", "Kite & Compass", "Marisol Vega", "The Quiet Engines", "Saltwater Choir"},
		hours: []string{"19:30", "20:00", "20:30", "21:00"}, minutes: [2]int{90, 180}, free: 0.05, price: [2]int{18, 65},
		tags: []string{"Live Music", "Evening", "Limited Seats", "Early Bird"},
		blurb: []string{"Doors open an hour before the first set.", "Support act to be announced.", "Standing room downstairs, limited seating on the balcony.",
			"The band plays the new record in full, followed by a set of favourites."}},
	{category: "Jazz & Blues", weight: 7, titles: []string{"Late Night Jazz Session", "Blues Jam with %s", "Sunday Jazz Brunch", "%s Trio", "Jazz at {venue}"},
		fill:  []string{"Odette Marsh", "The Blue Hour Quartet", "Cal Okafor", "Rosa Lindqvist", "The Low Tide Brass Band"},
		hours: []string{"11:00", "20:00", "21:30", "22:00"}, minutes: [2]int{90, 150}, free: 0.15, price: [2]int{10, 35},
		tags: []string{"Live Music", "Evening", "Weekend"},
		blurb: []string{"Two sets, with a short break for the bar.", "Musicians are welcome to bring their instruments for the open jam after the break.",
			"Tables are first come, first served."}},
	{category: "Classical", weight: 5, titles: []string{"Chamber Music Evening: %s", "Piano Recital – %s Sonatas", "String Quartet Series: %s", "Lunchtime Concert: %s"},
		fill:  []string{"Beethoven", "Schubert", "Clara Schumann", "Debussy", "Fanny Mendelssohn", "Ravel", "Bach"},
		hours: []string{"12:30", "19:00", "19:30"}, minutes: [2]int{60, 120}, free: 0.1, price: [2]int{15, 80},
		tags: []string{"Live Music", "Evening", "Wheelchair Accessible"},
		blurb: []string{"Programme notes are available online a week before the concert.", "Latecomers are admitted between pieces.",
			"A short introduction by the performers precedes the concert."}},
	{category: "Club Nights", weight: 5, titles: []string{"Warehouse Night: %s", "Vinyl Only with %s", "%s All Night Long", "Sunrise Session"},
		fill:  []string{"DJ Halcyon", "Mira K", "Tomo Arai", "Selector Bea", "Okonkwo b2b Laine"},
		hours: []string{"22:00", "23:00"}, minutes: [2]int{300, 420}, free: 0.05, price: [2]int{12, 30},
		tags:  []string{"Live Music", "Evening", "Weekend"},
		blurb: []string{"Over 18s only; bring ID.", "No photos on the dance floor.", "Last entry two hours before close."}},
	{category: "Exhibitions", weight: 5, titles: []string{"Exhibition: %s", "%s – Group Show", "Opening Night: %s"},
		fill:  []string{"Light Over Water", "Cities of Paper", "The Weight of Colour", "New Ceramics", "Northern Portraits", "Archive of Small Things"},
		hours: []string{"10:00", "18:00"}, minutes: [2]int{180, 240}, allDay: 0.7, multiDay: 0.6, days: [2]int{6, 40}, free: 0.45, price: [2]int{5, 15},
		tags: []string{"Family Friendly", "Wheelchair Accessible", "Free Entry"},
		blurb: []string{"The exhibition brings together work by twelve artists.", "Guided tours run every Saturday at 3 pm.",
			"Admission is free for students and under 18s.", "The catalogue is available at the front desk."}},
	{category: "Theatre", weight: 5, titles: []string{"%s", "%s (Preview)", "%s – Closing Night"},
		fill:  []string{"The Glass Harbour", "A Winter's Errand", "Twelve Chairs", "The Lighthouse Keepers", "Small Hours", "Midsummer on the Roof"},
		hours: []string{"14:30", "19:30", "20:00"}, minutes: [2]int{90, 170}, free: 0.02, price: [2]int{20, 70},
		tags:  []string{"Evening", "Limited Seats", "Wheelchair Accessible"},
		blurb: []string{"Running time includes one interval.", "Suitable for ages 12 and up.", "Captioned performance available on Thursdays."}},
	{category: "Film Screenings", weight: 5, titles: []string{"Open-Air Cinema: %s", "Documentary Night: %s", "%s + Q&A with the Director", "Cinéclub: %s"},
		fill:  []string{"The Long Coast", "Harvest Moon", "City Without Cars", "The Last Ferry", "Salt & Iron", "Paper Birds"},
		hours: []string{"18:30", "19:00", "20:30", "21:00"}, minutes: [2]int{100, 170}, free: 0.3, price: [2]int{6, 15}, online: true,
		tags:  []string{"Open Air", "Evening", "Family Friendly", "Livestream"},
		blurb: []string{"Original version with subtitles.", "Deck chairs are provided; blankets recommended.", "The screening is followed by a conversation with the filmmakers."}},
	{category: "Conferences", weight: 4, titles: []string{"{city} Cloud Summit", "Frontend Forward {city}", "DataConf {city}", "Open Hardware Days", "%s Conference"},
		fill:  []string{"Accessibility", "Platform Engineering", "Product Design", "Open Source Maintainers"},
		hours: []string{"09:00", "09:30"}, minutes: [2]int{420, 540}, allDay: 0.15, multiDay: 0.7, days: [2]int{1, 2}, free: 0.05, price: [2]int{120, 450}, online: true,
		tags: []string{"Networking", "Early Bird", "Wheelchair Accessible", "Livestream"},
		blurb: []string{"Two tracks of talks, hallway track included.", "Lunch and coffee are included in the ticket.", "All talks are recorded and published after the event.",
			"The call for papers closes six weeks before the conference."}},
	{category: "Meetups", weight: 9, titles: []string{"Go Meetup {city}", "Rust & Coffee", "Product Design Meetup", "Open Source Evening", "%s Meetup {city}"},
		fill:  []string{"Kubernetes", "Python", "Game Dev", "Data Science", "Indie Hackers", "WordPress"},
		hours: []string{"18:00", "18:30", "19:00"}, minutes: [2]int{120, 180}, free: 0.85, price: [2]int{5, 10}, online: true,
		tags:  []string{"Networking", "Beginner Friendly", "Evening", "Livestream"},
		blurb: []string{"Two short talks, then pizza and conversation.", "Lightning talk slots are still open – get in touch.", "Newcomers welcome; no experience required."}},
	{category: "Workshops", weight: 6, titles: []string{"Hands-on %s Workshop", "Intro to %s", "Weekend Bootcamp: %s"},
		fill:  []string{"Kubernetes", "Soldering", "Accessibility Testing", "Screen Printing", "Woodworking", "Arduino", "Figma"},
		hours: []string{"09:30", "10:00", "13:00"}, minutes: [2]int{180, 420}, multiDay: 0.1, days: [2]int{1, 1}, free: 0.2, price: [2]int{30, 180},
		tags:  []string{"Hands-on", "Beginner Friendly", "Limited Seats"},
		blurb: []string{"All materials are provided.", "Bring a laptop with the tools from the setup guide installed.", "Places are limited to twelve participants."}},
	{category: "Tastings", weight: 5, titles: []string{"Natural Wine Tasting", "Craft Beer Flight", "Single-Origin Coffee Cupping", "%s Tasting Dinner"},
		fill:  []string{"Olive Oil", "Cheese & Cider", "Regional", "Street Food", "Chocolate"},
		hours: []string{"17:00", "18:30", "19:00"}, minutes: [2]int{90, 180}, free: 0.05, price: [2]int{25, 90},
		tags:  []string{"Vegetarian Options", "Limited Seats", "Evening"},
		blurb: []string{"Six pours with small plates.", "Please tell us about allergies when you book.", "Hosted by the producers themselves."}},
	{category: "Markets", weight: 5, titles: []string{"Night Market", "Farmers' Market", "Weekend Makers Market", "Vintage & Vinyl Fair", "%s Market"},
		fill:  []string{"Winter", "Spring", "Design", "Flea"},
		hours: []string{"08:00", "10:00", "17:00"}, minutes: [2]int{240, 360}, allDay: 0.6, multiDay: 0.3, days: [2]int{1, 2}, free: 0.9, price: [2]int{2, 5},
		tags:  []string{"Free Entry", "Family Friendly", "Outdoor", "Weekend", "Vegetarian Options"},
		blurb: []string{"Over sixty stalls of local producers and makers.", "Dogs on a lead are welcome.", "Cash and cards accepted at most stalls."}},
	{category: "Running", weight: 5, titles: []string{"Sunrise 10K", "Community 5K", "{city} Half Marathon", "Trail Run: %s", "Run Club"},
		fill:  []string{"The Ridge Loop", "Harbour to Hills", "Riverside Path"},
		hours: []string{"06:30", "07:00", "08:00"}, minutes: [2]int{60, 300}, free: 0.6, price: [2]int{15, 60},
		tags:  []string{"Outdoor", "Beginner Friendly", "Free Entry", "Weekend"},
		blurb: []string{"All paces welcome; nobody runs alone.", "Bag drop at the start line.", "Timing chips are included with registration."}},
	{category: "Cycling", weight: 3, titles: []string{"Gravel Ride: %s", "Bike Repair Café", "Critical Mass", "Night Ride"},
		fill:  []string{"Coastal Loop", "Forest Roads", "Three Bridges"},
		hours: []string{"08:00", "10:00", "19:00"}, minutes: [2]int{120, 300}, free: 0.7, price: [2]int{10, 40},
		tags:  []string{"Outdoor", "Hands-on", "Free Entry"},
		blurb: []string{"Helmets required.", "Route files are shared the day before.", "Volunteer mechanics on hand for repairs."}},
	{category: "Guided Walks", weight: 4, titles: []string{"Architecture Walk: %s", "Street Art Tour", "History Walk: %s", "Night Walk Through %s"},
		fill:  []string{"The Old Harbour", "Modernist Blocks", "Hidden Courtyards", "The Market Quarter"},
		hours: []string{"10:00", "11:00", "15:00", "19:30"}, minutes: [2]int{90, 150}, free: 0.35, price: [2]int{8, 25},
		tags:  []string{"Outdoor", "Family Friendly", "Beginner Friendly"},
		blurb: []string{"The walk covers about four kilometres at an easy pace.", "Meet at the venue's main entrance.", "Tours run in English; other languages on request."}},
	{category: "Family", weight: 4, titles: []string{"Family Science Day", "Kids' Coding Club", "Storytelling Afternoon", "Family Day: %s"},
		fill:  []string{"Dinosaurs", "Robots", "Space", "Ocean Life"},
		hours: []string{"10:00", "14:00", "15:00"}, minutes: [2]int{90, 240}, allDay: 0.45, free: 0.6, price: [2]int{4, 12},
		tags:  []string{"Family Friendly", "Free Entry", "Weekend", "Hands-on"},
		blurb: []string{"Recommended for ages 5 to 12.", "Children must be accompanied by an adult.", "Snacks and drinks available."}},
	{category: "Volunteering", weight: 3, titles: []string{"Beach Clean-up", "Community Garden Day", "Tree Planting", "Repair Café"},
		hours: []string{"09:00", "10:00"}, minutes: [2]int{180, 300}, allDay: 0.5, free: 1,
		tags:  []string{"Outdoor", "Free Entry", "Family Friendly"},
		blurb: []string{"Gloves and tools are provided.", "Lunch for all volunteers.", "No experience needed – just come along."}},
}

// closings are description paragraphs any event may end with.
var closings = []string{
	"Tickets are available online and at the door while they last.",
	"The venue is step-free; contact us if you need assistance.",
	"Follow the organizers for updates and last-minute changes.",
	"Please arrive fifteen minutes early.",
}
