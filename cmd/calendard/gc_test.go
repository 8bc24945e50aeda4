package main

import (
	"runtime/debug"
	"testing"
)

func TestGCPercentIsFortyUnlessGOGCIsSet(t *testing.T) {
	was := debug.SetGCPercent(100)
	defer debug.SetGCPercent(was)
	for _, tc := range []struct {
		name, gogc string
		want       int
	}{
		{"unset GOGC gives the default", "", defaultGCPercent},
		{"a set GOGC is left to the runtime", "200", 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			setGCPercent(func(k string) string {
				if k == "GOGC" {
					return tc.gogc
				}
				return ""
			})
			if got := debug.SetGCPercent(100); got != tc.want {
				t.Fatalf("GC percent %d, want %d", got, tc.want)
			}
		})
	}
}
