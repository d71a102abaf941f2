// Package edit is the one edit engine of the module: it applies
// search-and-replace edits (exact first, then the tolerant matching models
// need), computes unified diffs and +N −N line stats, and decides what
// counts as binary content. The file tools, approval previews and
// checkpoints all call it, so the diff a person approves is computed by the
// same code as the change that is written, and every +N −N badge counts
// lines the same way.
package edit
