// Package pdftools reads the text of PDF documents for agents: read_pdf
// for PDFs in the workspace, and Extract for PDFs from elsewhere (the
// read_webpage tool hands it the PDFs it fetches).
//
// Extraction is pure Go (github.com/ledongthuc/pdf for parsing, fonts and
// ToUnicode maps; a small content-stream walker of this package for line
// and word breaks). Text comes in the order the producer wrote it, which
// keeps the columns of multi-column layouts apart. Encrypted files open
// when they need no user password and use RC4 or AES-128; AES-256 files
// and password-protected ones get ErrEncrypted with what to do. Truncated
// or malformed files get ErrNotPDF or ErrDamaged, never a crash.
package pdftools
