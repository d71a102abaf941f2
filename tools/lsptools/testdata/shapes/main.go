package main

import (
	"fmt"

	"example.com/shapes/geom"
)

func main() {
	fmt.Println(report())
}

// report describes a few shapes.
func report() string {
	c := geom.Circle{Radius: 1}
	s := geom.Square{Side: 2}
	return fmt.Sprintf("total area %.2f", geom.Total(c, s))
}

// handleRequest is named like the seed's example.
func handleRequest() string { return report() }

// HandleRequest differs only in case.
func HandleRequest() string { return handleRequest() }
