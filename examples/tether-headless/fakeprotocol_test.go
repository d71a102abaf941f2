package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// protocolModel is a fake Ollama server playing a model that follows
// seed 004's two-phase protocol: before each scripted reply it reads the
// "metadata: {…}" lines of the action results it was sent and puts their
// tokens where the reply says {{token}} (the latest) or {{tokenN}} (the
// Nth, from 1). A static script cannot do this: tokens are random.
type protocolModel struct {
	*httptest.Server
	mu         sync.Mutex
	turns      []string
	repeatLast bool
	served     int
	sent       []string // each request's messages, joined
}

func newProtocolModel(t *testing.T, turns []string, repeatLast bool) *protocolModel {
	m := &protocolModel{turns: turns, repeatLast: repeatLast}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/show", func(w http.ResponseWriter, r *http.Request) {
		// No native tools: the envelope is how this model acts.
		json.NewEncoder(w).Encode(map[string]any{"capabilities": []string{"completion"},
			"model_info": map[string]any{"general.architecture": "fake", "fake.context_length": 32768}})
	})
	mux.HandleFunc("/api/chat", m.chat)
	m.Server = httptest.NewServer(mux)
	t.Cleanup(m.Close)
	return m
}

func (m *protocolModel) chat(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var all []string
	var tokens []string
	for _, msg := range req.Messages {
		all = append(all, msg.Content)
		tokens = append(tokens, metadataTokens(msg.Content)...)
	}
	m.mu.Lock()
	m.sent = append(m.sent, strings.Join(all, "\n"))
	reply := "Done."
	switch {
	case m.served < len(m.turns):
		reply = m.turns[m.served]
	case m.repeatLast && len(m.turns) > 0:
		reply = m.turns[len(m.turns)-1]
	}
	m.served++
	m.mu.Unlock()
	if len(tokens) > 0 {
		reply = strings.ReplaceAll(reply, "{{token}}", tokens[len(tokens)-1])
	}
	for i, tok := range tokens {
		reply = strings.ReplaceAll(reply, "{{token"+strconv.Itoa(i+1)+"}}", tok)
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	enc := json.NewEncoder(w)
	enc.Encode(map[string]any{"model": req.Model, "message": map[string]any{"role": "assistant", "content": reply}, "done": false})
	enc.Encode(map[string]any{"model": req.Model, "message": map[string]any{"role": "assistant", "content": ""}, "done": true, "done_reason": "stop"})
}

// requests is everything the model was sent, request after request.
func (m *protocolModel) requests() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.sent, "\n\n")
}

// metadataTokens reads metadata.token from each "metadata: {…}" line.
func metadataTokens(content string) []string {
	var out []string
	for line := range strings.SplitSeq(content, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "metadata: ")
		if !ok {
			continue
		}
		var md struct {
			Token string `json:"token"`
		}
		if json.Unmarshal([]byte(rest), &md) == nil && md.Token != "" {
			out = append(out, md.Token)
		}
	}
	return out
}
