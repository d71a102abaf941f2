package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/tools"
)

// authServer is a minimal OAuth 2.1 authorization server: authorization
// code with PKCE (S256 only) and refresh tokens.
type authServer struct {
	*httptest.Server
	mu         sync.Mutex
	challenges map[string]string // code → code_challenge
	valid      map[string]bool   // access tokens
	refreshes  int
	pkceOK     bool
}

func newAuthServer(t *testing.T) *authServer {
	as := &authServer{challenges: map[string]string{}, valid: map[string]bool{}}
	mux := http.NewServeMux()
	as.Server = httptest.NewServer(mux)
	t.Cleanup(as.Close)
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": as.URL, "authorization_endpoint": as.URL + "/authorize", "token_endpoint": as.URL + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("client_id") != "tether-test" {
			http.Error(w, "PKCE S256 and client_id required", http.StatusBadRequest)
			return
		}
		as.mu.Lock()
		code := fmt.Sprintf("code-%d", len(as.challenges))
		as.challenges[code] = q.Get("code_challenge")
		as.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		bq := back.Query()
		bq.Set("code", code)
		bq.Set("state", q.Get("state"))
		back.RawQuery = bq.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		as.mu.Lock()
		defer as.mu.Unlock()
		issue := func(access string, expires int) {
			as.valid[access] = true
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"access_token": access, "token_type": "Bearer",
				"expires_in": expires, "refresh_token": "refresh-1"})
		}
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			want, ok := as.challenges[r.Form.Get("code")]
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != want {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			as.pkceOK = true
			// Expires at once, so the client must refresh before using it.
			issue("access-1", 1)
		case "refresh_token":
			if r.Form.Get("refresh_token") != "refresh-1" {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			as.refreshes++
			issue(fmt.Sprintf("access-r%d", as.refreshes), 3600)
		default:
			http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
		}
	})
	return as
}

type memTokens struct {
	mu    sync.Mutex
	saved []*OAuthToken
}

func (m *memTokens) Load(context.Context, string) (*OAuthToken, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.saved) == 0 {
		return nil, nil
	}
	return m.saved[len(m.saved)-1], nil
}

func (m *memTokens) Save(_ context.Context, _ string, t *OAuthToken) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.saved = append(m.saved, t)
	return nil
}

// TestOAuthFlow: a 401 starts the authorization-code flow with PKCE; the
// token is refreshed when it expires, saved, and reused by the next run
// without asking the user again.
func TestOAuthFlow(t *testing.T) {
	as := newAuthServer(t)
	ws := workspace(t, map[string]string{"a.txt": "behind oauth\n"})
	mcpHandler := Handler(builtinServer(t, ws, ServeOptions{}))
	mux := http.NewServeMux()
	rs := httptest.NewServer(mux)
	defer rs.Close()
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		as.mu.Lock()
		defer as.mu.Unlock()
		if !as.valid[tok] {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	prm := rs.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(
		&oauthex.ProtectedResourceMetadata{Resource: rs.URL + "/mcp", AuthorizationServers: []string{as.URL}}))
	mux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prm})(mcpHandler))

	var browsed int
	browser := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	authorize := func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		browsed++
		resp, err := browser.Get(args.URL)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		loc, err := url.Parse(resp.Header.Get("Location"))
		if err != nil || loc.Query().Get("code") == "" {
			return nil, fmt.Errorf("authorization failed: %s %s", resp.Status, resp.Header.Get("Location"))
		}
		return &auth.AuthorizationResult{Code: loc.Query().Get("code"), State: loc.Query().Get("state")}, nil
	}
	store := &memTokens{}
	cfg := ServerConfig{Name: "secure", URL: rs.URL + "/mcp", Rules: Rules{Allow: []string{"read_file"}},
		OAuth: &OAuthConfig{ClientID: "tether-test", RedirectURL: "http://127.0.0.1:1/callback", Authorize: authorize, Tokens: store}}
	ctx := context.Background()
	for run := range 2 {
		c, err := Connect(ctx, cfg)
		require.NoError(t, err, "run %d", run)
		var reg tools.Registry
		_, err = c.Register(ctx, &reg)
		require.NoError(t, err)
		res := reg.Execute(ctx, tools.Call{Name: "secure__read_file", Arguments: []byte(`{"path":"a.txt"}`)})
		assert.Contains(t, res.Text, "behind oauth")
		require.NoError(t, c.Close())
	}
	assert.Equal(t, 1, browsed, "the second run reuses the stored token")
	assert.True(t, as.pkceOK, "the code was exchanged with a matching PKCE verifier")
	assert.GreaterOrEqual(t, as.refreshes, 1, "the expired token was refreshed")
	last, _ := store.Load(ctx, "secure")
	require.NotNil(t, last)
	assert.Equal(t, "access-r1", last.Token.AccessToken, "the refreshed token was saved")
	assert.Equal(t, as.URL+"/token", last.TokenURL)
}
