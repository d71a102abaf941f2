package webtools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tetherdev/tether/tools/pdftools"
)

// Defaults of Config.
const (
	DefaultMaxBytes     = 5 << 20
	DefaultMaxRedirects = 5
	DefaultTimeout      = 30 * time.Second
	DefaultUserAgent    = "Tether-read_webpage/1.0 (AI coding agent; fetches one page when a user's agent asks; +https://github.com/tetherdev/tether)"
)

// Config is a Fetcher's policy. The zero value is safe: public internet
// addresses only, no domain rules, the defaults above.
type Config struct {
	// AllowDomains, when not empty, is the only hosts reachable (a rule
	// covers its subdomains). DenyDomains are never reached; deny wins.
	AllowDomains, DenyDomains []string
	// ApproveAllDomains makes every host the rules let through count as
	// allowed by the host, so read_webpage's calls run without asking
	// anyone, as calls to AllowDomains do. For hosts with no person to
	// ask that accept the model reading any public page; by default a
	// page off AllowDomains needs a person's approval.
	ApproveAllDomains bool
	// AllowAddr reports whether an address the default rules refuse
	// (loopback, private, link-local, metadata, reserved) may be reached
	// anyway: an intranet a host trusts, or an httptest server in tests.
	// Nil refuses them all.
	AllowAddr func(netip.AddrPort) bool
	// Resolver looks up host names; nil means net.DefaultResolver.
	Resolver Resolver
	// MaxBytes bounds a response body; a larger one is refused.
	MaxBytes int64
	// MaxRedirects bounds redirects followed; negative follows none.
	MaxRedirects int
	// Timeout bounds one fetch from dial to the last byte.
	Timeout time.Duration
	// UserAgent is sent with every request.
	UserAgent string
}

// Fetcher fetches web pages under a Config's policy. It is safe for
// concurrent use.
type Fetcher struct {
	cfg    Config
	rules  domainRules
	client *http.Client
}

// NewFetcher validates cfg and returns a Fetcher.
func NewFetcher(cfg Config) (*Fetcher, error) {
	rules, err := newDomainRules(cfg.AllowDomains, cfg.DenyDomains)
	if err != nil {
		return nil, err
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	switch {
	case cfg.MaxRedirects == 0:
		cfg.MaxRedirects = DefaultMaxRedirects
	case cfg.MaxRedirects < 0:
		cfg.MaxRedirects = 0
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	g := &guard{resolver: cfg.Resolver, allow: cfg.AllowAddr, timeout: cfg.Timeout}
	f := &Fetcher{cfg: cfg, rules: rules}
	f.client = &http.Client{
		Transport: &http.Transport{
			// No proxy: a proxy would make the connection, and the
			// address checks would judge the proxy instead of the page.
			Proxy:               nil,
			DialContext:         g.dialContext,
			ForceAttemptHTTP2:   true,
			TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConns:        4,
			IdleConnTimeout:     30 * time.Second,
		},
		CheckRedirect: f.checkRedirect,
	}
	return f, nil
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.cfg.MaxRedirects {
		return fmt.Errorf("stopped after %d redirects (the limit); the last went to %s", f.cfg.MaxRedirects, req.URL.Redacted())
	}
	return f.checkURL(req.URL)
}

// parseURL parses a page's URL as a caller wrote it and applies the
// host's rules to it; a refusal by the rules wraps ErrBlocked.
func (f *Fetcher) parseURL(rawURL string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return nil, fmt.Errorf("bad URL %q: %v", rawURL, err)
	}
	if u.Scheme == "" {
		return nil, fmt.Errorf("URL %q has no scheme: write it in full, e.g. https://%s", rawURL, rawURL)
	}
	if err := f.checkURL(u); err != nil {
		return nil, err
	}
	return u, nil
}

func (f *Fetcher) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: URL scheme %q: only http and https pages can be read", ErrBlocked, u.Scheme)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("URL %q has no host", u.Redacted())
	}
	return f.rules.check(u.Hostname())
}

// Kinds of content a Page holds.
const (
	KindHTML = "html"
	KindText = "text"
	KindJSON = "json"
	KindPDF  = "pdf"
)

