package settings

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// checkTag enforces the enum, minimum and maximum of a field's
// jsonschema tag, so the published schema and the loader agree.
func (d *decoder) checkTag(v *hujson.Value, fv reflect.Value, sf reflect.StructField, field string) error {
	tag := parseSchemaTag(sf.Tag.Get("jsonschema"))
	for fv.Kind() == reflect.Pointer {
		if fv.IsNil() {
			return nil
		}
		fv = fv.Elem()
	}
	if len(tag.enum) > 0 && fv.Kind() == reflect.String && !slices.Contains(tag.enum, fv.String()) {
		return d.errAt(v, field, fmt.Sprintf("%q is not allowed; want one of %s", fv.String(), quoteList(tag.enum)))
	}
	var n float64
	switch fv.Kind() {
	case reflect.Int:
		n = float64(fv.Int())
	case reflect.Float64:
		n = fv.Float()
	default:
		return nil
	}
	if tag.min != nil && n < *tag.min || tag.max != nil && n > *tag.max {
		return d.errAt(v, field, fmt.Sprintf("%s is out of range; want %s to %s", num(n), num(deref(tag.min)), num(deref(tag.max))))
	}
	return nil
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

type schemaTag struct {
	enum     []string
	min, max *float64
}

// parseSchemaTag reads the parts of an invopop/jsonschema tag the
// decoder enforces; `\,` escapes a comma.
func parseSchemaTag(tag string) schemaTag {
	var st schemaTag
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(tag); i++ {
		switch {
		case tag[i] == '\\' && i+1 < len(tag) && tag[i+1] == ',':
			cur.WriteByte(',')
			i++
		case tag[i] == ',':
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(tag[i])
		}
	}
	parts = append(parts, cur.String())
	for _, p := range parts {
		k, val, _ := strings.Cut(p, "=")
		switch k {
		case "enum":
			st.enum = append(st.enum, val)
		case "minimum", "maximum":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				continue
			}
			if k == "minimum" {
				st.min = &f
			} else {
				st.max = &f
			}
		}
	}
	return st
}
