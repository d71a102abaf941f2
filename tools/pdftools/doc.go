// Package pdftools reads the text of PDF documents for agents: read_pdf
// for PDFs in the workspace, and Extract for PDFs from elsewhere (the
// read_webpage tool hands it the PDFs it fetches).
//
// Extraction is pure Go: github.com/ledongthuc/pdf parses the file, and
// this package walks each page's content streams itself. The walker
// follows the graphics and text state (transformation matrices, text and
// line matrices, character and word spacing, horizontal scaling, rise,
// form XObjects) and measures every glyph with its font's widths (the
// Widths array, a CIDFont's W and DW, or the standard 14 fonts' metrics
// when a file gives none), so it knows where each glyph starts and ends
// on the page. Word and line breaks come from that geometry alone: a gap
// of more than a tenth of an em on one baseline separates words, a
// baseline move of more than half an em starts a line, whether the
// producer wrote space characters, kerning offsets in TJ arrays, word or
// character spacing, or placed each word at its own position. Text comes
// from ToUnicode CMaps first, then from the font's encoding; it is
// folded with NFKC, so ligatures read as their letters. Words hyphenated
// at a line end are kept as written.
//
// Text comes in the order the producer drew it, which keeps the columns
// of multi-column layouts apart. Encrypted files open when they need no
// user password and use RC4 or AES-128; AES-256 files and
// password-protected ones get ErrEncrypted with what to do. Truncated or
// malformed files get ErrNotPDF or ErrDamaged, never a crash; a page's
// walk is bounded by the operators it runs, so forms drawing one another
// cannot make it loop or grow without end.
package pdftools
