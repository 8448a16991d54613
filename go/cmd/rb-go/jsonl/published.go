//go:build !goexperiment.jsonv2 || go1.27

package main

// The published Go program, as published (variant go-published): a
// bufio.Scanner over the file with its default 64 KiB line limit, every
// line given to json.Unmarshal into a struct with an int Status, and the
// first error ends the count. It follows none of the round's rules, so it
// runs on the clean log only (bad-rate=0). Like the go variant, it is
// built without the jsonv2 experiment, which would reimplement
// encoding/json on v2.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func init() {
	harness.Register("jsonl", "go-published", func(a *harness.Args) {
		cleanLogOnly(a)
		runJsonl(a, countFilePublished)
	}, jsonlUnits...)
}

// publishedEntry is the published program's record. encoding/json matches
// "status" to Status without regard to case, and leaves Status at 0 when
// the key is absent or null: the published program counts such a line as
// status 0.
type publishedEntry struct {
	Status int `json:"status"`
}

// countPublished is the published program's loop. It returns the counts
// per status and how many lines it read; an error names the line it
// stopped at (the line count is this runner's, for the message: the
// published program only exits).
func countPublished(path string) (map[int]int, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	counts := make(map[int]int)
	var line int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line++
		var e publishedEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, line, err
		}
		counts[e.Status]++
	}
	if err := sc.Err(); err != nil {
		// bufio.ErrTooLong: the line after the last one read is longer
		// than the Scanner's buffer.
		return nil, line + 1, err
	}
	return counts, line, nil
}

// countFilePublished is the published count as the round's result: every
// line read is a valid line with its status, or the count stopped.
func countFilePublished(path string) (*roundbench.JsonlResult, error) {
	counts, lines, err := countPublished(path)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: the published program stops at its first bad line (%v); "+
			"it counts a clean log only (bad-rate=0)", path, lines, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	r := &roundbench.JsonlResult{Lines: lines, Valid: lines, Bytes: st.Size(), Statuses: make(map[int64]int64, len(counts))}
	for status, n := range counts {
		r.Statuses[int64(status)] = int64(n)
	}
	return r, nil
}

// cleanLogOnly ends the child with ExitCannot unless the cell's log is the
// clean one (bad-rate=0): the published program stops at the first bad
// line, so a log with bad lines is not one it can count (a skip row, not a
// failure). Without the parameter the log has the round's default rate.
func cleanLogOnly(a *harness.Args) {
	a.Int("lines", defaultLines, 0, maxLines) // a wrong parameter is a usage error before the log is judged
	for i, k := range a.Keys {
		if k != "bad-rate" {
			continue
		}
		rate, err := strconv.ParseFloat(a.Vals[i], 64)
		if err != nil || rate < 0 || rate > 1 {
			harness.Exit(harness.ExitUsage, "jsonl: bad-rate=%s is not a share in [0, 1]", a.Vals[i])
		}
		if rate == 0 {
			return
		}
	}
	harness.Exit(harness.ExitCannot, "cannot run here: %s stops at the first bad line: it counts the clean log "+
		"only (bad-rate=0), and this log has bad lines", a.Impl)
}
