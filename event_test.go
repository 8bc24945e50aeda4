package calendard

import (
	"reflect"
	"testing"
)

func TestParseSearch(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []SearchTerm
	}{
		{"single word", "festival", []SearchTerm{{Text: "festival"}}},
		{"words split on spaces, commas and plus", "a,b+jazz night", []SearchTerm{{Text: "jazz"}, {Text: "night"}}},
		{"stop words dropped in multi-word searches", "the moon", []SearchTerm{{Text: "moon"}}},
		{"lone stop word searched as typed", "the", []SearchTerm{{Text: "the"}}},
		{"lone letter searched as typed", "a", []SearchTerm{{Text: "a"}}},
		{"quoted phrase stays whole", `"world hello" x`, []SearchTerm{{Text: "world hello"}}},
		{"minus excludes", "hello -loudly", []SearchTerm{{Text: "hello"}, {Text: "loudly", Exclude: true}}},
		{"unbalanced quote is dropped", `"Night`, []SearchTerm{{Text: "Night"}}},
		{"quoted single word", `"Night"`, []SearchTerm{{Text: "Night"}}},
		{"non-ASCII words", "Café crème", []SearchTerm{{Text: "Café"}, {Text: "crème"}}},
		{"more than nine terms become one sentence", "aa bb cc dd ee ff gg hh ii jj",
			[]SearchTerm{{Text: "aa bb cc dd ee ff gg hh ii jj"}}},
		{"newlines are removed", "jazz\nnight", []SearchTerm{{Text: "jazznight"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseSearch(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseSearch(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestTermTreeWithDescendants(t *testing.T) {
	tree := NewTermTree([]*Term{{ID: 2}, {ID: 3, Parent: 2}, {ID: 4, Parent: 2}, {ID: 9, Parent: 4}, {ID: 5}, {ID: 7, Parent: 7}})
	tests := []struct {
		name string
		in   []int64
		want []int64
	}{
		{"parent includes children and grandchildren", []int64{2}, []int64{2, 3, 4, 9}},
		{"leaf is itself", []int64{9}, []int64{9}},
		{"duplicates are merged", []int64{4, 2}, []int64{4, 9, 2, 3}},
		{"a self-parented term does not loop", []int64{7}, []int64{7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tree.WithDescendants(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
