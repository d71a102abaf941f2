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

// Non-public ranges, from the IANA special-purpose address registries
// (every row whose "Globally Reachable" is False) and the ranges that reach
// a local translator or relay. Cloud metadata endpoints sit in link-local
// (169.254.169.254, fe80::), private (fd00:ec2::254) or carrier-grade NAT
// space (100.100.100.200).
var reservedV4 = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
}

// IPv6 is public only inside 2000::/3, the one block allocated as global
// unicast, so a range assigned a special purpose outside it later (as
// 64:ff9b:1::/48, 100::/64 and 5f00::/16 were) is refused without a new
// row. These are the special-purpose rows inside 2000::/3.
var (
	globalUnicast = netip.MustParsePrefix("2000::/3")
	reservedV6    = []struct {
		prefix netip.Prefix
		reason string
	}{
		// Teredo, benchmarking, ORCHID and the other IETF protocol
		// assignments; Teredo and 6to4 can embed any IPv4 address.
		{netip.MustParsePrefix("2001::/23"), "IETF protocol"},
		{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
		{netip.MustParsePrefix("2002::/16"), "6to4"},
		{netip.MustParsePrefix("3fff::/20"), "documentation"},
	}
	// Named outside 2000::/3 only to give a better reason.
	nat64 = []netip.Prefix{
		netip.MustParsePrefix("64:ff9b::/96"),   // RFC 6052, embeds any IPv4 address
		netip.MustParsePrefix("64:ff9b:1::/48"), // RFC 8215, local-use translation
	}
)

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
	if a.Is4() {
		if a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
			return "broadcast"
		}
		for _, r := range reservedV4 {
			if r.prefix.Contains(a) {
				return r.reason
			}
		}
		return ""
	}
	for _, p := range nat64 {
		if p.Contains(a) {
			return "NAT64"
		}
	}
	if !globalUnicast.Contains(a) {
		return "outside global unicast 2000::/3"
	}
	for _, r := range reservedV6 {
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
