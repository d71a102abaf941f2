package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// OAuthConfig authorizes requests to a remote server with the OAuth 2.1
// authorization-code flow and PKCE, as the MCP authorization spec asks:
// when the server answers 401, the client discovers its authorization
// server from the protected-resource metadata, sends the user to the
// authorization URL (through Authorize), exchanges the code for tokens and
// retries. Tokens are refreshed before they expire, and every new or
// refreshed token is saved to Tokens, so the next run needs no browser.
type OAuthConfig struct {
	// ClientID and ClientSecret are the client's registration with the
	// authorization server; an empty ClientID registers dynamically
	// (RFC 7591) with RedirectURL. ClientSecret is empty for a public
	// client.
	ClientID     string
	ClientSecret string
	// RedirectURL is where the authorization server sends the browser
	// back with the code (a loopback listener of the host, typically).
	RedirectURL string
	// Authorize shows the user the authorization URL (opens a browser)
	// and returns the code and state from the redirect. Required.
	Authorize auth.AuthorizationCodeFetcher
	// Tokens keeps tokens between runs; nil keeps them in memory only.
	Tokens TokenStore
}

func (o *OAuthConfig) validate() error {
	if o.Authorize == nil {
		return errors.New("Authorize is required: it shows the user the authorization URL and returns the code")
	}
	if o.RedirectURL == "" {
		return errors.New("RedirectURL is required: the authorization server sends the code there")
	}
	return nil
}

// OAuthToken is what a TokenStore keeps for one server: the token and the
// endpoint that refreshes it.
type OAuthToken struct {
	Token    *oauth2.Token `json:"token"`
	TokenURL string        `json:"token_url"`
}

// TokenStore keeps a server's OAuth tokens, in the host's keychain or
// config directory. Load returns nil, nil when it has none.
type TokenStore interface {
	Load(ctx context.Context, server string) (*OAuthToken, error)
	Save(ctx context.Context, server string, tok *OAuthToken) error
}

// newOAuthHandler builds the SDK's authorization-code handler for one
// server, starting from a stored token when there is one.
func newOAuthHandler(ctx context.Context, server, endpoint string, o *OAuthConfig, hc *http.Client) (auth.OAuthHandler, error) {
	save := func(tokenURL string, ts oauth2.TokenSource) oauth2.TokenSource {
		if o.Tokens == nil {
			return ts
		}
		return &savingSource{base: ts, save: func(t *oauth2.Token) error {
			return o.Tokens.Save(context.WithoutCancel(ctx), server, &OAuthToken{Token: t, TokenURL: tokenURL})
		}}
	}
	// Refreshes outlive the connect call: they use a context that is never
	// cancelled, carrying the configured HTTP client.
	bg := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, hc)
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              o.RedirectURL,
		AuthorizationCodeFetcher: o.Authorize,
		RequestRefreshToken:      true,
		Client:                   hc,
		NewTokenSource: func(_ context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			return save(c.Endpoint.TokenURL, c.TokenSource(bg, t)), nil
		},
	}
	if o.ClientID != "" {
		creds := &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
		cfg.PreregisteredClient = creds
	} else {
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				ClientName:              "Tether",
				RedirectURIs:            []string{o.RedirectURL},
				GrantTypes:              []string{"authorization_code", "refresh_token"},
				TokenEndpointAuthMethod: "none",
			},
		}
	}
	if o.Tokens != nil {
		stored, err := o.Tokens.Load(ctx, server)
		if err != nil {
			return nil, fmt.Errorf("mcp: server %q: load OAuth token: %w", server, err)
		}
		if stored != nil && stored.Token != nil {
			c := &oauth2.Config{ClientID: o.ClientID, ClientSecret: o.ClientSecret,
				Endpoint: oauth2.Endpoint{TokenURL: stored.TokenURL}}
			cfg.InitialTokenSource = save(stored.TokenURL, c.TokenSource(bg, stored.Token))
		}
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: server %q: OAuth: %v", ErrConfig, server, err)
	}
	return h, nil
}

// savingSource saves every token that differs from the last one it saw
// (the first, and each refresh).
type savingSource struct {
	base oauth2.TokenSource
	save func(*oauth2.Token) error
	mu   sync.Mutex
	last string
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	t, err := s.base.Token()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.AccessToken != s.last {
		if err := s.save(t); err != nil {
			return nil, fmt.Errorf("mcp: save OAuth token: %w", err)
		}
		s.last = t.AccessToken
	}
	return t, nil
}
