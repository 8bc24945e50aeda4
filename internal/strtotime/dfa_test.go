package strtotime

import (
	"math/rand"
	"regexp"
	"testing"
)

// referenceMatch is the scanner step written directly with one leftmost-
// longest regexp per rule: the longest match wins, ties go to the earlier
// rule. The DFA must agree with it everywhere.
var referenceRules = func() (out [numRules]*regexp.Regexp) {
	for i, src := range ruleDefs {
		out[i] = regexp.MustCompile(`^(?:` + src + `)`)
		out[i].Longest()
	}
	return out
}()

func referenceMatch(src string) (ruleID, int) {
	best, bestLen := ruleID(-1), 0
	for id, re := range referenceRules {
		if loc := re.FindStringIndex(src); loc != nil && loc[1] > bestLen {
			best, bestLen = ruleID(id), loc[1]
		}
	}
	return best, bestLen
}

func TestDFAMatchesRegexps(t *testing.T) {
	inputs := append(append([]string{}, diffCorpus...), generateInputs(rand.New(rand.NewSource(42)), 3000)...)
	inputs = append(inputs, "\xff\xfe", "\xc2", "\xc2\xa0\xc2\xa0x", "1 \xc2\xb5s", "1 \xc2\xb5S", "1 \xce\xbcs", "10\xe2\x80\xafpm")
	checked := 0
	for _, in := range inputs {
		src := in + padding
		for pos := 0; pos < len(in); pos++ {
			wantID, wantLen := referenceMatch(src[pos:])
			gotID, gotLen := scanner().match(src[pos:])
			checked++
			if gotID != wantID || (wantID >= 0 && gotLen != wantLen) {
				t.Fatalf("%q at %d: dfa rule %d len %d, regexps rule %d len %d", in, pos, gotID, gotLen, wantID, wantLen)
			}
		}
	}
	t.Logf("%d positions checked, %d DFA states", checked, len(scanner().states))
}
