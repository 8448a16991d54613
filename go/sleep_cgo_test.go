//go:build cgo

package roundbench

func init() {
	sleepers["Sleep"] = Sleep
}
