package toolcall

// A block is call markup recognised by an explicit opener: a tag,
// [TOOL_CALLS], <|python_tag|>, >>>name, or a yips fence. Its content is a
// sequence of JSON items; it ends at its close tag, or where something
// other than an item follows, or at the end of input (a missing close tag
// at the very end is accepted).

type block struct {
	blockVars
	// jm keeps its slices and finders from block to block; startBlock
	// resets it, and replaces blockVars whole.
	jm jsonMachine
}

// blockVars is the state of a block that starts from zero.
type blockVars struct {
	seq    int
	start  int // span start (the fence when a fence wraps the tag)
	format Format
	open   *opener // tag blocks
	name   string  // tool name given by the markup (<function=x>, name[ARGS], >>>x)
	yips   string
	fenced bool // a call-capable fence opened before the tag

	state    bstate
	itemName string      // name from a <function=x> inside a wrapper
	fnClose  bool        // the dialect's </function> may follow the current item
	xml      *xmlDialect // the spelling of the current XML-like item (params.go)
	tail     bool        // an item's end token (items grammar) may follow
	itemID   string      // the call ID from an item header
	itemAnon bool        // the item header names no tool (tokens.go kimiName)
	itemFen  bool        // the current header's arguments are fenced
	pyStart  int         // bPyTag: first byte of the code
	pyScan   int         // bPyTag: no end token starts before this offset
	pyd      pyList      // bPyDict: the dict being scanned
	py       *pyWrapper  // FormatPythonic: the token that opened the list
	items    int
	calls    []Call
	repaired bool
	// truncated: the current item was cut off and closed by repair.
	truncated bool
	envText   string
	warnings  []Warning
	pathSent  int // members already checked for progress events
	nameSent  bool
	id        string // [CALL_ID] of a Mistral call
	joined    bool   // another Mistral v11 call follows the last one after a comma
	itemEnd   int    // offset just past the last item (and its </function>)
	trailEnd  int    // bTrail: where the block ends if it is a call
	// Per-item failure isolation (itemfail.go).
	inItem      bool   // reading an item that has its own delimiters
	itemStart   int    // where that item began
	itemScan    int    // bItemSkip: where the search for its end resumes
	skipErr     error  // bItemSkip: why the item failed
	skipReason  string //
	dropText    string // raw text of the failed items, kept as prose
	failedItems int
	gq          bool // bGemma: inside a <|"|> string
	par         params
}

type bstate uint8

const (
	bItems      bstate = iota // between items
	bValue                    // inside an item's JSON
	bMistral                  // after [TOOL_CALLS]: a JSON value or name[ARGS]
	bFenceClose               // after the close tag of a fenced block
	bParams                   // inside <parameter=…> arguments (params.go)
	bPyTag                    // python after <|python_tag|> (pytag.go)
	bGLM                      // GLM <arg_key>/<arg_value> pairs (glm.go)
	bOrphan                   // after a bare <function=…>…</function>: an orphan </tool_call> may follow
	bPyDict                   // a Python dict item in a tag (pydict.go)
	bTrail                    // complete: waiting to see whether prose follows on its line (sentence.go)
	bItemSkip                 // skipping a broken item of a section (itemfail.go)
	bGemma                    // a Gemma 4 call:NAME{…} (gemma.go)
)
