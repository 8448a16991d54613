//go:build cgo

package roundbench

func init() {
	tempsImpls = append(tempsImpls, tempsImpl{"Temps", Temps})
}
