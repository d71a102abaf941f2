package webtools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// declare says what a read_webpage call will do: read one page of the
// open world, at exactly the URL given. The host's domain rules are the
// tool's own verdict: a host on the deny list (or off a non-empty allow
// list) is refused before anyone is asked, and a host the allow list
// covers (or any, under Config.ApproveAllDomains) may be read unasked.
// Any other host gets no verdict, so the agent asks a person; nothing but the host's configuration ever lets a
// page be read without asking.
func (f *Fetcher) declare(_ context.Context, a ReadArgs) (tools.Effects, error) {
	raw := strings.TrimSpace(a.URL)
	if raw == "" {
		return tools.Effects{}, fmt.Errorf(`"url" is empty: give a full http or https URL`)
	}
	e := tools.Reading()
	e.OpenWorld, e.URL = true, raw
	u, err := f.parseURL(raw)
	switch {
	case errors.Is(err, ErrBlocked):
		e.Decision, e.Reasons = safety.Deny, []string{err.Error()}
	case err != nil:
		return tools.Effects{}, err
	case len(f.rules.allow) > 0:
		e.Decision, e.Reasons = safety.Allow, []string{u.Hostname() + " is on the host's allow list for " + ReadName}
	case f.cfg.ApproveAllDomains:
		e.Decision, e.Reasons = safety.Allow, []string{"the host approves " + ReadName + " on every public domain"}
	}
	return e, nil
}
