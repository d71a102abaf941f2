package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/checkpoint"
)

// errCancelled is the cause session/cancel gives a prompt's context.
var errCancelled = errors.New("acp: cancelled by the editor (session/cancel)")

// admitPrompt runs on the reading goroutine: the prompt is registered as
// its session's running prompt before the next message is read, so a
// session/cancel sent right behind it always reaches it. The turn itself
// runs on its own goroutine.
func (s *Server) admitPrompt(in inbound) {
	if in.ID == nil {
		s.logger.Warn("acp: session/prompt sent as a notification was ignored")
		return
	}
	if !s.isInitialized() {
		s.conn.replyError(in.ID, rpcErrorf(CodeInvalidRequest, "session/prompt before initialize: send initialize first"))
		return
	}
	var req sdk.PromptRequest
	if e := decode(in.Params, &req); e != nil {
		s.conn.replyError(in.ID, e)
		return
	}
	l, e := s.session(string(req.SessionId))
	if e != nil {
		s.conn.replyError(in.ID, e)
		return
	}
	text, e := promptText(req.Prompt)
	if e != nil {
		s.conn.replyError(in.ID, e)
		return
	}
	l.mu.Lock()
	if l.running != nil {
		l.mu.Unlock()
		s.conn.replyError(in.ID, rpcErrorf(CodeInvalidRequest, "session %s is already running a prompt: wait for its response, or send session/cancel first", l.id))
		return
	}
	ctx, cancel := context.WithCancelCause(s.base)
	l.running, l.turn = cancel, ctx
	mode := l.mode
	l.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		res, rerr := l.prompt(ctx, text, mode)
		l.mu.Lock()
		l.running, l.turn = nil, nil
		l.mu.Unlock()
		cancel(nil)
		if rerr != nil {
			s.conn.replyError(in.ID, rerr)
			return
		}
		s.conn.reply(in.ID, res)
	}()
}

// cancel serves session/cancel: the running prompt's context ends, which
// stops the model stream, kills its command's process group and withdraws
// its pending permission requests; the prompt then answers "cancelled".
func (s *Server) cancel(in inbound) {
	var req sdk.CancelNotification
	if e := decode(in.Params, &req); e != nil {
		if in.ID != nil {
			s.conn.replyError(in.ID, e)
		}
		return
	}
	s.mu.Lock()
	l := s.sessions[string(req.SessionId)]
	s.mu.Unlock()
	if l != nil {
		l.mu.Lock()
		if l.running != nil {
			l.running(errCancelled)
		}
		l.mu.Unlock()
	}
	if in.ID != nil {
		s.conn.reply(in.ID, nil)
	}
}

// promptText joins the prompt's blocks: text as it is, a resource the
// editor embedded (a file, a selection) as its text under its URI, a link
// by its URI.
func promptText(blocks []sdk.ContentBlock) (string, *RPCError) {
	var b strings.Builder
	for i, c := range blocks {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		switch {
		case c.Text != nil:
			b.WriteString(c.Text.Text)
		case c.Resource != nil && c.Resource.Resource.TextResourceContents != nil:
			r := c.Resource.Resource.TextResourceContents
			fmt.Fprintf(&b, "Context from %s:\n%s", r.Uri, fence(r.Text))
		case c.ResourceLink != nil:
			fmt.Fprintf(&b, "See %s", c.ResourceLink.Uri)
		default:
			return "", rpcErrorf(CodeInvalidParams, "invalid params: prompt[%d]: only text, embedded text resources and resource links are supported (this agent does not advertise image or audio)", i)
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", rpcErrorf(CodeInvalidParams, "invalid params: the prompt is empty")
	}
	return b.String(), nil
}

// Commands are the slash commands each session advertises.
var Commands = []sdk.AvailableCommand{
	{Name: "undo", Description: "Undo the file changes of the last turn"},
	{Name: "review", Description: "Review the changes in the workspace (read-only)", Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "what to focus on"}}},
	{Name: "compact", Description: "Summarise the older turns to free the model's context"},
}

func (l *live) announceCommands() {
	l.s.update(l.id, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: Commands}})
}

