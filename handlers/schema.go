package handlers

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
	"github.com/calendard/calendard/internal/wptext"
)

// Arguments WordPress core registers with a JSON schema (the wp/v2 controllers): they are validated by
// rest_validate_request_arg and sanitized by rest_sanitize_request_arg (or their own
// sanitize_callback), and described in OPTIONS answers and the index by the schema itself.

// SchemaArg is an argument with a JSON schema. sanitize, when not nil, is the argument's own
// sanitize_callback (absint, sanitize_text_field, sanitize_title, ...), which replaces the schema's.
func SchemaArg(name string, required bool, schema *phpjson.Object, sanitize func(any) any) *Arg {
	a := &Arg{Name: name, Required: required, Schema: schema,
		Validate: func(_ *Request, v any) error { return RestValidateValue(v, schema, name) },
		Sanitize: func(_ *Request, v any) (any, error) {
			if sanitize != nil {
				return sanitize(v), nil
			}
			return RestSanitizeValue(v, schema), nil
		}}
	a.Type = schemaString(schema, "type")
	if d, ok := schema.Get("description"); ok {
		a.Description, _ = d.(string)
	}
	if def, ok := schema.Get("default"); ok {
		a.HasDefault = true
		a.Default = func(*Request) any { return copyValue(def) }
	}
	return a
}

// copyValue copies a default that sanitizing could otherwise change in place for later requests.
func copyValue(v any) any {
	if l, ok := v.([]any); ok {
		return append([]any{}, l...)
	}
	return v
}

// Schema builds an ordered JSON schema from key/value pairs.
func Schema(kv ...any) *phpjson.Object { return phpjson.Obj(kv...) }

// StrList turns strings into a JSON list.
func StrList(items ...string) []any {
	out := make([]any, len(items))
	for i, s := range items {
		out[i] = s
	}
	return out
}

// Absint is WordPress' absint as a sanitize_callback.
func Absint(v any) any {
	n := php.Int(v)
	if n == math.MinInt64 {
		return int64(math.MaxInt64) // abs(PHP_INT_MIN) is a float past it; the nearest integer
	}
	if n < 0 {
		n = -n
	}
	return n
}

// SanitizeTextParam is sanitize_text_field as a sanitize_callback (non-strings are cast).
func SanitizeTextParam(v any) any {
	s, _ := php.String(v)
	return wptext.SanitizeTextField(s)
}

// SanitizeSlugParam is WP_REST_Controller::sanitize_slug (sanitize_title).
func SanitizeSlugParam(v any) any {
	s, _ := php.String(v)
	return wptext.SanitizeTitle(s)
}

var keyUnsafe = regexp.MustCompile(`[^a-z0-9_\-]`)

// SanitizeKeyParam is sanitize_key as a sanitize_callback.
func SanitizeKeyParam(v any) any {
	s, ok := php.String(v)
	if !ok {
		return ""
	}
	return keyUnsafe.ReplaceAllString(strings.ToLower(s), "")
}

// schemaKeywords are rest_get_allowed_schema_keywords: what a route description shows of a schema.
var schemaKeywords = map[string]bool{
	"title": true, "description": true, "default": true, "type": true, "format": true, "enum": true,
	"items": true, "properties": true, "additionalProperties": true, "patternProperties": true,
	"minProperties": true, "maxProperties": true, "minimum": true, "maximum": true,
	"exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true, "minLength": true,
	"maxLength": true, "pattern": true, "minItems": true, "maxItems": true, "uniqueItems": true,
	"anyOf": true, "oneOf": true,
}

// schemaArgData is get_data_for_route's view of a schema argument: its schema keywords in
// registration order, then "required".
func schemaArgData(a *Arg) *phpjson.Object {
	o := phpjson.NewObject()
	for _, k := range a.Schema.Keys() {
		if schemaKeywords[k] {
			v, _ := a.Schema.Get(k)
			o.Set(k, v)
		}
	}
	o.Set("required", a.Required)
	return o
}

func schemaGet(s *phpjson.Object, key string) any {
	v, _ := s.Get(key)
	return v
}

func schemaString(s *phpjson.Object, key string) string {
	v, _ := s.Get(key)
	str, _ := v.(string)
	return str
}

// RestIsArray is rest_is_array: a scalar is a comma or space separated list.
func RestIsArray(v any) bool {
	switch x := v.(type) {
	case []any:
		return true
	case *phpjson.Object:
		for _, k := range x.Keys() {
			if n, err := strconv.ParseInt(k, 10, 64); err != nil || strconv.FormatInt(n, 10) != k {
				return false
			}
		}
		return true
	case nil:
		return false
	}
	return true
}

var listSep = regexp.MustCompile(`[\s,]+`)

