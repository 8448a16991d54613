//go:build !goexperiment.jsonv2

package main

import "roundbench/go"

func init() { register("go", roundbench.PureJsonlCountFile) }
