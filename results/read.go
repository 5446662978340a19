package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
)

// ResultsPath is path, or the results.json inside it when it is a folder (a run's --out), as
// every command that reads results takes them.
func ResultsPath(path string) string {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return filepath.Join(path, "results.json")
	}
	return path
}

// ReadResults reads a results file of replay or of bench scan --json (path, or the results.json
// in the folder path) with DecodeResults. The error is one line that starts with the file.
func ReadResults(path string) (*Results, error) {
	path = ResultsPath(path)
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r, err := DecodeResults(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// ReadReport reads the results of a replay run as ReadResults does; the results of bench scan
// are an error.
func ReadReport(path string) (*Report, error) {
	r, err := ReadResults(path)
	if err != nil {
		return nil, err
	}
	if r.Report == nil {
		return nil, fmt.Errorf("%s: /schema: %q, not the results of replay (%q)", ResultsPath(path), BenchSchema, Schema)
	}
	return r.Report, nil
}

// strictDecode decodes one JSON value into v: a member v has no field for, and anything but
// white space after the value, are errors that name their byte offset.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if strings.HasPrefix(err.Error(), "json: unknown field ") {
			if where, ok := unknownMember(data, reflect.TypeOf(v)); ok {
				return errors.New(where)
			}
		}
		return jsonError(err)
	}
	end := dec.InputOffset()
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
		return fmt.Errorf("byte %d: data after the end of the JSON value", int64(len(data)-len(rest)))
	}
	return nil
}

// jsonError names the place of a JSON error: the byte offset, and the member for a type error.
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("byte %d: %v", syn.Offset, err)
	case errors.As(err, &typ):
		return fmt.Errorf("byte %d: member %q: %s where %s was expected", typ.Offset, typ.Field, typ.Value, typ.Type)
	}
	return err
}

// unknownMember finds the first member of data that type t has no field for and says where it
// is: `byte 120: member "cases.arms.colour": unknown`. ok is false when it finds none.
func unknownMember(data []byte, t reflect.Type) (where string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var path []string
	found := func(name string) bool {
		where = fmt.Sprintf("byte %d: member %q: unknown", dec.InputOffset()-int64(len(name))-2, strings.Join(append(path, name), "."))
		return true
	}
	var walk func(t reflect.Type) (bool, error)
	walk = func(t reflect.Type) (bool, error) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
			t = reflect.TypeFor[any]() // decodes itself
		}
		tok, err := dec.Token()
		if err != nil {
			return false, err
		}
		delim, isDelim := tok.(json.Delim)
		if !isDelim {
			return false, nil
		}
		switch {
		case delim == '[':
			for dec.More() {
				elem := reflect.TypeFor[any]()
				if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
					elem = t.Elem()
				}
				if hit, err := walk(elem); hit || err != nil {
					return hit, err
				}
			}
		case delim == '{':
			for dec.More() {
				key, err := dec.Token()
				if err != nil {
					return false, err
				}
				name, _ := key.(string)
				field, known := memberType(t, name)
				if !known {
					return found(name), nil
				}
				path = append(path, name)
				hit, err := walk(field)
				path = path[:len(path)-1]
				if hit || err != nil {
					return hit, err
				}
			}
		}
		_, err = dec.Token() // the closing delimiter
		return false, err
	}
	hit, err := walk(t)
	return where, hit && err == nil
}

// memberType is the type of the member called name of a value of type t, as encoding/json
// decodes it (tags, promoted fields of embedded structs, names matched without case); known is
// false when t is a struct with no field for it. Values of other types take any member.
func memberType(t reflect.Type, name string) (field reflect.Type, known bool) {
	switch t.Kind() {
	case reflect.Map:
		return t.Elem(), true
	case reflect.Struct:
	default:
		return reflect.TypeFor[any](), true
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && tag == "" && ft.Kind() == reflect.Struct {
			if inner, ok := memberType(ft, name); ok {
				return inner, true
			}
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		if strings.EqualFold(tag, name) {
			return f.Type, true
		}
	}
	return nil, false
}
