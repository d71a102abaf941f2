package settings

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/tailscale/hujson"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// ErrInvalid is wrapped by every Error: a settings file that cannot be
// used as written.
var ErrInvalid = errors.New("invalid settings")

// Error is one problem in a settings file. Its text is one line:
//
//	FILE:LINE:COL: FIELD: what is wrong; what is allowed
type Error struct {
	File      string // as given to Parse; "" for flags
	Line, Col int    // 1-based; 0 when the problem is not at one place
	Field     string // dotted path ("permissions.allow[2]"); "" for the file as a whole
	Msg       string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	// One line, whatever a key or a quoted value held.
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(b.String())
}

func (e *Error) Unwrap() error { return ErrInvalid }

// Parse reads one settings file's contents. file names it in errors.
// The text is JSON with comments and trailing commas; fields Tether does
// not know, values of the wrong type or outside what a field allows,
// and keys given twice are errors. Parse checks the file on its own
// (see Settings.Check); it does not apply trust, which depends on where
// the file lives (see Load).
func Parse(file string, data []byte) (Settings, error) {
	var s Settings
	v, err := hujson.Parse(data)
	if err != nil {
		return s, syntaxError(file, data, err)
	}
	d := &decoder{file: file, src: data}
	if v.Value.Kind() != '{' {
		return s, d.errAt(&v, "", "the file must hold one JSON object, {…}, not "+kindName(v.Value.Kind()))
	}
	if err := d.decode(&v, reflect.ValueOf(&s).Elem(), ""); err != nil {
		return s, err
	}
	if err := s.check(file, d.pos); err != nil {
		return s, err
	}
	return s, nil
}

var hujsonPos = lazyregexp.New(`(?s)^hujson: line (\d+), column (\d+): (.*)$`)

// syntaxError turns hujson's error into an Error at its position.
func syntaxError(file string, data []byte, err error) error {
	m := hujsonPos.FindStringSubmatch(err.Error())
	if m == nil {
		return &Error{File: file, Msg: "not JSON: " + err.Error()}
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	msg := m[3]
	if strings.Contains(msg, "unexpected EOF") {
		msg += " (a closing } or ] is missing)"
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return &Error{File: file, Msg: "the file is empty; write {} for no settings"}
	}
	return &Error{File: file, Line: line, Col: col, Msg: "not JSON: " + msg + "; comments and trailing commas are allowed, single quotes and unquoted keys are not"}
}

// decoder walks a parsed file against the Go types, so that each error
// knows its field and position.
type decoder struct {
	file string
	src  []byte
	// pos records where each field path was written, for the checks
	// that run after decoding.
	pos map[string][2]int
}

func (d *decoder) errAt(v *hujson.Value, field, msg string) error {
	line, col := lineCol(d.src, v.StartOffset)
	return &Error{File: d.file, Line: line, Col: col, Field: field, Msg: msg}
}

func lineCol(b []byte, off int) (int, int) {
	off = min(max(off, 0), len(b))
	line := 1 + strings.Count(string(b[:off]), "\n")
	col := 1 + off - (strings.LastIndexByte(string(b[:off]), '\n') + 1)
	return line, col
}

func (d *decoder) record(v *hujson.Value, field string) {
	if d.pos == nil {
		d.pos = map[string][2]int{}
	}
	l, c := lineCol(d.src, v.StartOffset)
	d.pos[field] = [2]int{l, c}
}

// typeHints say what a value of the wrong type was probably meant as,
// by field: another agent's format for the same thing.
var typeHints = map[string]string{
	"lsp":         `"lsp": true turns the code-intelligence tools on; language servers go under "lspServers": {"NAME": {"command": "…", "languages": {".ext": "id"}}}`,
	"mcpServers":  `write {"NAME": {"command": "…", "args": […]}}, one entry per server`,
	"permissions": `write {"allow": […], "ask": […], "deny": […]}`,
	"sandbox":     `write "on", "auto" or "off"`,
}

var (
	durationType  = reflect.TypeFor[Duration]()
	mcpServerType = reflect.TypeFor[MCPServer]()
)

func (d *decoder) decode(v *hujson.Value, dst reflect.Value, field string) error {
	d.record(v, field)
	kind := v.Value.Kind()
	if kind == 'n' {
		return nil // null leaves the field unset
	}
	t := dst.Type()
	switch {
	case t == durationType:
		s, err := d.str(v, field, "a duration string such as \"5m\" or \"90s\"")
		if err != nil {
			return err
		}
		dur, perr := time.ParseDuration(s)
		if perr != nil || dur <= 0 {
			return d.errAt(v, field, fmt.Sprintf("%q is not a positive duration; write e.g. \"90s\" or \"5m\"", s))
		}
		dst.SetInt(int64(dur))
		return nil
	case t.Kind() == reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := d.decode(v, p.Elem(), field); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	case t.Kind() == reflect.Struct:
		return d.object(v, dst, field)
	case t.Kind() == reflect.Map:
		return d.mapValue(v, dst, field)
	case t.Kind() == reflect.Slice:
		if kind != '[' {
			hint := ""
			if kind == '"' {
				hint = fmt.Sprintf(`; write [%q]`, v.Value.(hujson.Literal).String())
			}
			return d.errAt(v, field, "want a list, not "+kindName(kind)+hint)
		}
		arr := v.Value.(*hujson.Array)
		out := reflect.MakeSlice(t, len(arr.Elements), len(arr.Elements))
		for i := range arr.Elements {
			if err := d.decode(&arr.Elements[i], out.Index(i), fmt.Sprintf("%s[%d]", field, i)); err != nil {
				return err
			}
		}
		dst.Set(reflect.AppendSlice(dst, out))
		return nil
	case t.Kind() == reflect.String:
		s, err := d.str(v, field, "a string")
		if err != nil {
			return err
		}
		dst.SetString(s)
		return nil
	case t.Kind() == reflect.Bool:
		if kind != 't' && kind != 'f' {
			hint := ""
			if lit, ok := v.Value.(hujson.Literal); ok && kind == '"' && (lit.String() == "true" || lit.String() == "false") {
				hint = "; write " + lit.String() + " without quotes"
			}
			return d.errAt(v, field, "want true or false, not "+kindName(kind)+hint)
		}
		dst.SetBool(kind == 't')
		return nil
	case t.Kind() == reflect.Int || t.Kind() == reflect.Float64:
		if kind != '0' {
			return d.errAt(v, field, "want a number, not "+kindName(kind))
		}
		lit := string(v.Value.(hujson.Literal))
		if t.Kind() == reflect.Int {
			n, err := strconv.ParseInt(lit, 10, 64)
			if err != nil {
				return d.errAt(v, field, fmt.Sprintf("want a whole number, not %s", lit))
			}
			dst.SetInt(n)
			return nil
		}
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			return d.errAt(v, field, fmt.Sprintf("%s is not a number Tether can hold", lit))
		}
		dst.SetFloat(f)
		return nil
	}
	return d.errAt(v, field, "settings: no decoding for "+t.String()) // a Settings type the decoder does not know: a bug here, not in the file
}