// prompt runs one turn, or one of the session's commands.
func (l *live) prompt(ctx context.Context, text string, mode agent.Mode) (any, *RPCError) {
	l.mu.Lock()
	notices := l.setup.Notices
	if l.noticed {
		notices = nil
	}
	l.noticed = true
	l.mu.Unlock()
	for _, n := range notices {
		l.say(n + "\n\n")
	}
	if name, args, ok := command(text); ok {
		switch name {
		case "undo":
			return l.undo(ctx)
		case "compact":
			return l.compact(ctx)
		case "review":
			mode = agent.ModeReview
			text = "Review the changes in this workspace and report problems, most important first."
			if args != "" {
				text += " Focus: " + args
			}
		}
	}
	res, err := l.sess.Run(ctx, agent.Input{Prompt: text, Mode: mode})
	if res != nil && res.CheckpointID != "" {
		l.mu.Lock()
		l.pushCheckpoint(res.CheckpointID)
		l.mu.Unlock()
	}
	if errors.Is(context.Cause(ctx), errCancelled) {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	if err != nil && (res == nil || res.StopReason == event.StopError || res.StopReason == event.StopCanceled) {
		return nil, errorf("the turn failed: %v", err)
	}
	if err != nil {
		l.s.logger.Warn("acp: the turn ended with an error", "session", l.id, "err", err)
	}
	resp := sdk.PromptResponse{StopReason: stopReason(res.StopReason)}
	if u := res.Usage; u.PromptTokens+u.CompletionTokens > 0 {
		resp.Usage = &sdk.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens}
	}
	return resp, nil
}

// pushCheckpoint records a turn's checkpoint for /undo; l.mu is held.
func (l *live) pushCheckpoint(id string) {
	if n := len(l.checkpoints); n == 0 || l.checkpoints[n-1] != id {
		l.checkpoints = append(l.checkpoints, id)
	}
}

// stopReason maps Tether's stop reasons to ACP's. Tether stops a turn
// that keeps repeating a failing call itself; to the editor that is the
// end of the turn.
func stopReason(r event.StopReason) sdk.StopReason {
	switch r {
	case event.StopMaxIterations:
		return sdk.StopReasonMaxTurnRequests
	case event.StopCanceled:
		return sdk.StopReasonCancelled
	}
	return sdk.StopReasonEndTurn
}

// command splits "/name args" when name is one of Commands.
func command(text string) (name, args string, ok bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "/") {
		return "", "", false
	}
	name, args, _ = strings.Cut(t[1:], " ")
	for _, c := range Commands {
		if c.Name == name {
			return name, strings.TrimSpace(args), true
		}
	}
	return "", "", false
}

// say sends the agent's own words as a message chunk.
func (l *live) say(text string) { l.s.update(l.id, sdk.UpdateAgentMessageText(text)) }

// undo restores the files of the last turn that changed any, through the
// workspace they were written through, and says what it did.
func (l *live) undo(ctx context.Context) (any, *RPCError) {
	l.mu.Lock()
	n := len(l.checkpoints)
	var id string
	if n > 0 {
		id = l.checkpoints[n-1]
	}
	l.mu.Unlock()
	if id == "" {
		l.say("Nothing to undo: no turn of this session has changed files.")
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	rep, err := l.sess.Executor().Undo(ctx, id, checkpoint.UndoOptions{})
	if err != nil && !errors.Is(err, checkpoint.ErrConflict) {
		return nil, errorf("undo: %v", err)
	}
	l.mu.Lock()
	if len(l.checkpoints) > 0 && l.checkpoints[len(l.checkpoints)-1] == id {
		l.checkpoints = l.checkpoints[:len(l.checkpoints)-1]
	}
	l.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "Undid the last turn's changes (checkpoint %s).", id)
	for _, p := range rep.Restored {
		fmt.Fprintf(&b, "\n- restored %s", p)
	}
	for _, p := range rep.Removed {
		fmt.Fprintf(&b, "\n- removed %s (the turn created it)", p)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(&b, "\n- left %s alone: %s", s.Path, s.Reason)
	}
	l.say(b.String())
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

func (l *live) compact(ctx context.Context) (any, *RPCError) {
	c, err := l.sess.Compact(ctx, agent.CompactOptions{Task: -1})
	if errors.Is(err, agent.ErrNothingToCompact) {
		l.say("Nothing to compact yet: the conversation is short.")
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	if err != nil {
		return nil, errorf("compact: %v", err)
	}
	l.say(fmt.Sprintf("Compacted %d older messages (about %d → %d tokens).", c.Summarized, c.TokensBefore, c.TokensAfter))
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}
