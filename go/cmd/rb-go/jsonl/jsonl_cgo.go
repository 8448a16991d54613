//go:build cgo && !goexperiment.jsonv2

package main

import "roundbench/go"

func init() { register("go-c", roundbench.JsonlCountFile) }
