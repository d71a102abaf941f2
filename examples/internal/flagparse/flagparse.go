// Package flagparse parses the agent examples' flags the way a person
// reading a terminal wants: -h prints the whole help, and a mistyped flag
// prints only what was wrong and where the help is, instead of burying
// the error under pages of usage as flag.FlagSet does by itself.
package flagparse

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Parse parses args with fs. On -h it prints fs's usage and returns
// flag.ErrHelp; on a bad flag it prints nothing and returns the error,
// saying how to get the help. fs must use flag.ContinueOnError.
func Parse(fs *flag.FlagSet, args []string) error {
	// FlagSet.Parse prints its error and calls Usage on any failure;
	// both are held back here and done as the failure deserves.
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return err
	case err != nil:
		return fmt.Errorf("%w (%s -h lists every flag)", err, fs.Name())
	}
	return nil
}
