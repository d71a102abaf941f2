package sandboxhelper

import (
	"errors"
	"strconv"
)

// The request and the report are written as fields, `key=value`
// separated by single spaces, where a value is a decimal number or a Go
// string literal (strconv.Quote), so any bytes, NULs included, round-trip.
// Keys may repeat (one per list entry). The format needs only strconv,
// where JSON would need packages that initialise late (see the package
// comment).

func appendString(b []byte, key, v string) []byte {
	if len(b) > 0 {
		b = append(b, ' ')
	}
	b = append(b, key...)
	b = append(b, '=')
	return strconv.AppendQuote(b, v)
}

func appendInt(b []byte, key string, v int) []byte {
	if len(b) > 0 {
		b = append(b, ' ')
	}
	b = append(b, key...)
	b = append(b, '=')
	return strconv.AppendInt(b, int64(v), 10)
}

func appendFlag(b []byte, key string, on bool) []byte {
	if !on {
		return b
	}
	return appendInt(b, key, 1)
}

// parseFields calls f with each field's key and value (unquoted when it
// was a string literal), in order; it stops at the first error.
func parseFields(s string, f func(key, val string) error) error {
	for len(s) > 0 {
		eq := -1
		for i := 0; i < len(s) && s[i] != ' '; i++ {
			if s[i] == '=' {
				eq = i
				break
			}
		}
		if eq <= 0 {
			return errors.New("field without a key: " + strconv.Quote(cut(s)))
		}
		key, rest := s[:eq], s[eq+1:]
		var val string
		if len(rest) > 0 && rest[0] == '"' {
			lit, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return errors.New("field " + key + ": unterminated string")
			}
			if val, err = strconv.Unquote(lit); err != nil {
				return errors.New("field " + key + ": " + err.Error())
			}
			rest = rest[len(lit):]
		} else {
			n := 0
			for n < len(rest) && rest[n] != ' ' {
				n++
			}
			val, rest = rest[:n], rest[n:]
		}
		if len(rest) > 0 {
			if rest[0] != ' ' {
				return errors.New("field " + key + ": text after its value")
			}
			rest = rest[1:]
		}
		if err := f(key, val); err != nil {
			return err
		}
		s = rest
	}
	return nil
}

// number parses a field's decimal value.
func number(key, val string) (int, error) {
	n, err := strconv.Atoi(val)
	if err != nil {
		return 0, errors.New("field " + key + ": not a number: " + strconv.Quote(val))
	}
	return n, nil
}

// cut shortens s for an error message.
func cut(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
