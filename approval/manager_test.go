package approval

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func cmdReq(cmd string) Request {
	return Request{Kind: KindCommand, ToolName: "run_terminal_command", Command: cmd, Decision: 1}
}

// answerOnRequest returns a Notify hook that resolves each new request with
// resp from a fresh goroutine, as a UI would.
func answerOnRequest(t *testing.T, m *Manager, resp Response, wg *sync.WaitGroup) func(Event) {
	return func(e Event) {
		if e.Type != EventRequested {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.Resolve(e.Request.ID, resp); err != nil {
				t.Errorf("Resolve: %v", err)
			}
		}()
	}
}

func TestManagerResolve(t *testing.T) {
	var wg sync.WaitGroup
	m := &Manager{}
	m.Notify = answerOnRequest(t, m, Response{Choice: AllowOnce, Reason: "looks fine"}, &wg)
	resp, err := m.Wait(context.Background(), cmdReq("go test ./..."))
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choice != AllowOnce || resp.Reason != "looks fine" {
		t.Errorf("resp = %+v", resp)
	}
	if n := len(m.Pending()); n != 0 {
		t.Errorf("%d requests still pending", n)
	}
}

func TestManagerTimeoutIsDeny(t *testing.T) {
	m := &Manager{Timeout: 5 * time.Millisecond}
	var events []Event
	m.Notify = func(e Event) { events = append(events, e) }
	resp, err := m.Wait(context.Background(), cmdReq("sleep 1"))
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if resp.Choice != Deny || resp.Reason == "" {
		t.Errorf("resp = %+v, want a deny with a reason", resp)
	}
	if len(events) != 2 || events[0].Type != EventRequested || events[1].Type != EventResolved || !errors.Is(events[1].Err, ErrTimeout) {
		t.Errorf("events = %+v", events)
	}
	// The answer that arrives after the timeout is stale, not unknown.
	if err := m.Resolve(events[0].Request.ID, Response{Choice: AllowOnce}); !errors.Is(err, ErrStale) {
		t.Errorf("late Resolve = %v, want ErrStale", err)
	}
}

func TestManagerCancel(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("user closed the session")
	m := &Manager{Timeout: -1}
	m.Notify = func(e Event) {
		if e.Type == EventRequested {
			cancel(cause)
		}
	}
	resp, err := m.Wait(ctx, cmdReq("make"))
	if !errors.Is(err, cause) {
		t.Fatalf("err = %v, want the cancel cause", err)
	}
	if resp.Choice != Deny {
		t.Errorf("resp = %+v, want deny", resp)
	}

	// Already cancelled: never registered, never shown.
	m.Notify = func(e Event) { t.Errorf("unexpected event %v", e.Type) }
	if _, err := m.Wait(ctx, cmdReq("make")); !errors.Is(err, cause) {
		t.Errorf("err = %v", err)
	}
}

func TestManagerUnknownAndStale(t *testing.T) {
	m := &Manager{}
	if err := m.Resolve("nope", Response{Choice: AllowOnce}); !errors.Is(err, ErrUnknownRequest) {
		t.Errorf("Resolve(unknown) = %v", err)
	}
	var wg sync.WaitGroup
	m.Notify = answerOnRequest(t, m, Response{Choice: Deny, Message: "use make test"}, &wg)
	req := cmdReq("npm test")
	req.ID = "call-1"
	resp, err := m.Wait(context.Background(), req)
	wg.Wait()
	if err != nil || resp.Choice != Deny || resp.Message != "use make test" {
		t.Fatalf("Wait = %+v, %v", resp, err)
	}
	if err := m.Resolve("call-1", Response{Choice: AllowOnce}); !errors.Is(err, ErrStale) {
		t.Errorf("second Resolve = %v, want ErrStale", err)
	}
	if err := m.Resolve("call-1", Response{Choice: Choice(9)}); !errors.Is(err, ErrInvalidResponse) {
		t.Errorf("Resolve(bad choice) = %v", err)
	}
}

func TestManagerRemembersBoundedStaleIDs(t *testing.T) {
	m := &Manager{Timeout: time.Nanosecond, Remember: 2}
	for i := range 3 {
		req := cmdReq("x")
		req.ID = fmt.Sprint(i)
		_, _ = m.Wait(context.Background(), req)
	}
	if err := m.Resolve("0", Response{}); !errors.Is(err, ErrUnknownRequest) {
		t.Errorf("oldest id = %v, want forgotten (ErrUnknownRequest)", err)
	}
	if err := m.Resolve("2", Response{}); !errors.Is(err, ErrStale) {
		t.Errorf("newest id = %v, want ErrStale", err)
	}
}

