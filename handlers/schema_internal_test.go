package handlers

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/phpjson"
)

// TestRestValidateValue checks rest_validate_value_from_schema's answers (code and message) for the
// keywords the wp/v2 routes use.
func TestRestValidateValue(t *testing.T) {
	ints := Schema("type", "array", "items", Schema("type", "integer"))
	perPage := Schema("type", "integer", "minimum", int64(1), "maximum", int64(100))
	tests := []struct {
		name   string
		schema *phpjson.Object
		value  any
		code   string // "" when valid
		msg    string
	}{
		{"a numeric string is an integer", perPage, "5", "", ""},
		{"a JSON number is an integer", perPage, json.Number("100"), "", ""},
		{"above the maximum is out of bounds", perPage, "101", "rest_out_of_bounds", "p must be between 1 (inclusive) and 100 (inclusive)"},
		{"bounds come before the integer check", perPage, "0.5", "rest_out_of_bounds", "p must be between 1 (inclusive) and 100 (inclusive)"},
		{"a fraction inside the bounds is not an integer", perPage, "2.5", "rest_invalid_type", "p is not of type integer."},
		{"a word is not an integer", perPage, "abc", "rest_invalid_type", "p is not of type integer."},
		{"a boolean is not an integer", perPage, true, "rest_invalid_type", "p is not of type integer."},
		{"minimum alone", Schema("type", "integer", "minimum", int64(1)), "0", "rest_out_of_bounds", "p must be greater than or equal to 1"},
		{"exclusive maximum alone", Schema("type", "integer", "maximum", int64(5), "exclusiveMaximum", true), "5", "rest_out_of_bounds", "p must be less than 5"},
		{"exclusive bounds", Schema("type", "integer", "minimum", int64(1), "exclusiveMinimum", true, "maximum", int64(5)), "1", "rest_out_of_bounds",
			"p must be between 1 (exclusive) and 5 (inclusive)"},
		{"a CSV string is an array", ints, "3, 5,7", "", ""},
		{"items are checked with their index", ints, "3,x", "rest_invalid_type", "p[1] is not of type integer."},
		{"an object with numeric keys is an array", ints, phpjson.Obj("0", "3", "7", "4"), "", ""},
		{"an object with a word key is not an array", ints, phpjson.Obj("a", "3"), "rest_invalid_type", "p is not of type array."},
		{"enum of two", Schema("type", "string", "enum", StrList("asc", "desc")), "up", "rest_not_in_enum", "p is not one of asc and desc."},
		{"enum of three", Schema("type", "string", "enum", StrList("view", "embed", "edit")), "EDIT", "rest_not_in_enum", "p is not one of view, embed, and edit."},
		{"enum of one", Schema("type", "string", "enum", StrList("post_tag")), "tag", "rest_not_in_enum", "p is not post_tag."},
		{"enum member", Schema("type", "string", "enum", StrList("asc", "desc")), "desc", "", ""},
		{"a number is not a string", Schema("type", "string"), json.Number("1"), "rest_invalid_type", "p is not of type string."},
		{"booleans accept 0/1/true/false strings", Schema("type", "boolean"), "FALSE", "", ""},
		{"other strings are not booleans", Schema("type", "boolean"), "yes", "rest_invalid_type", "p is not of type boolean."},
		{"the empty string is an object", Schema("type", "object"), "", "", ""},
		{"a word is not an object", Schema("type", "object"), "x", "rest_invalid_type", "p is not of type object."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := RestValidateValue(tc.value, tc.schema, "p")
			if tc.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *calendard.Error
			if !errors.As(err, &e) {
				t.Fatalf("err %v, want %s", err, tc.code)
			}
			if e.Code != tc.code || e.Message != tc.msg {
				t.Errorf("%s %q, want %s %q", e.Code, e.Message, tc.code, tc.msg)
			}
		})
	}
}

// TestRestSanitizeValue checks rest_sanitize_value_from_schema's conversions.
func TestRestSanitizeValue(t *testing.T) {
	tests := []struct {
		name   string
		schema *phpjson.Object
		value  any
		want   any
	}{
		{"integers from strings", Schema("type", "integer"), "42", int64(42)},
		{"booleans from strings", Schema("type", "boolean"), "false", false},
		{"strings from numbers", Schema("type", "string"), json.Number("7"), "7"},
		{"arrays from lists split on commas and spaces", Schema("type", "array", "items", Schema("type", "integer")), "5, 3 9", []any{int64(5), int64(3), int64(9)}},
		{"arrays from objects keep the values", Schema("type", "array", "items", Schema("type", "string")), phpjson.Obj("0", "a", "1", "b"), []any{"a", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := RestSanitizeValue(tc.value, tc.schema); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

// TestSchemaArgDataShowsSchemaKeywords: route descriptions show a schema argument's keywords in
// registration order (context, readonly and callbacks are not keywords) and whether it is required.
func TestSchemaArgDataShowsSchemaKeywords(t *testing.T) {
	a := SchemaArg("orderby", false, Schema("description", "Sort.", "type", "string", "context", StrList("view"),
		"default", "name", "enum", StrList("id", "name")), nil)
	got, err := phpjson.Marshal(schemaArgData(a))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"description":"Sort.","type":"string","default":"name","enum":["id","name"],"required":false}`
	if string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
