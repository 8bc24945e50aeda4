package collation

import "testing"

func BenchmarkLikeFold(b *testing.B) {
	text := "Ein Abend mit Kammermusik im Großen Saal – Beethoven, Schubert & Fauré. Café geöffnet ab 18 Uhr."
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		LikeFold(text)
	}
}
