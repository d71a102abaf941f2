package terminal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSecretFilesRedacted: a command prints secret files by ways the
// Policy does not judge; their values must not reach the model. The
// formats come from their specifications and common tools, written down
// before the reader existed: dotenv (export prefix, quotes, a DSN), the
// AWS shared-credentials INI, an OpenSSH private key, netrc(5), docker's
// config.json "auth", a Google service-account JSON whose key has escaped
// line breaks, a vault token file, and a .env the command itself writes.
// Ordinary values beside them (NODE_ENV=production, a region, an e-mail)
// stay readable.
func TestSecretFilesRedacted(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	write := func(p, content string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	}
	write(filepath.Join(ws, ".env"), "# app\nexport OPENAI_API_KEY=\"sk-proj-Abc123Def456Ghi789\"\nNODE_ENV=production\nDATABASE_URL=postgres://app:hunter2pass@db:5432/app\n")
	write(filepath.Join(ws, "service-account.json"), `{"type": "service_account", "client_email": "ci@proj.iam.gserviceaccount.com", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\nq1w2e3r4t5y6u7i8o9p0AbCdEfGhIjKlMnOpQrStUvWxYz012345\n-----END PRIVATE KEY-----\n"}`)
	write(filepath.Join(home, ".aws", "credentials"), "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nregion = eu-west-3\n")
	write(filepath.Join(home, ".ssh", "id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDxEXAMPLEkeyMATERIALonlyFORtestsXYZ0123456789abcdefABCDEF==\n-----END OPENSSH PRIVATE KEY-----\n")
	write(filepath.Join(home, ".netrc"), "machine api.heroku.com\n  login me@example.com\n  password 01234567-89ab-cdef-0123\n")
	write(filepath.Join(home, ".docker", "config.json"), `{"auths":{"https://index.docker.io/v1/":{"auth":"dXNlcjpwYXNzd29yZDEyMw=="}}}`)
	write(filepath.Join(home, ".vault-token"), "hvs.CAESIJlWxq9Zz0ExampleVaultToken\n")

	s := newShell(t, Config{Root: ws, HostEnv: []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}})
	r := run(t, s, `cat .env service-account.json; cat "$HOME/.aws/credentials" "$HOME/.ssh/id_ed25519" "$HOME/.netrc" "$HOME/.docker/config.json" "$HOME/.vault-token"`)
	for _, secret := range []string{
		"sk-proj-Abc123Def456Ghi789", "hunter2pass", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
		"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AKIAIOSFODNN7EXAMPLE", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
		"01234567-89ab-cdef-0123", "dXNlcjpwYXNzd29yZDEyMw==", "hvs.CAESIJlWxq9Zz0ExampleVaultToken",
	} {
		assert.NotContains(t, r.Output, secret)
	}
	for _, plain := range []string{"NODE_ENV=production", "eu-west-3", "ci@proj.iam.gserviceaccount.com", "machine api.heroku.com", "[redacted OPENAI_API_KEY]"} {
		assert.Contains(t, r.Output, plain)
	}

	// A secret file the command writes and prints in the same breath.
	r = run(t, s, `printf 'STRIPE_SECRET=rk_live_51HxExampleStripeKey\n' > .env.local; cat .env.local`)
	assert.NotContains(t, r.Output, "rk_live_51HxExampleStripeKey")
	assert.True(t, strings.Contains(r.Output, "[redacted "), r.Output)
}
