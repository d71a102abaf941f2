package approval

import "context"

// Announcer is implemented by Approvers that hold a request until it is
// answered later by its id (Manager). Such an Approver calls the hook set
// with WithAnnounce once the request can be answered, so that whoever
// shows the request (an agent's approval_requested event) never shows one
// whose answer would be refused as unknown.
type Announcer interface {
	Approver
	AnnouncesWhenAnswerable()
}

type announceKey struct{}

// WithAnnounce returns ctx carrying fn, which an Announcer calls with the
// request once it can be answered.
func WithAnnounce(ctx context.Context, fn func(Request)) context.Context {
	return context.WithValue(ctx, announceKey{}, fn)
}

// announce calls the hook of WithAnnounce, if any.
func announce(ctx context.Context, req Request) {
	if fn, ok := ctx.Value(announceKey{}).(func(Request)); ok && fn != nil {
		fn(req)
	}
}
