package agent

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/internal/lazyregexp"
)

// Loop guards: write validation (a task that asks for a change is not
// done until a write succeeded), the repeated failing call, and pivot
// guidance after rounds in which everything failed.

// changeVerbs are the words that make a prompt a request for changes.
var changeVerbs = lazyregexp.New(`(?i)\b(renam(e|es|ed|ing)|modif(y|ies|ied|ying)|creat(e|es|ed|ing)|fix(es|ed|ing)?|add(s|ed|ing)?|updat(e|es|ed|ing)|chang(e|es|ed|ing)|edit(s|ed|ing)?|writ(e|es|ing)|implement(s|ed|ing)?|refactor(s|ed|ing)?|delet(e|es|ed|ing)|remov(e|es|ed|ing)|replac(e|es|ed|ing)|insert(s|ed|ing)?|append(s|ed|ing)?|mov(e|es|ed|ing)|convert(s|ed|ing)?|rewrit(e|es|ing)|generat(e|es|ed|ing)|patch(es|ed|ing)?)\b`)

// wantsWrites guesses whether a prompt asks for file changes.
func wantsWrites(prompt string) bool { return changeVerbs.MatchString(prompt) }

const writeReminder = "You said the task is complete, but no file was changed: no file-changing tool succeeded. " +
	"The task asks for changes. Make them now with the file tools, then finish with [TASK_COMPLETE]. " +
	"If the change is impossible or already present, say exactly why and finish with [TASK_COMPLETE]."

const pivotGuidance = "Every action in the last %d rounds failed or was denied. Do not repeat them. " +
	"Read the error messages above, then take a different approach: check that paths exist by listing their directory, read a file before editing it, " +
	"use different arguments or a different tool. If you are blocked (a denial, a missing permission), explain what blocks you " +
	"and what the user could do, and finish with [TASK_COMPLETE]."

// loopGuard tracks failures across iterations. Not safe for concurrent
// use; only the loop touches it.
type loopGuard struct {
	maxRepeat  int
	pivotAfter int
	failures   map[string]int // call signature → failures
	failRounds int            // consecutive all-failed rounds
}

// signature identifies a call by name and canonical arguments, so that
// key order and spacing do not make a repetition look new.
func signature(name string, args json.RawMessage) string {
	var v any
	if err := json.Unmarshal(args, &v); err == nil {
		if b, err := json.Marshal(v); err == nil {
			return name + " " + string(b)
		}
	}
	return name + " " + string(bytes.TrimSpace(args))
}

// observe records a batch. It returns the number of times the worst
// repeated failure has now failed, annotating results the model should
// know it already tried, and whether pivot guidance is due.
func (g *loopGuard) observe(b *batchResult) (repeats int, pivot bool) {
	if g.failures == nil {
		g.failures = make(map[string]int)
	}
	for i := range b.results {
		r := &b.results[i]
		if r.out.Status != event.StatusError && r.out.Status != event.StatusDenied {
			continue
		}
		sig := signature(r.canonical, r.call.Args)
		g.failures[sig]++
		n := g.failures[sig]
		repeats = max(repeats, n)
		if n > 1 {
			r.out.Text += fmt.Sprintf("\n\n[This exact call has now failed %d times. Do not send it again; change the arguments or the approach.]", n)
		}
	}
	if len(b.results) > 0 && b.allFailed {
		g.failRounds++
	} else {
		g.failRounds = 0
	}
	if g.failRounds >= g.pivotAfter {
		g.failRounds = 0
		return repeats, true
	}
	return repeats, false
}

// noteParseFailure counts a round with only unusable calls as failed.
func (g *loopGuard) noteParseFailure() (pivot bool) {
	g.failRounds++
	if g.failRounds >= g.pivotAfter {
		g.failRounds = 0
		return true
	}
	return false
}
