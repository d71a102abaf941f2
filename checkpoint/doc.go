// Package checkpoint snapshots files before an agent changes them, so
// that every change can be kept, diffed or undone.
package checkpoint