// Page is a fetched page made readable.
type Page struct {
	URL         string // as asked
	FinalURL    string // after redirects
	Title       string // HTML title or PDF metadata title; may be empty
	ContentType string // media type the server sent, or the sniffed one
	Kind        string // KindHTML, KindText, KindJSON or KindPDF
	Bytes       int64  // body size
	// Text is the readable content: Markdown for HTML, indented JSON,
	// plain text, or a PDF's text with page markers.
	Text string
}

// ErrTooLarge is wrapped when a body exceeds MaxBytes.
var ErrTooLarge = errors.New("response too large")

// ErrUnsupported is wrapped when the content type cannot be made readable.
var ErrUnsupported = errors.New("unsupported content type")

// Fetch fetches rawURL and converts its body by content type.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (*Page, error) {
	u, err := f.parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,application/pdf;q=0.8,*/*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded || isTimeout(err) {
			return nil, fmt.Errorf("fetching %s: no complete answer within %s", u.Redacted(), f.cfg.Timeout)
		}
		return nil, fmt.Errorf("fetching %s: %w", u.Redacted(), unwrapURLError(err))
	}
	defer resp.Body.Close()
	final := resp.Request.URL.String()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("fetching %s: the server answered %s", final, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBytes+1))
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded || isTimeout(err) {
			return nil, fmt.Errorf("fetching %s: the body did not arrive within %s", final, f.cfg.Timeout)
		}
		return nil, fmt.Errorf("reading %s: %w", final, err)
	}
	if int64(len(body)) > f.cfg.MaxBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes, the limit", ErrTooLarge, final, f.cfg.MaxBytes)
	}
	p := &Page{URL: rawURL, FinalURL: final, Bytes: int64(len(body))}
	if err := convert(ctx, p, resp.Header.Get("Content-Type"), body, resp.Request.URL); err != nil {
		return nil, err
	}
	return p, nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// unwrapURLError drops *url.Error's "Get \"…\":" prefix when the cause is
// a policy refusal, which already names the host.
func unwrapURLError(err error) error {
	var be *BlockedError
	if errors.As(err, &be) {
		return be
	}
	return err
}

// convert fills p's Kind, ContentType, Title and Text from body.
func convert(ctx context.Context, p *Page, header string, body []byte, base *url.URL) error {
	mt, _, _ := mime.ParseMediaType(header)
	if mt == "" || mt == "application/octet-stream" {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	p.ContentType = mt
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		p.Kind = KindHTML
		body, err := toUTF8(body, header, true)
		if err != nil {
			return fmt.Errorf("reading %s: %w", p.FinalURL, err)
		}
		title, md, err := HTMLToMarkdown(ctx, body, base)
		if err != nil {
			return fmt.Errorf("converting %s to Markdown: %w", p.FinalURL, err)
		}
		p.Title, p.Text = title, md
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		p.Kind = KindJSON
		var b bytes.Buffer
		if err := json.Indent(&b, body, "", "  "); err != nil {
			p.Kind, p.Text = KindText, validText(body)
			return nil
		}
		p.Text = b.String()
	case mt == "application/pdf":
		p.Kind = KindPDF
		doc, err := pdftools.Extract(ctx, bytes.NewReader(body), int64(len(body)), pdftools.Range{})
		if err != nil {
			return fmt.Errorf("reading the PDF at %s: %w", p.FinalURL, err)
		}
		p.Title, p.Text = doc.Title, doc.Text
		if doc.Last < doc.Pages {
			p.Text += fmt.Sprintf("\n[Only pages %d-%d of %d are shown (one read takes at most %d pages or %d KiB of text). Save the PDF in the workspace and use read_pdf with first_page=%d for the rest.]",
				doc.First, doc.Last, doc.Pages, pdftools.MaxPagesPerCall, pdftools.MaxOutputBytes>>10, doc.Last+1)
		}
	case strings.HasPrefix(mt, "text/") || mt == "application/xml" || mt == "application/javascript":
		p.Kind = KindText
		body, err := toUTF8(body, header, false)
		if err != nil {
			return fmt.Errorf("reading %s: %w", p.FinalURL, err)
		}
		p.Text = validText(body)
	default:
		return fmt.Errorf("%w: %s is %s; read_webpage reads HTML, text, JSON and PDF", ErrUnsupported, p.FinalURL, mt)
	}
	return nil
}

func validText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
