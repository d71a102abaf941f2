package pdftools

import (
	"fmt"

	"github.com/ledongthuc/pdf"
)

// Bounds of the page tree walk. Real documents nest a few levels; a
// producer that balances a tree of a million pages needs about ten.
const (
	maxTreeDepth = 64      // Pages nodes inside one another, and Parent hops up from a page
	maxTreeNodes = 1 << 17 // nodes visited in all
)

// pageList returns the document's pages in order, walking the page tree
// itself rather than trusting its counts. The pdf package follows Kids
// and Parent links without noticing a cycle (a Pages node that lists
// itself among its kids, a page that is its own parent), and loops
// forever on such a file; its values carry no object identity to detect
// one, so depth and size bounds stand in for it: a cycle exceeds them.
func pageList(rd *pdf.Reader) ([]pdf.Page, error) {
	var pages []pdf.Page
	nodes := 0
	var walk func(node pdf.Value, depth int) error
	walk = func(node pdf.Value, depth int) error {
		if nodes++; nodes > maxTreeNodes {
			return fmt.Errorf("%w: the page tree has more than %d nodes", ErrDamaged, maxTreeNodes)
		}
		switch node.Key("Type").Name() {
		case "Page":
			if err := checkParents(node); err != nil {
				return err
			}
			pages = append(pages, pdf.Page{V: node})
			return nil
		case "Pages":
			if depth >= maxTreeDepth {
				return fmt.Errorf("%w: the page tree nests deeper than %d levels (it may loop back on itself)", ErrDamaged, maxTreeDepth)
			}
			kids := node.Key("Kids")
			for i := range kids.Len() {
				if err := walk(kids.Index(i), depth+1); err != nil {
					return err
				}
			}
		}
		// Anything else in a Kids array is not a page; the pdf package
		// skips it too.
		return nil
	}
	if err := walk(rd.Trailer().Key("Root").Key("Pages"), 0); err != nil {
		return nil, err
	}
	return pages, nil
}

// checkParents refuses a page whose Parent chain is longer than the tree
// can be deep: the pdf package looks up inherited resources along it and
// would never reach the end of a cycle.
func checkParents(page pdf.Value) error {
	v := page
	for range maxTreeDepth + 1 {
		if v = v.Key("Parent"); v.IsNull() {
			return nil
		}
	}
	return fmt.Errorf("%w: a page's chain of parents is longer than %d (it may loop back on itself)", ErrDamaged, maxTreeDepth)
}
