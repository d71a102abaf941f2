package webtools

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrBlocked is wrapped by every refusal to reach an address or a domain,
// so callers can tell a policy refusal from a network failure.
var ErrBlocked = errors.New("blocked")

// BlockedError says which host or address was refused and why.
type BlockedError struct {
	Host   string     // the host name as the URL gave it
	Addr   netip.Addr // the address refused; zero for a domain rule
	Reason string
}

func (e *BlockedError) Error() string {
	if e.Addr.IsValid() {
		where := e.Host + " resolves to " + e.Addr.String()
		if h, err := netip.ParseAddr(strings.Trim(e.Host, "[]")); err == nil && h.Unmap() == e.Addr {
			where = e.Host + " is"
		}
		return fmt.Sprintf("%s: %s, a non-public address (%s); only public internet addresses can be fetched", ErrBlocked, where, e.Reason)
	}
	return fmt.Sprintf("%s: %s %s", ErrBlocked, e.Host, e.Reason)
}

func (e *BlockedError) Unwrap() error { return ErrBlocked }

// Resolver looks up a host's addresses; *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// reserved ranges beyond what netip's predicates name. Cloud metadata
// endpoints sit in link-local (169.254.169.254, fe80::), private
// (fd00:ec2::254) or carrier-grade NAT space (100.100.100.200).
var reserved = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	// NAT64 and 6to4 can embed any IPv4 address, a private one included.
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},
}

// nonPublic names why a is not a public internet address, or "" if it is.
func nonPublic(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local (cloud metadata)"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	}
	for _, r := range reserved {
		if r.prefix.Contains(a) {
			return r.reason
		}
	}
	return ""
}

// guard dials only addresses the policy allows. The check runs on the
// address actually connected to (after DNS resolution, for every
// connection a redirect opens), and again in the socket's Control hook,
// so a name that resolves differently the second time (DNS rebinding)
// cannot slip through.
type guard struct {
	resolver Resolver
	allow    func(netip.AddrPort) bool
	timeout  time.Duration
}

func (g *guard) check(host string, ap netip.AddrPort) error {
	reason := nonPublic(ap.Addr())
	if reason == "" || (g.allow != nil && g.allow(ap)) {
		return nil
	}
	return &BlockedError{Host: host, Addr: ap.Addr().Unmap(), Reason: reason}
}

func (g *guard) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := parsePort(portStr)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		ipNet := "ip"
		switch network {
		case "tcp4":
			ipNet = "ip4"
		case "tcp6":
			ipNet = "ip6"
		}
		addrs, err = g.resolver.LookupNetIP(ctx, ipNet, host)
		if err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("%s has no addresses", host)
		}
	}
	var firstErr error
	for _, a := range addrs {
		ap := netip.AddrPortFrom(a.Unmap(), port)
		if err := g.check(host, ap); err != nil {
			firstErr = cmp(firstErr, err)
			continue
		}
		d := net.Dialer{Timeout: g.timeout, Control: g.control(host)}
		c, err := d.DialContext(ctx, network, ap.String())
		if err == nil {
			return c, nil
		}
		firstErr = cmp(firstErr, err)
	}
	return nil, firstErr
}

// control re-checks the socket's peer address just before connect.
func (g *guard) control(host string) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: cannot parse dial address %q", ErrBlocked, address)
		}
		return g.check(host, ap)
	}
}

func cmp(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

func parsePort(s string) (uint16, error) {
	p, err := strconv.ParseUint(s, 10, 16)
	if err != nil || p == 0 {
		return 0, fmt.Errorf("bad port %q", s)
	}
	return uint16(p), nil
}

// domainRules are the host's allow and deny lists: a rule "example.com"
// matches that host and every subdomain. Deny wins; a non-empty allow
// list refuses every host it does not match.
type domainRules struct {
	allow, deny []string
}

func newDomainRules(allow, deny []string) (domainRules, error) {
	norm := func(list []string) ([]string, error) {
		out := make([]string, 0, len(list))
		for _, d := range list {
			n := normalizeHost(d)
			if n == "" || strings.ContainsAny(n, "/:*@ ") {
				return nil, fmt.Errorf("webtools: domain rule %q: give a bare host name such as example.com (it covers subdomains)", d)
			}
			out = append(out, n)
		}
		return out, nil
	}
	a, err := norm(allow)
	if err != nil {
		return domainRules{}, err
	}
	d, err := norm(deny)
	if err != nil {
		return domainRules{}, err
	}
	return domainRules{allow: a, deny: d}, nil
}

func normalizeHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
}

func matchesDomain(host, domain string) bool {
	return host == domain || strings.HasSuffix(host, "."+domain)
}

func (r domainRules) check(host string) error {
	h := normalizeHost(host)
	for _, d := range r.deny {
		if matchesDomain(h, d) {
			return &BlockedError{Host: host, Reason: "is on the host's deny list (" + d + ")"}
		}
	}
	if len(r.allow) == 0 {
		return nil
	}
	for _, d := range r.allow {
		if matchesDomain(h, d) {
			return nil
		}
	}
	return &BlockedError{Host: host, Reason: "is not on the host's allow list (" + strings.Join(r.allow, ", ") + ")"}
}
