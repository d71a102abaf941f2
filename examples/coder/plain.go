package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/colorprofile"
	"golang.org/x/term"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
)

// plainWidth is the width plain output is laid out for.
const plainWidth = 100

// plain is the front end for pipes and dumb terminals: it reads lines
// and prints each transcript block once it is complete, through a writer
// that drops colour when the output is not a colour terminal.
type plain struct {
	app     *app
	st      styles
	out     io.Writer
	lines   <-chan string
	mu      sync.Mutex // the sink and the approver print from the run's goroutine
	tr      *transcript
	printed int
	echoes  bool // stdin is a terminal, which echoes what is typed
}

// endLine ends the line of a prompt after an answer was read: a terminal
// echoed the newline, a pipe did not.
func (p *plain) endLine() {
	if !p.echoes {
		p.println("")
	}
}

func runPlain(ctx context.Context, o options, stdin io.Reader, stdout io.Writer) error {
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	st := newStyles()
	p := &plain{st: st, out: colorprofile.NewWriter(stdout, os.Environ()), lines: lines,
		tr: newTranscript(st, &markdown{plain: true})}
	a, err := openApp(ctx, o, approval.Func(p.approve), event.SinkFunc(p.emit))
	if err != nil {
		return err
	}
	defer a.close()
	p.app = a
	if a.sess != nil {
		if err := a.replay(ctx, p.tr.apply); err != nil {
			return err
		}
		p.tr.info(st.dim.Render("resumed session " + a.sess.ID()))
		p.flush()
	}
	p.println(st.bold.Render("tether coder") + st.dim.Render(" · "+a.ws.Root()+" · "+a.modelName+" · /help lists the commands"))
	if a.untrusted != "" {
		p.println(st.warn.Render(a.untrusted))
	}
	f, isFile := stdin.(*os.File)
	p.echoes = isFile && term.IsTerminal(int(f.Fd()))
	for {
		fmt.Fprintf(p.out, "%s › ", a.mode)
		text, ok := <-lines
		if !ok {
			return nil
		}
		p.endLine()
		text = strings.TrimSpace(text)
		switch {
		case text == "":
		case strings.HasPrefix(text, "/"):
			if p.command(ctx, text) {
				return nil
			}
		default:
			p.task(ctx, text)
		}
	}
}

func (p *plain) println(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.out, s)
}

// emit prints the blocks the event completed.
func (p *plain) emit(_ context.Context, e event.Event) error {
	p.mu.Lock()
	p.tr.apply(e)
	p.mu.Unlock()
	p.flush()
	return nil
}

// flush prints every finished block not printed yet, in order.
func (p *plain) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.printed < len(p.tr.blocks) && !p.tr.blocks[p.printed].open {
		fmt.Fprintln(p.out, p.tr.renderBlock(p.tr.blocks[p.printed], plainWidth, "…"))
		p.printed++
	}
}

// task runs one prompt; Ctrl-C (SIGINT) cancels it.
func (p *plain) task(ctx context.Context, prompt string) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		select {
		case <-sigs:
			cancel(errors.New("cancelled with Ctrl-C"))
		case <-ctx.Done():
		}
	}()
	err := p.app.ensureSession(ctx, prompt)
	if err == nil {
		_, err = p.app.sess.Run(ctx, p.app.input(prompt))
	}
	p.mu.Lock()
	p.tr.closeOpen()
	p.mu.Unlock()
	p.flush()
	switch {
	case context.Cause(ctx) != nil:
		p.println(p.st.warn.Render("task cancelled: " + context.Cause(ctx).Error()))
	case err != nil:
		p.println(p.st.bad.Render("error: " + err.Error()))
	}
}

// approve shows the approval card and reads the answer: y, s, or n
// with an optional message ("n: use make test").
func (p *plain) approve(ctx context.Context, req approval.Request) (approval.Response, error) {
	p.flush()
	ask := &approvalAsk{req: req, reply: make(chan approval.Response, 1)}
	card := newApprovalCard(ask, p.st)
	card.typed, card.save = true, p.app.saveRule
	p.println(card.view(plainWidth, 60, time.Now()))
	prompt := "y / s / n[: why] › "
	if _, ok := card.alwaysRule(); ok {
		prompt = "y / s / a / n[: why] › "
	}
	for {
		p.mu.Lock()
		fmt.Fprint(p.out, prompt)
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return approval.Response{Reason: "no answer: " + context.Cause(ctx).Error()}, context.Cause(ctx)
		case text, ok := <-p.lines:
			if !ok {
				return approval.Response{Reason: "no answer: input closed"}, errors.New("input closed")
			}
			p.endLine()
			if w := strings.ToLower(strings.TrimSpace(text)); w == "a" || w == "always" {
				if card.always() {
					return <-ask.reply, nil
				}
				if card.saveErr != nil {
					p.println(p.st.bad.Render("could not save the rule: " + card.saveErr.Error()))
				}
				continue
			}
			if resp, ok := parseAnswer(text, card.critical()); ok {
				return resp, nil
			}
		}
	}
}

