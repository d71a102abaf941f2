package lsp

import (
	"encoding/json"
	"strings"
)

// The subset of the Language Server Protocol 3.17 this client speaks.
// Positions are zero-based; Character counts UTF-16 code units, the
// protocol's default encoding (see Document for conversions).

// Position is a zero-based line and UTF-16 character offset.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a half-open span [Start, End).
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document named by its URI.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// locationOrLink decodes a Location or a LocationLink (servers answer
// definition requests with either).
type locationOrLink struct {
	URI                  string `json:"uri"`
	Range                *Range `json:"range"`
	TargetURI            string `json:"targetUri"`
	TargetSelectionRange *Range `json:"targetSelectionRange"`
	TargetRange          *Range `json:"targetRange"`
}

func (l locationOrLink) location() (Location, bool) {
	switch {
	case l.TargetURI != "" && l.TargetSelectionRange != nil:
		return Location{URI: l.TargetURI, Range: *l.TargetSelectionRange}, true
	case l.TargetURI != "" && l.TargetRange != nil:
		return Location{URI: l.TargetURI, Range: *l.TargetRange}, true
	case l.URI != "" && l.Range != nil:
		return Location{URI: l.URI, Range: *l.Range}, true
	}
	return Location{}, false
}

// decodeLocations accepts null, a single Location, or an array of
// Locations or LocationLinks.
func decodeLocations(raw json.RawMessage) ([]Location, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	var many []locationOrLink
	if strings.HasPrefix(s, "{") {
		var one locationOrLink
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, err
		}
		many = []locationOrLink{one}
	} else if err := json.Unmarshal(raw, &many); err != nil {
		return nil, err
	}
	out := make([]Location, 0, len(many))
	for _, l := range many {
		if loc, ok := l.location(); ok {
			out = append(out, loc)
		}
	}
	return out, nil
}

// SymbolKind is LSP's symbol kind number.
type SymbolKind int

var symbolKindNames = [...]string{"", "file", "module", "namespace", "package", "class", "method", "property",
	"field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number",
	"boolean", "array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

func (k SymbolKind) String() string {
	if k > 0 && int(k) < len(symbolKindNames) {
		return symbolKindNames[k]
	}
	return "symbol"
}

// DocumentSymbol is one node of a document's outline.
type DocumentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           SymbolKind       `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selectionRange"`
	Children       []DocumentSymbol `json:"children,omitempty"`
}

// SymbolInformation is a flat symbol with its location (workspace/symbol,
// and documentSymbol from older servers).
type SymbolInformation struct {
	Name          string     `json:"name"`
	Kind          SymbolKind `json:"kind"`
	ContainerName string     `json:"containerName,omitempty"`
	Location      Location   `json:"location"`
}

// Hover is the answer to a hover request, its contents flattened to text.
type Hover struct {
	Contents string
	Range    *Range
}

// UnmarshalJSON accepts MarkupContent, a MarkedString, or an array of
// MarkedStrings.
func (h *Hover) UnmarshalJSON(b []byte) error {
	var w struct {
		Contents json.RawMessage `json:"contents"`
		Range    *Range          `json:"range"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	h.Range = w.Range
	h.Contents = markedText(w.Contents)
	return nil
}

func markedText(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "" || s == "null":
		return ""
	case strings.HasPrefix(s, "\""):
		var str string
		_ = json.Unmarshal(raw, &str)
		return str
	case strings.HasPrefix(s, "["):
		var parts []json.RawMessage
		_ = json.Unmarshal(raw, &parts)
		var out []string
		for _, p := range parts {
			if t := markedText(p); t != "" {
				out = append(out, t)
			}
		}
		return strings.Join(out, "\n\n")
	}
	var obj struct {
		Kind     string `json:"kind"`
		Value    string `json:"value"`
		Language string `json:"language"`
	}
	_ = json.Unmarshal(raw, &obj)
	if obj.Language != "" {
		return "```" + obj.Language + "\n" + obj.Value + "\n```"
	}
	return obj.Value
}

// CallHierarchyItem is a function or method in a call hierarchy.
type CallHierarchyItem struct {
	Name           string          `json:"name"`
	Kind           SymbolKind      `json:"kind"`
	Detail         string          `json:"detail,omitempty"`
	URI            string          `json:"uri"`
	Range          Range           `json:"range"`
	SelectionRange Range           `json:"selectionRange"`
	Data           json.RawMessage `json:"data,omitempty"`
}

// CallHierarchyIncomingCall is a caller and the ranges of its calls.
type CallHierarchyIncomingCall struct {
	From       CallHierarchyItem `json:"from"`
	FromRanges []Range           `json:"fromRanges"`
}

// CallHierarchyOutgoingCall is a callee and where the caller calls it.
type CallHierarchyOutgoingCall struct {
	To         CallHierarchyItem `json:"to"`
	FromRanges []Range           `json:"fromRanges"`
}

// TypeHierarchyItem is a type in a type hierarchy.
type TypeHierarchyItem struct {
	Name           string          `json:"name"`
	Kind           SymbolKind      `json:"kind"`
	Detail         string          `json:"detail,omitempty"`
	URI            string          `json:"uri"`
	Range          Range           `json:"range"`
	SelectionRange Range           `json:"selectionRange"`
	Data           json.RawMessage `json:"data,omitempty"`
}

// DiagnosticSeverity ranks a diagnostic; 1 is an error.
type DiagnosticSeverity int

func (s DiagnosticSeverity) String() string {
	switch s {
	case 1:
		return "error"
	case 2:
		return "warning"
	case 3:
		return "info"
	case 4:
		return "hint"
	}
	return "error"
}

// Diagnostic is one problem the server found in a document.
type Diagnostic struct {
	Range    Range              `json:"range"`
	Severity DiagnosticSeverity `json:"severity,omitempty"`
	Code     json.RawMessage    `json:"code,omitempty"`
	Source   string             `json:"source,omitempty"`
	Message  string             `json:"message"`
}

type textDocumentIdentifier struct {
	URI string `json:"uri"`
}

type textDocumentPositionParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}
