// Package geom has shapes.
package geom

import "math"

// Shape is anything with an area.
type Shape interface {
	// Area returns the surface in square units.
	Area() float64
}

// Circle is a round shape.
type Circle struct {
	Radius float64
}

// Area returns π r².
func (c Circle) Area() float64 { return math.Pi * c.Radius * c.Radius }

// Square is a shape with four equal sides.
type Square struct {
	Side float64
}

// Area returns the side squared.
func (s Square) Area() float64 { return s.Side * s.Side }

// Total adds up the areas of shapes.
func Total(shapes ...Shape) float64 {
	sum := 0.0
	for _, s := range shapes {
		sum += s.Area()
	}
	return sum
}
