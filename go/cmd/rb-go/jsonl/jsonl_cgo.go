//go:build cgo && (!goexperiment.jsonv2 || go1.27)

package main

import "roundbench/go"

func init() { register("go-c", roundbench.JsonlCountFile) }
