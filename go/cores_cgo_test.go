//go:build cgo

package roundbench

func init() {
	coresImpls = append(coresImpls, coresImpl{"go-c", "LoopParallel", LoopParallel})
}
