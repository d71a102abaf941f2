package webtools

import (
	"fmt"
	"mime"

	"golang.org/x/net/html/charset"
)

// toUTF8 returns a text or HTML body as UTF-8, decoded from the charset
// it declares. For HTML that is, in the order browsers use, a byte-order
// mark, the Content-Type header's charset, then a <meta> charset within
// the first 1024 bytes; a page that declares none is UTF-8 when it is
// valid UTF-8 and windows-1252 otherwise, the web's legacy default. Plain
// text has only the BOM and the header. A body already in UTF-8 is
// returned as is.
func toUTF8(body []byte, header string, isHTML bool) ([]byte, error) {
	var (
		name string
		dec  interface{ Bytes([]byte) ([]byte, error) }
	)
	if isHTML {
		e, n, _ := charset.DetermineEncoding(body, header)
		if n == "utf-8" {
			return body, nil
		}
		name, dec = n, e.NewDecoder()
	} else {
		_, params, _ := mime.ParseMediaType(header)
		label := params["charset"]
		if label == "" {
			return body, nil
		}
		e, n := charset.Lookup(label)
		if e == nil {
			return nil, fmt.Errorf("%w: the server declares charset %q, which is not a known encoding", ErrUnsupported, label)
		}
		if n == "utf-8" {
			return body, nil
		}
		name, dec = n, e.NewDecoder()
	}
	out, err := dec.Bytes(body)
	if err != nil {
		return nil, fmt.Errorf("decoding the page from %s: %w", name, err)
	}
	return out, nil
}
