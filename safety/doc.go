// Package safety judges what an agent is about to do: shell commands by
// their parsed syntax, files by their sensitivity, paths by workspace
// confinement.
package safety
