// Package search implements search_workspace and list_files over a
// workspace's read-only file system.
//
// Walk visits files as ripgrep does by default: .gitignore (nested files
// included), .ignore, .rgignore and .git/info/exclude are respected,
// hidden entries are skipped unless an ignore file re-includes them, and
// symlinks are not followed. Search lists each directory and reads each
// file once, in parallel, through directory handles when it has them.
// Like ripgrep walking a directory, it treats a file as binary from the
// first NUL byte: a NUL in the first 64 KiB leaves the file unsearched,
// a later one ends the search at the 64 KiB block that holds it. A UTF-8
// byte order mark is skipped. Literal queries use bytes.Index; regular
// expressions (RE2, with \w \d \s made Unicode-aware as in ripgrep) are
// rewritten so that they can only match within one line, with a prefilter
// on a literal every match must contain and the bytes around it. The cost
// of a search is linear in the input, one huge line included. It reports
// the lines rg reports: the package's tests compare the two, file by file,
// for literal and regular-expression queries over the Go source tree and
// over a large tree with many ignore files.
//
// Differences from ripgrep that remain: \b is an ASCII word boundary;
// files over Query.MaxFileSize (64 MiB by default) are skipped; global git
// excludes (core.excludesFile) are not read; ignore files apply outside a
// git checkout too (ripgrep's --no-require-git).
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
