// Package search implements search_workspace and list_files over a
// workspace's read-only file system.
//
// Walk visits files as ripgrep does by default: .gitignore (nested files
// included, with git's own matcher from go-git), .ignore and
// .git/info/exclude are respected, hidden entries are skipped and
// symlinks are not followed. Search reads each file once, in parallel,
// skips files holding a NUL byte as binary, and reports matching lines:
// literal queries with bytes.Index, regular expressions (RE2) rewritten so
// that they can only match within one line, with a prefilter on a literal
// every match must contain. It reports the lines rg reports: the package's
// tests compare the two, file by file, for literal and regular-expression
// queries over the Go source tree.
//
// search_workspace's output groups matches by file under a header, with the
// matching line marked by an arrow and its context indented, a layout
// models read reliably:
//
//	── src/services/myService.ts ──
//	  10: context line before
//	→ 11: matching line here
//	  12: context line after
package search
