package collation

import "testing"

func BenchmarkLikeFold(b *testing.B) {
	text := "Ein Abend mit Kammermusik im Großen Saal – Beethoven, Schubert & Fauré. Café geöffnet ab 18 Uhr."
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		LikeFold(text)
	}
}

func BenchmarkCompare(b *testing.B) {
	keys := []string{"_EventStartDate", "_EventStartDateUTC", "_EventEndDate", "_EventVenueID", "Café Müller", "cafe muller", "event-slug-12345", "event-slug-12346"}
	Compare("a", "b") // reads the table
	for b.Loop() {
		for _, x := range keys {
			for _, y := range keys {
				Compare(x, y)
			}
		}
	}
}