// RestSanitizeArray is rest_sanitize_array: wp_parse_list for scalars, the values otherwise.
func RestSanitizeArray(v any) []any {
	switch x := v.(type) {
	case []any, *phpjson.Object:
		return append([]any{}, php.List(x)...)
	case nil:
		return []any{}
	}
	s, _ := php.String(v)
	out := []any{}
	for _, part := range listSep.Split(s, -1) {
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

// RestIsObject is rest_is_object: an array, an object, or the empty string.
func RestIsObject(v any) bool {
	if s, ok := v.(string); ok {
		return s == ""
	}
	return php.IsArray(v)
}

// RestValidateValue is rest_validate_value_from_schema for the keywords the wp/v2 routes use: type
// (array with items, object, integer and number with bounds, string, boolean) and enum.
func RestValidateValue(v any, s *phpjson.Object, param string) error {
	typ := schemaString(s, "type")
	switch typ {
	case "array":
		if !RestIsArray(v) {
			return TypeError(param, "array")
		}
		if items, ok := s.Get("items"); ok {
			if is, ok := items.(*phpjson.Object); ok {
				for i, it := range RestSanitizeArray(v) {
					if err := RestValidateValue(it, is, fmt.Sprintf("%s[%d]", param, i)); err != nil {
						return err
					}
				}
			}
		}
	case "object":
		if !RestIsObject(v) {
			return TypeError(param, "object")
		}
	case "integer", "number":
		if _, isBool := v.(bool); isBool || !php.IsNumeric(v) {
			return TypeError(param, typ)
		}
		if err := restValidateBounds(php.Float(v), s, param); err != nil {
			return err
		}
		if typ == "integer" && !IsRESTInteger(v) {
			return TypeError(param, "integer")
		}
	case "string":
		if _, ok := v.(string); !ok {
			return TypeError(param, "string")
		}
	case "boolean":
		if !IsRESTBoolean(v) {
			return TypeError(param, "boolean")
		}
	}
	if enum, ok := s.Get("enum"); ok && !php.Empty(enum) {
		return restValidateEnum(v, s, php.List(enum), param)
	}
	return nil
}

// outOfBounds is rest_validate_number_value_from_schema's rest_out_of_bounds (no data).
func outOfBounds(msg string) error {
	return &calendard.Error{Code: "rest_out_of_bounds", Message: msg, HasRawData: true}
}

// restValidateBounds checks minimum and maximum (with their exclusive flags).
func restValidateBounds(f float64, s *phpjson.Object, param string) error {
	minV, hasMin := s.Get("minimum")
	maxV, hasMax := s.Get("maximum")
	exMin := hasMin && !php.Empty(schemaGet(s, "exclusiveMinimum"))
	exMax := hasMax && !php.Empty(schemaGet(s, "exclusiveMaximum"))
	lo, hi := php.Float(minV), php.Float(maxV)
	switch {
	case hasMin && !hasMax:
		if exMin && f <= lo {
			return outOfBounds(fmt.Sprintf("%s must be greater than %d", param, php.Int(minV)))
		}
		if !exMin && f < lo {
			return outOfBounds(fmt.Sprintf("%s must be greater than or equal to %d", param, php.Int(minV)))
		}
	case hasMax && !hasMin:
		if exMax && f >= hi {
			return outOfBounds(fmt.Sprintf("%s must be less than %d", param, php.Int(maxV)))
		}
		if !exMax && f > hi {
			return outOfBounds(fmt.Sprintf("%s must be less than or equal to %d", param, php.Int(maxV)))
		}
	case hasMin && hasMax:
		below := f < lo || (exMin && f == lo)
		above := f > hi || (exMax && f == hi)
		if below || above {
			word := func(ex bool) string {
				if ex {
					return "exclusive"
				}
				return "inclusive"
			}
			return outOfBounds(fmt.Sprintf("%s must be between %d (%s) and %d (%s)", param, php.Int(minV), word(exMin), php.Int(maxV), word(exMax)))
		}
	}
	return nil
}

// restValidateEnum is rest_validate_enum: the sanitized value must equal one of the values.
func restValidateEnum(v any, s *phpjson.Object, enum []any, param string) error {
	sv := RestSanitizeValue(v, s)
	for _, e := range enum {
		if restValuesEqual(sv, e) {
			return nil
		}
	}
	names := make([]string, len(enum))
	for i, e := range enum {
		names[i], _ = php.String(e)
	}
	if len(names) == 1 {
		return &calendard.Error{Code: "rest_not_in_enum", Message: fmt.Sprintf("%s is not %s.", param, names[0]), HasRawData: true}
	}
	return &calendard.Error{Code: "rest_not_in_enum", Message: fmt.Sprintf("%s is not one of %s.", param, SprintfList(names)), HasRawData: true}
}

// SprintfList is wp_sprintf's %l: "a", "a and b", "a, b, and c".
func SprintfList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	case 2:
		return items[0] + " and " + items[1]
	}
	return strings.Join(items[:len(items)-1], ", ") + ", and " + items[len(items)-1]
}

// restValuesEqual is rest_are_values_equal for scalars: strict, except integers equal floats.
func restValuesEqual(a, b any) bool {
	switch x := a.(type) {
	case int64, float64:
		switch b.(type) {
		case int, int64, float64:
			return php.Float(x) == php.Float(b)
		}
		return false
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	}
	return false
}

// RestSanitizeValue is rest_sanitize_value_from_schema for the same keywords.
func RestSanitizeValue(v any, s *phpjson.Object) any {
	switch schemaString(s, "type") {
	case "array":
		items := RestSanitizeArray(v)
		if is, ok := schemaGet(s, "items").(*phpjson.Object); ok {
			for i, it := range items {
				items[i] = RestSanitizeValue(it, is)
			}
		}
		return items
	case "integer":
		return php.Int(v)
	case "number":
		return php.Float(v)
	case "boolean":
		return RestBool(v)
	case "string":
		str, _ := php.String(v)
		return str
	}
	return v
}
