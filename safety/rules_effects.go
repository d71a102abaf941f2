package safety

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Rules and effects. A rule's words are themselves a command, and the
// analysis says what that command does: "git push --force" rewrites
// remote history, "git push" publishes, "gh auth token" prints a
// credential. So a rule is judged by the effects its words have, not
// only by their spelling:
//
//   - A deny or ask rule whose options add effects to its command (the
//     effects of "git push --force" less those of "git push") matches
//     every use of that command with those effects, however spelt: `git
//     push origin +main`, `git push --force-with-lease`, `git push
//     --mirror`.
//   - An allow rule approves a command only if each of the command's high
//     or critical effects is one its own words have (or its effect: words
//     name): "git push" does not approve `git push origin +main`, "gh
//     auth" does not approve `gh auth token`, "gh auth token" does.
//     Every concern carries an effect, so this holds for every high
//     finding: "chmod" does not approve `chmod 777 x` (loosens
//     permissions), "curl" does not approve `curl -T notes.txt URL`
//     (sends data), "kubectl" does not approve `kubectl delete ns prod`
//     (changes remote state), while "rm" approves `rm -r dist`, whose high
//     effect, deleting, is what "rm" itself does.
//   - "effect:NAME" in a rule names an effect outright: "deny:
//     effect:rewrites-remote" denies any force push; "ask: git
//     effect:discards-work" asks before any git command that discards
//     work; "allow: git push effect:force-push" approves force pushes.
//     The rule "*", and "effect:*", name every effect.

// ruleEffectCache maps a rule's words to the effects of their analysis.
// Rules are few and fixed, and analysing their words costs as much as
// analysing a command, so each is analysed once; the cache stops growing
// at ruleEffectCacheMax entries (past that, words are analysed each time).
var (
	ruleEffectCache    sync.Map // string → []Effect
	ruleEffectCacheLen int
	ruleEffectCacheMu  sync.Mutex
)

const ruleEffectCacheMax = 4096

// wordsEffects returns the effects of the command a rule's words spell.
func wordsEffects(tokens []string) []Effect {
	if len(tokens) == 0 {
		return nil
	}
	key := strings.Join(tokens, " ")
	if v, ok := ruleEffectCache.Load(key); ok {
		return v.([]Effect)
	}
	a := AnalyzeCommand(key)
	var out []Effect
	for _, c := range a.Commands {
		for _, e := range c.Effects {
			if !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	ruleEffectCacheMu.Lock()
	if ruleEffectCacheLen < ruleEffectCacheMax {
		ruleEffectCacheLen++
		ruleEffectCache.Store(key, out)
	}
	ruleEffectCacheMu.Unlock()
	return out
}

// splitEffects takes the effect: words out of a rule's tokens.
func splitEffects(toks []string) (rest []string, effects []Effect, err error) {
	for _, t := range toks {
		name, ok := strings.CutPrefix(t, "effect:")
		if !ok {
			rest = append(rest, t)
			continue
		}
		if name == "*" {
			effects = append(effects, "*")
			continue
		}
		e, perr := ParseEffect(name)
		if perr != nil {
			err = errors.Join(err, perr)
			continue
		}
		effects = append(effects, e)
	}
	return rest, effects, err
}

// operandTokens are the rule's words that are not options.
func (r rule) operandTokens() []string {
	var out []string
	for _, t := range r.tokens {
		if !strings.HasPrefix(t, "-") {
			out = append(out, t)
		}
	}
	return out
}

// addedEffects are the effects a deny or ask rule stands for beyond its
// command's own: those its options add, and those it names.
func (r rule) addedEffects() []Effect {
	out := slices.Clone(r.effects)
	ops := r.operandTokens()
	if len(ops) == len(r.tokens) {
		return out
	}
	base := wordsEffects(ops)
	for _, e := range wordsEffects(r.tokens) {
		if !slices.Contains(base, e) && !slices.Contains(out, e) && e.Severity() >= SeverityHigh {
			out = append(out, e)
		}
	}
	return out
}

// matchEffects reports whether deny or ask rule r matches command c by
// effect: c is the rule's command (its words other than options, matched
// as matchLoose does) and has every effect the rule stands for.
func (r rule) matchEffects(c Command, ws []word) bool {
	if r.bad != nil || len(c.Effects) == 0 {
		return false
	}
	added := r.addedEffects()
	if len(added) == 0 {
		return false
	}
	for _, e := range added {
		if e != "*" && !slices.Contains(c.Effects, e) {
			return false
		}
	}
	if ops := r.operandTokens(); len(ops) > 0 {
		return rule{tokens: ops}.matchLoose(ws)
	}
	return true
}

// unnamedEffect returns a high or critical effect of command i of a that
// allow rule r's words do not have, or "" when r names them all.
func (r rule) unnamedEffect(a CommandAnalysis, i int) Effect {
	high := a.highEffects(i)
	if len(high) == 0 || len(r.tokens) == 0 || slices.Contains(r.effects, "*") {
		return ""
	}
	own := wordsEffects(r.tokens)
	for _, e := range high {
		if !slices.Contains(own, e) && !slices.Contains(r.effects, e) {
			return e
		}
	}
	return ""
}

// Validate reports the rules that cannot work: an effect: word naming no
// effect. While such a rule is configured Evaluate approves nothing.
func (r CommandRules) Validate() error {
	var errs []error
	for list, entries := range map[string][]string{"allow": r.Allow, "ask": r.Ask, "deny": r.Deny} {
		for _, rl := range parseRules(entries) {
			if rl.bad != nil {
				errs = append(errs, fmt.Errorf("%s rule %q: %w", list, rl.text, rl.bad))
			}
		}
	}
	return errors.Join(errs...)
}
