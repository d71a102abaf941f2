//go:build !linux

package terminal

func markerPrefix(string) string { return runMarker + "=" }

func recoverLeftovers(string) []string { return nil }
