// Command toolcall finds the tool calls in a model's output.
//
// It reads the output on stdin and prints the parse result as JSON: the
// calls, the prose with the call markup removed, any thinking, and the
// blocks that failed with their reasons.
//
//	toolcall < reply.txt
//	toolcall -tools read_file,write_file < reply.txt
//
// With -stream N it feeds stdin to a toolcall.Stream N bytes at a time, as
// a model would stream it, and prints every event as one JSON line,
// followed by a final {"type":"result",…} line:
//
//	toolcall -stream 16 < reply.txt
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tetherdev/tether/toolcall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tether-toolcall", flag.ContinueOnError)
	fs.SetOutput(stderr)
	chunk := fs.Int("stream", 0, "feed stdin in chunks of `N` bytes and print events as JSON lines")
	tools := fs.String("tools", "", "comma-separated allow-list of tool `names`")
	thinking := fs.Bool("thinking", false, "the output starts inside a <think> block opened by the prompt")
	setUsage(fs, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "toolcall: unexpected argument %q; the model output is read from stdin\n", fs.Arg(0))
		return 2
	}
	if *chunk < 0 {
		fmt.Fprintf(stderr, "toolcall: -stream %d: the chunk size must be positive\n", *chunk)
		return 2
	}
	var opts []toolcall.Option
	if *tools != "" {
		opts = append(opts, toolcall.WithTools(strings.Split(*tools, ",")...))
	}
	if *thinking {
		opts = append(opts, toolcall.StartInThinking())
	}

	out := bufio.NewWriter(stdout)
	defer out.Flush()
	if *chunk == 0 {
		data, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintf(stderr, "toolcall: reading stdin: %v\n", err)
			return 1
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(toolcall.ParseWith(string(data), opts...)); err != nil {
			fmt.Fprintf(stderr, "toolcall: %v\n", err)
			return 1
		}
		return 0
	}

	enc := json.NewEncoder(out)
	s := toolcall.NewStream(opts...)
	write := func(evs []toolcall.Event) error {
		for _, e := range evs {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		return out.Flush() // a consumer sees each event as soon as it exists
	}
	buf := make([]byte, *chunk)
	for {
		n, err := io.ReadFull(stdin, buf)
		if n > 0 {
			if werr := write(s.Feed(string(buf[:n]))); werr != nil {
				fmt.Fprintf(stderr, "toolcall: %v\n", werr)
				return 1
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			fmt.Fprintf(stderr, "toolcall: reading stdin: %v\n", err)
			return 1
		}
	}
	if err := write(s.Flush()); err != nil {
		fmt.Fprintf(stderr, "toolcall: %v\n", err)
		return 1
	}
	final := struct {
		Type string `json:"type"`
		toolcall.Result
	}{"result", s.Close()}
	if err := enc.Encode(final); err != nil {
		fmt.Fprintf(stderr, "toolcall: %v\n", err)
		return 1
	}
	return 0
}
