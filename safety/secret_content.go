package safety

import (
	"context"
	"fmt"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// Names are a floor, not a proof: a private key saved as notes.txt is as
// secret as id_rsa. SecretInContent looks at what a file holds, the way
// secret scanners do (gitleaks' default rules, GitHub secret scanning's
// token formats), so that a file tool can ask before showing a model a
// file whose name gave nothing away. The scan is bounded: only the first
// SecretScanBytes bytes are read, and each pattern is anchored on a
// fixed prefix, so its cost is linear in that window.

// SecretScanBytes is how much of a file SecretInContent examines.
const SecretScanBytes = 64 << 10

// secretPatterns are credential formats with a distinctive prefix, each
// named for the reason shown to the user.
var secretPatterns = []struct {
	what string
	re   *lazyregexp.Regexp
}{
	{"a private key", lazyregexp.New(`-----BEGIN ((RSA|DSA|EC|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY( BLOCK)?-----`)},
	{"an AWS access key", lazyregexp.New(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"a GitHub token", lazyregexp.New(`\b(gh[pousr]_[0-9A-Za-z]{36}|github_pat_[0-9A-Za-z_]{82})\b`)},
	{"a GitLab token", lazyregexp.New(`\bglpat-[0-9A-Za-z_-]{20}\b`)},
	{"a Slack token", lazyregexp.New(`\bxox[baprs]-[0-9A-Za-z-]{10,}`)},
	{"a Stripe secret key", lazyregexp.New(`\b[sr]k_live_[0-9A-Za-z]{24,}`)},
	{"a Google API key", lazyregexp.New(`\bAIza[0-9A-Za-z_-]{35}\b`)},
	{"an OpenAI or Anthropic API key", lazyregexp.New(`\bsk-(ant-|proj-)?[0-9A-Za-z_-]{32,}`)},
	{"an npm token", lazyregexp.New(`\bnpm_[0-9A-Za-z]{36}\b`)},
	{"a PyPI token", lazyregexp.New(`\bpypi-AgEIcHlwaS5vcmc[0-9A-Za-z_-]{50,}`)},
	{"a Hugging Face token", lazyregexp.New(`\bhf_[0-9A-Za-z]{34}\b`)},
}

// SecretInContent reports what credential the first SecretScanBytes of
// data hold ("a private key", "a GitHub token" …), or "" when it finds
// none. Binary content is scanned too: key stores are binary.
func SecretInContent(data []byte) string {
	if len(data) > SecretScanBytes {
		data = data[:SecretScanBytes]
	}
	for _, p := range secretPatterns {
		if p.re.Match(data) {
			return p.what
		}
	}
	return ""
}

// AssessRead decides a file tool's read of path whose content, or its
// first SecretScanBytes, has already been read into head but not shown:
// AssessFile's decision, made stricter (Confirm) when the content holds
// a credential whatever the file is called.
func (p *Policy) AssessRead(ctx context.Context, path string, head []byte) Assessment {
	a := p.AssessFile(ctx, path, OpRead)
	if what := SecretInContent(head); what != "" && a.Decision == Allow {
		a.Decision = Confirm
		a.Reasons = append([]string{fmt.Sprintf("%s holds %s (by its content)", path, what)}, a.Reasons...)
		if p.Headless {
			a.Decision, a.Headless = Deny, true
			a.Reasons = append([]string{"denied: needs a human's approval and none is available (headless)"}, a.Reasons...)
		}
	}
	return a
}