// parseAnswer reads a typed approval answer; critical requests cannot be
// allowed for the session.
func parseAnswer(s string, critical bool) (approval.Response, bool) {
	word, msg, hasMsg := strings.Cut(strings.TrimSpace(s), ":")
	switch strings.ToLower(strings.TrimSpace(word)) {
	case "y", "yes":
		return approval.Response{Choice: approval.AllowOnce, Reason: "allowed once by the user"}, !hasMsg
	case "s", "session":
		return approval.Response{Choice: approval.AllowSession, Reason: "allowed for this session by the user"}, !hasMsg && !critical
	case "", "n", "no":
		return approval.Response{Choice: approval.Deny, Reason: "refused by the user", Message: strings.TrimSpace(msg)}, true
	}
	return approval.Response{}, false
}

// command runs a slash command and reports whether to quit.
func (p *plain) command(ctx context.Context, text string) (quit bool) {
	a, st := p.app, p.st
	fields := strings.Fields(text)
	name, args := fields[0], fields[1:]
	show := func(s string, err error) {
		if err != nil {
			s = st.bad.Render("error: " + err.Error())
		}
		p.println(s)
	}
	switch name {
	case "/quit", "/exit", "/q":
		return true
	case "/help", "/?":
		show(helpText(st, a.custom), nil)
	case "/mode":
		if len(args) == 1 && a.validMode(args[0]) {
			a.mode = agent.Mode(args[0])
		} else if len(args) > 0 {
			show("", fmt.Errorf("unknown mode %q: want %s", args[0], a.modeNames()))
			break
		}
		show("mode "+string(a.mode), nil)
	case "/model":
		if len(args) == 1 {
			if err := a.setModel(ctx, args[0]); err != nil {
				show("", err)
				break
			}
		}
		show("model "+a.modelName, nil)
	case "/diff":
		show(a.diffText(ctx, st))
	case "/keep":
		show(a.keepAll(ctx, st))
	case "/compact":
		show(compact(ctx, a.sess))
	case "/sessions":
		show(a.sessionList(ctx, st))
	case "/resume":
		if len(args) != 1 {
			show("", errors.New("/resume needs a session id; /sessions lists them"))
			break
		}
		if err := a.openSession(ctx, args[0]); err != nil {
			show("", err)
			break
		}
		p.tr, p.printed = newTranscript(st, p.tr.md), 0
		err := a.replay(ctx, p.tr.apply)
		p.tr.closeOpen()
		p.flush()
		show("resumed session "+args[0], err)
	case "/new":
		a.sess = nil
		show("new session: the next task starts a fresh conversation", nil)
	case "/undo":
		p.undo(ctx, args)
	case "/review":
		p.review(ctx)
	case "/permissions":
		if len(args) == 2 && args[0] == "remove" {
			show(a.removePermission(args[1]))
			break
		}
		show(a.permissionsText(st))
	default:
		if c, ok := a.customCommand(name); ok {
			p.task(ctx, c.Expand(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), name))))
			break
		}
		show("", fmt.Errorf("unknown command %s; /help lists them", name))
	}
	return false
}

// undo reverts a checkpoint named by id or by its number in the list.
func (p *plain) undo(ctx context.Context, args []string) {
	picker, err := newUndoPicker(ctx, p.app, p.st)
	if err != nil {
		p.println(p.st.bad.Render("error: " + err.Error()))
		return
	}
	if picker == nil {
		p.println(p.st.dim.Render("no checkpoints in this session yet"))
		return
	}
	infos := picker.infos
	picker.typed = true
	if len(args) == 0 {
		p.println(picker.view(plainWidth))
		p.println(p.st.dim.Render("/undo N or /undo ID undoes one; /undo N since also every later one"))
		return
	}
	if n, err := strconv.Atoi(args[0]); err == nil && n >= 1 && n <= len(infos) {
		args[0] = infos[n-1].ID
	}
	since := len(args) > 1 && args[1] == "since"
	out, err := p.app.undo(ctx, p.st, args[0], since, len(args) > 1 && args[len(args)-1] == "force")
	if err != nil {
		out = p.st.bad.Render("error: " + err.Error())
	}
	p.println(out)
}

// review walks the hunks with one typed key per line (a, r, A, R, j, k,
// l, h, q), the same keys as the full-screen review.
func (p *plain) review(ctx context.Context) {
	rv, err := newReview(ctx, p.app, p.st)
	if err != nil {
		p.println(p.st.bad.Render("error: " + err.Error()))
		return
	}
	if len(rv.files) == 0 {
		p.println(p.st.dim.Render("nothing to review: no undecided changes"))
		return
	}
	rv.typed = true
	for {
		p.println(rv.view(plainWidth, 60))
		fmt.Fprint(p.out, "review (a/r hunk, A/R file, j/k hunk, h/l file, q) › ")
		k, ok := <-p.lines
		p.endLine()
		if !ok || rv.key(ctx, strings.TrimSpace(k)) {
			break
		}
	}
	p.println(rv.summary())
}
