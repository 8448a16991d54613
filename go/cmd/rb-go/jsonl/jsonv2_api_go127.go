//go:build go1.27

package main

// The encoding/json/v2 API go-jsonv2 uses (jsonv2.go), named here in a
// file of its own per Go release: from Go 1.27 it is standard, dated go1.27,
// so the file that names it says go1.27.

import (
	"encoding/json/jsontext"
	json "encoding/json/v2"
)

type v2Value = jsontext.Value

var (
	v2AllowDuplicateNames = jsontext.AllowDuplicateNames
	v2Unmarshal           = json.Unmarshal
)
