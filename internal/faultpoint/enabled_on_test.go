//go:build tetherfault && unix

package faultpoint

const enabled = true
