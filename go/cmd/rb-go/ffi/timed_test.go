package main

import (
	"encoding/hex"
	"testing"

	"roundbench/go/internal/vectors"
)

// The args4 and str rows time the first vector of each kind and check
// its result, as the Python rows do (rounds/ffi.py, ARGS4 and STR_X).
func TestTimedCallsAreTheFirstVectors(t *testing.T) {
	a := vectors.AtLeast(t, "ffi-args4", 12)[0]
	s, err := hex.DecodeString(a.Str(t, "hex"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Int(t, "a") != args4A || a.Float(t, "b") != args4B || a.Int(t, "c") != int64(args4C) ||
		string(s) != args4S || a.Int(t, "result") != args4Want {
		t.Errorf("args4(%d, %g, %d, %q) = %d; the first ffi-args4 vector is %v", args4A, args4B, args4C, args4S,
			args4Want, a)
	}
	v := vectors.AtLeast(t, "ffi-str", 8)[0]
	if s, err = hex.DecodeString(v.Str(t, "hex")); err != nil {
		t.Fatal(err)
	}
	if v.Int(t, "x") != strX || string(s) != strWant {
		t.Errorf("str(%d) = %q; the first ffi-str vector is %v", strX, strWant, v)
	}
}