func TestManagerDuplicateAndInvalid(t *testing.T) {
	m := &Manager{}
	if _, err := m.Wait(context.Background(), Request{Kind: KindCommand}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("empty command: %v", err)
	}
	started := make(chan struct{})
	m.Notify = func(e Event) {
		if e.Type == EventRequested && e.Request.ID == "dup" {
			close(started)
		}
	}
	done := make(chan error)
	go func() {
		req := cmdReq("a")
		req.ID = "dup"
		_, err := m.Wait(context.Background(), req)
		done <- err
	}()
	<-started
	req := cmdReq("b")
	req.ID = "dup"
	if _, err := m.Wait(context.Background(), req); !errors.Is(err, ErrDuplicateID) {
		t.Errorf("duplicate: %v", err)
	}
	if err := m.Resolve("dup", Response{Choice: AllowOnce}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Many UIs answering the same requests at once: exactly one answer per request
// wins, every other one is stale, and the waiter gets the winner's answer.
func TestManagerConcurrentResolveFirstWins(t *testing.T) {
	const requests, answerers = 50, 8
	m := &Manager{Timeout: -1}
	var (
		wins, stale atomic.Int64
		wg          sync.WaitGroup
		winners     sync.Map // id -> Choice that won
		got         sync.Map // id -> Choice the waiter received
	)
	m.Notify = func(e Event) {
		if e.Type != EventRequested {
			return
		}
		id := e.Request.ID
		for a := range answerers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := Choice(a % 3)
				switch err := m.Resolve(id, Response{Choice: c, Reason: fmt.Sprint(a)}); {
				case err == nil:
					wins.Add(1)
					winners.Store(id, c)
				case errors.Is(err, ErrStale):
					stale.Add(1)
				default:
					t.Errorf("Resolve: %v", err)
				}
			}()
		}
	}
	var waiters sync.WaitGroup
	for i := range requests {
		waiters.Add(1)
		go func() {
			defer waiters.Done()
			req := cmdReq(fmt.Sprint("echo ", i))
			req.ID = fmt.Sprint("r", i)
			resp, err := m.Wait(context.Background(), req)
			if err != nil {
				t.Errorf("Wait: %v", err)
				return
			}
			got.Store(req.ID, resp.Choice)
		}()
	}
	waiters.Wait()
	wg.Wait()
	for i := range requests {
		id := fmt.Sprint("r", i)
		w, _ := winners.Load(id)
		g, _ := got.Load(id)
		if w != g {
			t.Errorf("%s: waiter got %v, winning answer was %v", id, g, w)
		}
	}
	if wins.Load() != requests || stale.Load() != requests*(answerers-1) {
		t.Errorf("wins = %d, stale = %d; want %d and %d", wins.Load(), stale.Load(), requests, requests*(answerers-1))
	}
}

// Resolve racing the timeout: either the answer or the timeout wins, never
// both, and a losing Resolve is told it was stale.
func TestManagerResolveRacesTimeout(t *testing.T) {
	for i := range 200 {
		m := &Manager{Timeout: time.Duration(i%5) * time.Microsecond}
		var resolveErr error
		var wg sync.WaitGroup
		m.Notify = func(e Event) {
			if e.Type == EventRequested {
				wg.Add(1)
				go func() { defer wg.Done(); resolveErr = m.Resolve(e.Request.ID, Response{Choice: AllowOnce}) }()
			}
		}
		resp, err := m.Wait(context.Background(), cmdReq("x"))
		wg.Wait()
		switch {
		case err == nil && resolveErr == nil && resp.Choice == AllowOnce:
		case errors.Is(err, ErrTimeout) && errors.Is(resolveErr, ErrStale) && resp.Choice == Deny:
		default:
			t.Fatalf("inconsistent outcome: resp=%+v err=%v resolve=%v", resp, err, resolveErr)
		}
	}
}

func TestManagerPendingInOrder(t *testing.T) {
	m := &Manager{Timeout: -1}
	ready := make(chan struct{}, 3)
	m.Notify = func(e Event) {
		if e.Type == EventRequested {
			ready <- struct{}{}
		}
	}
	var wg sync.WaitGroup
	for i := range 3 {
		req := cmdReq(fmt.Sprint("cmd", i))
		req.ID = fmt.Sprint("p", i)
		wg.Add(1)
		go func() { defer wg.Done(); _, _ = m.Wait(context.Background(), req) }()
		<-ready // registered before the next one starts
	}
	p := m.Pending()
	if len(p) != 3 || p[0].ID != "p0" || p[1].ID != "p1" || p[2].ID != "p2" {
		t.Errorf("Pending = %+v", p)
	}
	p[0].Command = "changed" // a copy: the manager's request is untouched
	if m.Pending()[0].Command != "cmd0" {
		t.Error("Pending returned a shared request")
	}
	for _, r := range m.Pending() {
		if err := m.Resolve(r.ID, Response{}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
}

func TestManagerResolveAll(t *testing.T) {
	m := &Manager{Timeout: -1}
	ready := make(chan struct{}, 2)
	m.Notify = func(e Event) {
		if e.Type == EventRequested {
			ready <- struct{}{}
		}
	}
	results := make(chan Response, 2)
	for range 2 {
		go func() {
			resp, _ := m.Wait(context.Background(), cmdReq("x"))
			results <- resp
		}()
	}
	<-ready
	<-ready
	if n := m.ResolveAll(Response{Reason: "UI disconnected"}); n != 2 {
		t.Errorf("ResolveAll = %d", n)
	}
	for range 2 {
		if r := <-results; r.Choice != Deny || r.Reason != "UI disconnected" {
			t.Errorf("resp = %+v", r)
		}
	}
}

func TestManagerNotifyPanicLeavesNothingPending(t *testing.T) {
	m := &Manager{Notify: func(e Event) {
		if e.Type == EventRequested {
			panic("UI bug")
		}
	}}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic swallowed")
			}
		}()
		_, _ = m.Wait(context.Background(), cmdReq("x"))
	}()
	if n := len(m.Pending()); n != 0 {
		t.Errorf("%d requests left pending after a panicking Notify", n)
	}
}

func TestManagerTimeoutReason(t *testing.T) {
	m := &Manager{Timeout: time.Millisecond}
	resp, _ := m.Wait(context.Background(), cmdReq("x"))
	if resp.Reason != "no answer within 1ms" {
		t.Errorf("Reason = %q", resp.Reason)
	}
}
