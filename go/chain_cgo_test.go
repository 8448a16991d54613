//go:build cgo

package roundbench

func init() {
	chainBuilders["NewChain(asm)"] = func(n, k, p int64) (chainer, error) {
		if c, err := NewChain(n, k, p, false); err == nil {
			return c, nil
		} else {
			return nil, err
		}
	}
	chainBuilders["NewChain(ucontext)"] = func(n, k, p int64) (chainer, error) {
		if c, err := NewChain(n, k, p, true); err == nil {
			return c, nil
		} else {
			return nil, err
		}
	}
}
