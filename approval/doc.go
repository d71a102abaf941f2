// Package approval puts a human in the loop: approvers, a manager for
// asynchronous answers with timeouts, policies, and two-phase file edits.
package approval
