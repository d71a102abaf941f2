module github.com/tetherdev/tether

go 1.26.0