func (d *decoder) str(v *hujson.Value, field, want string) (string, error) {
	if v.Value.Kind() != '"' {
		return "", d.errAt(v, field, "want "+want+", not "+kindName(v.Value.Kind()))
	}
	return v.Value.(hujson.Literal).String(), nil
}

// object decodes a JSON object into a struct by its json tags, checking
// enums and bounds from its jsonschema tags.
func (d *decoder) object(v *hujson.Value, dst reflect.Value, field string) error {
	t := dst.Type()
	if v.Value.Kind() != '{' {
		return d.errAt(v, field, "want an object {…}, not "+kindName(v.Value.Kind()))
	}
	obj := v.Value.(*hujson.Object)
	open := t == mcpServerType // other hosts' keys are kept, not refused
	fields := jsonFields(t)
	seen := map[string]*hujson.Value{}
	for i := range obj.Members {
		m := &obj.Members[i]
		name := m.Name.Value.(hujson.Literal).String()
		path := join(field, name)
		if prev, dup := seen[name]; dup {
			l, _ := lineCol(d.src, prev.StartOffset)
			return d.errAt(&m.Name, path, fmt.Sprintf("given twice (first on line %d); keep one", l))
		}
		seen[name] = &m.Name
		idx, ok := fields[name]
		if !ok {
			if open {
				continue
			}
			return d.errAt(&m.Name, path, unknownField(t, field, name, fields))
		}
		sf := t.Field(idx)
		if enum := parseSchemaTag(sf.Tag.Get("jsonschema")).enum; len(enum) > 0 && m.Value.Value.Kind() != '"' && m.Value.Value.Kind() != 'n' {
			return d.errAt(&m.Value, path, fmt.Sprintf("want one of %s, not %s", quoteList(enum), kindName(m.Value.Value.Kind())))
		}
		if err := d.decode(&m.Value, dst.Field(idx), path); err != nil {
			var se *Error
			if hint, ok := typeHints[path]; ok && errors.As(err, &se) && se.Field == path {
				se.Msg += "; " + hint
			}
			return err
		}
		if err := d.checkTag(&m.Value, dst.Field(idx), sf, path); err != nil {
			return err
		}
	}
	if open {
		raw := v.Clone()
		raw.BeforeExtra, raw.AfterExtra = nil, nil
		raw.Standardize()
		ms := dst.Addr().Interface().(*MCPServer)
		ms.raw = raw.Pack()
		ms.otherSpellings()
	}
	return nil
}

func (d *decoder) mapValue(v *hujson.Value, dst reflect.Value, field string) error {
	t := dst.Type()
	if v.Value.Kind() != '{' {
		return d.errAt(v, field, "want an object of named entries {\"NAME\": …}, not "+kindName(v.Value.Kind()))
	}
	obj := v.Value.(*hujson.Object)
	if dst.IsNil() {
		dst.Set(reflect.MakeMapWithSize(t, len(obj.Members)))
	}
	seen := map[string]int{}
	for i := range obj.Members {
		m := &obj.Members[i]
		name := m.Name.Value.(hujson.Literal).String()
		path := field + "." + name
		if strings.ContainsAny(name, ".[]") || name == "" {
			path = fmt.Sprintf("%s[%q]", field, name)
		}
		if prev, dup := seen[name]; dup {
			return d.errAt(&m.Name, path, fmt.Sprintf("given twice (first on line %d); keep one", prev))
		}
		seen[name], _ = lineCol(d.src, m.Name.StartOffset)
		ev := reflect.New(t.Elem()).Elem()
		if err := d.decode(&m.Value, ev, path); err != nil {
			return err
		}
		dst.SetMapIndex(reflect.ValueOf(name), ev)
	}
	return nil
}

// jsonFields maps each json name of t to its field index.
func jsonFields(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		out[name] = i
	}
	return out
}

func join(field, name string) string {
	if field == "" {
		return name
	}
	return field + "." + name
}

func kindName(k hujson.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "a list"
	}
	return "nothing"
}
