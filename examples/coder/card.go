package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/settings"
)

// approvalAsk is one question from the agent to the person. The approver
// blocks on reply until the card answers or the request's context ends.
type approvalAsk struct {
	req      approval.Request
	deadline time.Time // zero when the request has no timeout
	reply    chan approval.Response
}

// approvalGone withdraws a card whose request ended unanswered (timeout,
// cancelled task).
type approvalGone struct{ ask *approvalAsk }

// tuiApprover asks through the program's event loop.
type tuiApprover struct{ send func(tea.Msg) }

func (a *tuiApprover) Approve(ctx context.Context, req approval.Request) (approval.Response, error) {
	ask := &approvalAsk{req: req, reply: make(chan approval.Response, 1)}
	if d, ok := ctx.Deadline(); ok {
		ask.deadline = d
	}
	a.send(ask)
	select {
	case resp := <-ask.reply:
		return resp, nil
	case <-ctx.Done():
		a.send(approvalGone{ask})
		return approval.Response{Reason: "no answer: " + context.Cause(ctx).Error()}, context.Cause(ctx)
	}
}

// approvalCard is the modal that shows one request and takes the answer.
type approvalCard struct {
	ask      *approvalAsk
	d        approval.Display
	st       styles
	refusing bool // typing the message that goes to the model with a refusal
	in       textinput.Model
	done     bool
	typed    bool // plain mode: answers are typed lines (y, s, a, n: why); there is no Esc
	// save writes an "always allow" rule to the project's settings; nil
	// offers no such answer.
	save    func(rule string) error
	saveErr error // why the last save failed, shown on the card
}

// alwaysRule is the rule "always allow" would save: the exact command,
// for a command that is not critical and that one rule can hold.
func (c *approvalCard) alwaysRule() (string, bool) {
	if c.save == nil || c.ask.req.Kind != approval.KindCommand || c.critical() {
		return "", false
	}
	return settings.SaveableRule(c.ask.req.Command)
}

// always saves the rule, then allows the command for the session; a
// failed save leaves the card up, saying why.
func (c *approvalCard) always() bool {
	rule, ok := c.alwaysRule()
	if !ok {
		return false
	}
	if err := c.save(rule); err != nil {
		c.saveErr = err
		return false
	}
	c.answer(approval.Response{Choice: approval.AllowSession, Reason: "always allowed by the user: rule saved to " + settings.ProjectFile})
	return true
}

func newApprovalCard(ask *approvalAsk, st styles) *approvalCard {
	in := textinput.New()
	in.Placeholder = "why, for the model (Enter sends, empty refuses without a message)"
	in.Prompt = "tell the model: "
	return &approvalCard{ask: ask, d: ask.req.Display(), st: st, in: in}
}

// critical requests are allowed once at most: never for the session.
func (c *approvalCard) critical() bool { return c.d.Severity == "critical" }

func (c *approvalCard) answer(r approval.Response) {
	c.ask.reply <- r // buffered: the approver may already have given up
	c.done = true
}

func (c *approvalCard) key(k tea.KeyPressMsg) tea.Cmd {
	if c.refusing {
		switch k.String() {
		case "enter":
			c.answer(approval.Response{Choice: approval.Deny, Reason: "refused by the user", Message: strings.TrimSpace(c.in.Value())})
		case "esc":
			c.refusing = false
		default:
			var cmd tea.Cmd
			c.in, cmd = c.in.Update(k)
			return cmd
		}
		return nil
	}
	switch k.String() {
	case "y":
		c.answer(approval.Response{Choice: approval.AllowOnce, Reason: "allowed once by the user"})
	case "s":
		if !c.critical() {
			c.answer(approval.Response{Choice: approval.AllowSession, Reason: "allowed for this session by the user"})
		}
	case "a":
		c.always()
	case "n":
		c.refusing = true
		return c.in.Focus()
	case "esc":
		c.answer(approval.Response{Choice: approval.Deny, Reason: "refused by the user"})
	}
	return nil
}

func (c *approvalCard) view(width, height int, now time.Time) string {
	st, d := c.st, c.d
	what := "act"
	switch c.ask.req.Kind {
	case approval.KindCommand:
		what = "run a command"
	case approval.KindFileEdit:
		what = "change a file " + st.stat(c.ask.req.Added, c.ask.req.Removed)
	}
	lines := []string{
		st.bold.Render(d.ToolName) + " wants to " + what + "   severity " + st.severity(d.Severity),
		"",
		"  " + st.bold.Render(d.Subject),
	}
	if d.Escaped {
		lines = append(lines, "  "+st.bad.Render("WARNING: hidden or control characters, shown escaped above"))
	}
	for _, r := range d.Reasons {
		lines = append(lines, "  • "+r)
	}
	if d.Diff != "" {
		diff := strings.Split(strings.TrimRight(st.diff(d.Diff, "  "), "\n"), "\n")
		room := max(height-len(lines)-10, 3)
		if len(diff) > room {
			diff = append(diff[:room], st.dim.Render(fmt.Sprintf("  … %d more lines", len(diff)-room)))
		}
		lines = append(lines, "")
		lines = append(lines, diff...)
	}
	lines = append(lines, "")
	if c.refusing {
		// The input draws its placeholder only as wide as it is told.
		c.in.SetWidth(max(width-8-lipgloss.Width(c.in.Prompt), 10))
		lines = append(lines, c.in.View(), st.dim.Render("Enter refuses · Esc goes back"))
	} else {
		choices := st.ok.Render("[y]") + " allow once  "
		if !c.critical() {
			choices += st.warn.Render("[s]") + " allow for this session (" + d.Rule + ")  "
		}
		if rule, ok := c.alwaysRule(); ok {
			choices += st.warn.Render("[a]") + fmt.Sprintf(" always allow: adds %q to %s  ", rule, settings.ProjectFile)
		}
		choices += st.bad.Render("[n]") + " refuse, telling the model why"
		if !c.typed {
			choices += "  " + st.dim.Render("[esc] refuse")
		}
		lines = append(lines, choices)
	}
	if c.saveErr != nil {
		lines = append(lines, st.bad.Render("could not save the rule: "+c.saveErr.Error()))
	}
	if !c.ask.deadline.IsZero() {
		left := max(c.ask.deadline.Sub(now), 0).Round(time.Second)
		lines = append(lines, st.dim.Render(fmt.Sprintf("refused automatically in %s", left)))
	}
	border := st.severityStyle(d.Severity).GetForeground()
	return st.card.BorderForeground(border).Width(width).Render(
		lipgloss.NewStyle().Width(width - 4).Render(strings.Join(lines, "\n")))
}
