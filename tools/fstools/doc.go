// Package fstools implements the file tools: read_file, write_file,
// create_file, edit_file, modify_lines, patch_file, get_file_size,
// create_folder and rename_file.
//
// Every path goes through a Workspace (*safety.Workspace in production),
// which confines it to the workspace root through symlinks and writes
// atomically: a tool never leaves a half-written file, and a tool that
// fails (an edit whose old text is missing, a patch with a rejected hunk)
// leaves the file untouched.
//
// read_file streams: it reads at most the lines it returns (500 by default,
// reported as 100-line chunks in Meta.Chunks for UIs), so the first lines
// of a 1 GiB file cost the same as those of a small one. Binary, UTF-16
// and other non-UTF-8 files are described rather than dumped.
//
// The tools that write declare their effects before running (see
// tools.Declarer): the paths, the pre-image and the exact new bytes, planned
// without writing. Execute commits the same plan, and under an approval
// (tools.WithApproved) writes only the approved bytes: a file that changed
// since the preview is refused, not overwritten.
//
// Edits forgive what small models get wrong without changing meaning
// (read_file's line numbers copied into the text to replace, trailing
// whitespace, LF written for a CRLF file) and otherwise answer with the
// closest passages of the file, with line numbers.
package fstools
