//go:build goexperiment.jsonv2 && go1.25 && !go1.27

package main

// The encoding/json/v2 API go-jsonv2 uses (jsonv2.go), named here in a
// file of its own per Go release: with Go 1.25 and 1.26 it is the jsonv2
// experiment's. Go 1.27 made it standard and dates it go1.27, which a file
// whose version is older may not use (jsonv2_api_go127.go).

import (
	"encoding/json/jsontext"
	json "encoding/json/v2"
)

type v2Value = jsontext.Value

var (
	v2AllowDuplicateNames = jsontext.AllowDuplicateNames
	v2Unmarshal           = json.Unmarshal
)
