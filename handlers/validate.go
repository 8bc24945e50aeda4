package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
)

// checkParams runs WP_REST_Request::has_valid_params then sanitize_params: the JSON body check, the
// required check, every validate_callback on raw values (defaults included), then type coercion or
// the custom sanitizer on every source. The first failing stage answers.
func (r *Request) checkParams() error {
	if r.jsonErr != nil {
		return &calendard.Error{Code: "rest_invalid_json", Message: "Invalid JSON body passed.", Status: 400,
			Data: []calendard.KV{{Key: "json_error_code", Value: r.jsonErr.Code}, {Key: "json_error_message", Value: r.jsonErr.Message}}}
	}
	args := r.Endpoint.Args
	var missing []any
	for _, a := range args {
		if _, ok := r.Param(a.Name); a.Required && !ok {
			missing = append(missing, a.Name)
		}
	}
	if len(missing) > 0 {
		names := make([]string, len(missing))
		for i, m := range missing {
			names[i] = m.(string)
		}
		return &calendard.Error{Code: "rest_missing_callback_param", Status: 400,
			Message: "Missing parameter(s): " + strings.Join(names, ", "),
			Data:    []calendard.KV{{Key: "params", Value: missing}}}
	}

	invalid := phpjson.NewObject()
	details := phpjson.NewObject()
	note := func(name string, err error) {
		var e *calendard.Error
		if errors.As(err, &e) {
			invalid.Set(name, e.Message)
			details.Set(name, errorData(e))
			return
		}
		invalid.Set(name, "Invalid parameter.")
	}
	for _, a := range args {
		v, ok := r.Param(a.Name)
		if !ok || a.Validate == nil {
			continue
		}
		if err := a.Validate(r, v); err != nil {
			var e *calendard.Error
			if !errors.Is(err, ErrInvalid) && !errors.As(err, &e) {
				return err // the lookup behind the check failed (the database), not the parameter
			}
			note(a.Name, err)
		}
	}
	if invalid.Len() > 0 {
		return InvalidParams(invalid, details)
	}

	byName := map[string]*Arg{}
	for _, a := range args {
		byName[a.Name] = a
	}
	for _, src := range r.Sources() {
		for _, k := range src.Keys() {
			a := byName[k]
			if a == nil || (a.Sanitize == nil && a.Type == "") {
				continue
			}
			v, _ := src.Get(k)
			var (
				out any
				err error
			)
			if a.Sanitize != nil {
				out, err = a.Sanitize(r, v)
			} else {
				out, err = Coerce(a.Name, a.Type, v)
			}
			if err != nil {
				note(k, err)
				continue
			}
			r.setParam(src, k, out)
		}
	}
	if invalid.Len() > 0 {
		return InvalidParams(invalid, details)
	}
	return nil
}

// InvalidParams is WordPress' 400 rest_invalid_param naming the invalid parameters and their details.
func InvalidParams(invalid, details *phpjson.Object) *calendard.Error {
	return &calendard.Error{Code: "rest_invalid_param", Status: 400,
		Message: "Invalid parameter(s): " + strings.Join(invalid.Keys(), ", "),
		Data:    []calendard.KV{{Key: "params", Value: invalid}, {Key: "details", Value: details}}}
}

// errorData is rest_convert_error_to_response()->get_data() for a detail entry.
func errorData(e *calendard.Error) *phpjson.Object {
	if e.HasRawData {
		return phpjson.Obj("code", e.Code, "message", e.Message, "data", e.RawData)
	}
	data := phpjson.NewObject()
	if e.Status != 0 {
		data.Set("status", e.Status)
	}
	for _, kv := range e.Data {
		data.Set(kv.Key, kv.Value)
	}
	return phpjson.Obj("code", e.Code, "message", e.Message, "data", data)
}

// TypeError is rest_validate_value_from_schema's rest_invalid_type.
func TypeError(param, typ string) *calendard.Error {
	return &calendard.Error{Code: "rest_invalid_type", Message: fmt.Sprintf("%s is not of type %s.", param, typ),
		Data: []calendard.KV{{Key: "param", Value: param}}}
}

// Coerce is rest_parse_request_arg for the scalar types the plugin declares.
func Coerce(param, typ string, v any) (any, error) {
	switch typ {
	case "integer":
		if !IsRESTInteger(v) {
			return nil, TypeError(param, "integer")
		}
		return php.Int(v), nil
	case "boolean":
		if !IsRESTBoolean(v) {
			return nil, TypeError(param, "boolean")
		}
		return RestBool(v), nil
	case "string":
		if _, ok := v.(string); !ok {
			return nil, TypeError(param, "string")
		}
		return v, nil
	case "number":
		if !php.IsNumeric(v) {
			return nil, TypeError(param, "number")
		}
		return php.Float(v), nil
	}
	return v, nil
}

// IsRESTInteger is rest_is_integer: numeric and integral.
func IsRESTInteger(v any) bool {
	if _, isBool := v.(bool); isBool || !php.IsNumeric(v) {
		return false
	}
	f := php.Float(v)
	return math.Round(f) == f
}

// IsRESTBoolean is rest_is_boolean.
func IsRESTBoolean(v any) bool {
	switch x := v.(type) {
	case bool:
		return true
	case string:
		switch strings.ToLower(x) {
		case "false", "true", "0", "1":
			return true
		}
	case json.Number:
		return x == "0" || x == "1"
	}
	return false
}

// RestBool is rest_sanitize_boolean.
func RestBool(v any) bool {
	if s, ok := v.(string); ok {
		switch strings.ToLower(s) {
		case "false", "0", "":
			return false
		}
		return true
	}
	return !php.Empty(v)
}
