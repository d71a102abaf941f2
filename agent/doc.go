// Package agent is the executor loop: it streams the model, runs the
// tool calls it asks for through safety, approval and checkpoints, and
// reports every step as an ordered stream of events.
package agent
