package wptext

import "testing"

// Benchmarks cover the per-event rendering done for every list item.
func BenchmarkContent(b *testing.B) {
	v := loadVectors(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rc := NewRenderContext(refHome)
		for _, c := range v.Content {
			Content(c.Raw, rc)
		}
	}
}

func BenchmarkTitleExcerptJSONLD(b *testing.B) {
	v := loadVectors(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, c := range v.JSONLDDescription {
			Title(c.Content)
			Excerpt(c.Excerpt)
			JSONLDDescription(c.Excerpt, c.Content)
		}
	}
}
