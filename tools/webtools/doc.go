// Package webtools gives agents the web: read_webpage fetches a URL and
// returns readable Markdown (or text, indented JSON, or a PDF's text),
// with the page's title and final URL, in line windows like read_file's.
//
// The web is open-world and the URL is the model's choice, which makes a
// fetch tool the classic server-side request forgery vector. A Fetcher
// therefore reaches only public internet addresses by default: loopback,
// private, link-local (where cloud metadata services live), carrier-grade
// NAT and reserved ranges are refused: every row of the IANA IPv4 and IPv6
// special-purpose registries that is not globally reachable (documentation,
// benchmarking, the NAT64 prefixes 64:ff9b::/96 and 64:ff9b:1::/48 of
// RFC 6052 and RFC 8215, Teredo, 6to4), and all IPv6 outside 2000::/3, the
// only block allocated as global unicast. The check runs on the address
// actually dialled, after DNS resolution, for every connection including
// each redirect's, and once more in the socket's Control hook, so neither
// a redirect nor a name that resolves differently the second time (DNS
// rebinding) reaches them. Environment proxies are not used, since the
// check would then judge the proxy. Hosts can list allowed and denied
// domains, and let chosen non-public addresses through with
// Config.AllowAddr (an intranet, or an httptest server in tests).
//
// Redirects, time and body size are bounded; requests carry a user agent
// that says what is fetching. Approval of a call follows the tool's
// declared effects: read-only but open-world.
package webtools
