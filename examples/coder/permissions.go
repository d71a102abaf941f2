package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/settings"
)

// saveRule is the "always allow" answer: the exact rule goes into the
// project's settings, where a new coder or web process finds it, and
// into the rules of the sessions this process opens next. The session
// that asked gets the same exact grant for itself.
func (a *app) saveRule(rule string) error {
	if err := settings.SaveRule(a.ws.Root(), "allow", rule); err != nil {
		return err
	}
	rules := a.cfg.CommandRules
	rules.Allow = append(slices.Clone(rules.Allow), rule)
	// The session that asked is mid-run: it keeps its manager and has
	// the session grant; sessions opened from now on get the rule.
	if err := a.setRules(rules, false); err != nil {
		return err
	}
	a.logger.Info("coder: allow rule saved to the project settings", "rule", rule, "file", settings.ProjectFile)
	return nil
}

// permissionsText lists the rules of the project's settings file,
// numbered for /permissions remove N, and the rules in effect.
func (a *app) permissionsText(st styles) (string, error) {
	p, err := settings.ProjectRules(a.ws.Root())
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", st.bold.Render("Saved in "+filepath.Join(a.ws.Root(), settings.ProjectFile)+":"))
	n := 0
	for _, l := range []struct {
		name  string
		rules []string
	}{{"allow", p.Allow}, {"ask", p.Ask}, {"deny", p.Deny}} {
		for _, r := range l.rules {
			n++
			fmt.Fprintf(&b, "  %d. %-5s %s\n", n, l.name, r)
		}
	}
	if n == 0 {
		b.WriteString(st.dim.Render("  none yet: answer a on an approval card to save one") + "\n")
	}
	r := a.cfg.CommandRules
	fmt.Fprintf(&b, "%s allow %q · ask %q · deny %q · read-only commands %v\n", st.dim.Render("In effect (user, project, local, flags):"), r.Allow, r.Ask, r.Deny, r.AllowReadOnly)
	b.WriteString(st.dim.Render("/permissions remove N removes a saved rule"))
	return b.String(), nil
}

// removePermission removes the project rule numbered n by
// permissionsText, from the file and from this process's rules.
func (a *app) removePermission(arg string) (string, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 {
		return "", fmt.Errorf("/permissions remove N: N is a rule's number in /permissions, not %q", arg)
	}
	p, err := settings.ProjectRules(a.ws.Root())
	if err != nil {
		return "", err
	}
	for _, l := range []struct {
		name  string
		rules []string
	}{{"allow", p.Allow}, {"ask", p.Ask}, {"deny", p.Deny}} {
		if n > len(l.rules) {
			n -= len(l.rules)
			continue
		}
		rule := l.rules[n-1]
		if err := settings.RemoveRule(a.ws.Root(), l.name, rule); err != nil {
			return "", err
		}
		if err := a.setRules(a.withoutRule(l.name, rule), true); err != nil {
			return "", err
		}
		a.logger.Info("coder: rule removed from the project settings", "list", l.name, "rule", rule)
		return fmt.Sprintf("removed %s rule %q from %s", l.name, rule, settings.ProjectFile), nil
	}
	return "", fmt.Errorf("no rule %s: /permissions lists them", arg)
}

// setRules makes rules the command rules of the sessions opened from
// now on, and of the current one too when reopen is set.
func (a *app) setRules(rules safety.CommandRules, reopen bool) error {
	cfg := a.cfg
	cfg.CommandRules = rules
	mgr, err := a.newManager(cfg)
	if err != nil {
		return err
	}
	a.cfg, a.sessions = cfg, mgr
	if reopen && a.sess != nil {
		return a.openSession(context.Background(), a.sess.ID())
	}
	return nil
}

func (a *app) withoutRule(list, rule string) (r safety.CommandRules) {
	r = a.cfg.CommandRules
	norm, _ := settings.CommandRule(list, rule)
	drop := func(xs []string) []string {
		var out []string
		for _, x := range xs {
			if x != norm && x != rule {
				out = append(out, x)
			}
		}
		return out
	}
	switch list {
	case "allow":
		r.Allow = drop(r.Allow)
	case "ask":
		r.Ask = drop(r.Ask)
	case "deny":
		r.Deny = drop(r.Deny)
	}
	return r
}

// customCommand is the custom command /NAME (see settings.Commands); a
// built-in command of the same name wins.
func (a *app) customCommand(name string) (settings.Command, bool) {
	for _, c := range a.custom {
		if "/"+c.Name == name {
			return c, true
		}
	}
	return settings.Command{}, false
}
