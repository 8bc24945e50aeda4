package strtotime

import (
	"testing"
	"time"
)

func BenchmarkParse(b *testing.B) {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		b.Fatal(err)
	}
	base := time.Unix(1795321765, 0)
	for _, in := range []string{"2027-03-03", "2027-03-03 10:00:00", "next wednesday 4pm", "last day of next month", "Thu, 21 Dec 2000 16:01:07 +0200", "2027-03-03T10:00:00.5+02:00"} {
		b.Run(in, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Parse(in, base, loc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
