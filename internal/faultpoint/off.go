//go:build !tetherfault || !unix

package faultpoint

// Reached does nothing: this build has no fault points.
func Reached(string) {}
