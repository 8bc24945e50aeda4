package phpserial

import (
	"os"
	"strings"
	"testing"
)

// fixturePath is the reference site's database dump inside this module.
const fixturePath = "../../compat-tests/testdata/site-a/fixture.sql"

// TestRoundTripEveryFixtureValue decodes and re-encodes every serialized
// value in the reference dump (options, user meta, post meta, Action
// Scheduler objects, ...) and requires identical bytes.
func TestRoundTripEveryFixtureValue(t *testing.T) {
	raw, err := os.ReadFile(fixturePath)
	if err != nil {
		t.Fatalf("reference dump not available: %v", err)
	}
	count := 0
	for _, lit := range sqlStringLiterals(string(raw)) {
		if !IsSerialized(lit) {
			continue
		}
		count++
		v, err := Unmarshal(lit)
		if err != nil {
			t.Errorf("Unmarshal(%.80q...) error: %v", lit, err)
			continue
		}
		out, err := Marshal(v)
		if err != nil {
			t.Errorf("Marshal of %.80q... error: %v", lit, err)
			continue
		}
		if out != lit {
			t.Errorf("round trip changed %.80q...", lit)
		}
	}
	// The dump holds a couple of hundred serialized values; finding far
	// fewer would mean the literal scanner broke, not that all is well.
	t.Logf("round-tripped %d serialized values", count)
	if count < 100 {
		t.Fatalf("found only %d serialized values in the dump", count)
	}
}

// sqlStringLiterals returns the contents of every '...' literal in a
// mysqldump file, with MySQL backslash escapes undone.
func sqlStringLiterals(dump string) []string {
	var out []string
	for i := 0; i < len(dump); i++ {
		if dump[i] != '\'' {
			continue
		}
		var b strings.Builder
		j := i + 1
		for ; j < len(dump) && dump[j] != '\''; j++ {
			c := dump[j]
			if c == '\\' && j+1 < len(dump) {
				j++
				switch dump[j] {
				case '0':
					c = 0
				case 'n':
					c = '\n'
				case 'r':
					c = '\r'
				case 't':
					c = '\t'
				case 'Z':
					c = 0x1a
				default:
					c = dump[j]
				}
			}
			b.WriteByte(c)
		}
		out = append(out, b.String())
		i = j
	}
	return out
}
