//go:build cgo

package roundbench

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The aspects readers on arbitrary files: the pure Go readers
// (AspectsParseEphemeris, AspectsParseEvents) and the core's (through
// AspectsParse) must accept the same texts, and refuse the others at the
// same line (the words may differ); what they accept must hold the same
// data. The core's table is reached through its chart (the ten bodies'
// longitudes are the rows' values interpolated, plain arithmetic, the same
// in both; the Ascendant, the Midheaven and the cusps take trigonometry,
// which the core computes its own way within a few ulps of libm's, so they
// are not compared), its events through a search whose combination every
// event matches.

// aspectsSeeds adds every file of testdata/aspects/ whose name matches
// pattern, with the arguments after it.
func aspectsSeeds(f *testing.F, pattern string, args ...any) {
	paths, err := filepath.Glob(filepath.Join(aspectsData, pattern))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seeds %s in %s: %v", pattern, aspectsData, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]any{b}, args...)...)
	}
}

// aspectsRow is a row of the ephemeris, its date and ten longitudes.
func aspectsRow(date string, lon ...string) string {
	return date + "\t" + strings.Join(lon, "\t") + "\n"
}

func FuzzAspectsEphemeris(f *testing.F) {
	aspectsSeeds(f, "ephemeris.tsv")
	aspectsSeeds(f, "bad/eph-*.tsv")
	ten := strings.Fields("10 20 30 40 50 60 70 80 90 100")
	for _, s := range []string{
		"",
		aspectsTestHeader,
		strings.TrimSuffix(aspectsTestHeader, "\n"),
		twoDays,
		strings.TrimSuffix(twoDays, "\n"),
		twoDays + "\n",
		aspectsTestHeader + aspectsRow("2000-02-28", ten...) + aspectsRow("2000-02-29", ten...) + aspectsRow("2000-03-01", ten...),
		aspectsTestHeader + aspectsRow("1900-02-28", ten...) + aspectsRow("1900-03-01", ten...),
		aspectsTestHeader + aspectsRow("0001-01-01", ten...) + aspectsRow("0001-01-02", ten...),
		aspectsTestHeader + aspectsRow("9999-12-30", ten...) + aspectsRow("9999-12-31", ten...),
		aspectsTestHeader + aspectsRow("2000-01-01", strings.Fields("-0 0 359.999999 360 -360 719.5 -181 181 0.0000001 -0.0")...) +
			aspectsRow("2000-01-02", strings.Fields("179.9 -180.1 0 1 2 3 4 5 6 7")...),
		// Beyond what the core reads exactly (19 digits, below 2^53, 22 decimals).
		aspectsTestHeader + aspectsRow("2000-01-01", strings.Fields("9007199254740993 12345678901234567890 0.12345678901234567890123 "+
			"1.00000000000000011102230246251565404236316680908203125 0.1 0.2 0.3 -4503599627370497.5 5 6")...) +
			aspectsRow("2000-01-02", ten...),
		aspectsTestHeader + aspectsRow("2000-01-01", ten...) + aspectsRow("2000-01-01", ten...),
		aspectsTestHeader + "2000-01-01\t10\t20\t30\t40\t50\t60\t70\t80\t90\t100\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		aspectsCheckEphemeris(t, text)
		aspectsCheckEphemeris(t, aspectsNumberRows(text))
	})
}

// aspectsFields are the fields of text, split at tabs and newlines, at
// most 200 of them.
func aspectsFields(text []byte) []string {
	fields := strings.FieldsFunc(string(text), func(r rune) bool { return r == '\t' || r == '\n' })
	return fields[:min(len(fields), 200)]
}

// aspectsNumberRows is a table whose longitudes are the fields of text,
// ten a row, in rows of consecutive days from 2000-01-01, the last row's
// missing fields and one more row zeros: every field is read as a number,
// and every row is in the table before its last day, where its values
// are the chart's at the start of the day.
func aspectsNumberRows(text []byte) []byte {
	fields := aspectsFields(text)
	for len(fields)%AspectsBodies != 0 || len(fields) == 0 {
		fields = append(fields, "0")
	}
	fields = append(fields, strings.Fields(strings.Repeat("0 ", AspectsBodies))...)
	first, _ := parseDate("2000-01-01")
	var b strings.Builder
	b.WriteString(aspectsTestHeader)
	for r := 0; r < len(fields)/AspectsBodies; r++ {
		b.WriteString(aspectsRow(formatDay(first+int64(r)), fields[r*AspectsBodies:(r+1)*AspectsBodies]...))
	}
	return []byte(b.String())
}

// aspectsCheckEphemeris holds the two readers to each other on one
// ephemeris text.
func aspectsCheckEphemeris(t *testing.T, text []byte) {
	t.Helper()
	e, perr := AspectsParseEphemeris(string(text), "eph.tsv")
	a, cerr := AspectsParse(text, nil, "eph.tsv", "ev.tsv")
	if !aspectsSameVerdict(t, "ephemeris", text, perr, cerr) {
		return
	}
	defer a.Close()
	if a.Rows() != len(e.Rows) || a.Events() != 0 {
		t.Fatalf("ephemeris %q: the core has %d rows, %d events; the pure Go reader %d rows", text, a.Rows(), a.Events(), len(e.Rows))
	}
	// Every row's values through the chart at the start and the middle
	// of each day, and the table's ends: a second before and its last day.
	first := e.FirstDay * daySeconds
	times := []int64{first - 1, first + int64(len(e.Rows)-1)*daySeconds - 1, first + int64(len(e.Rows)-1)*daySeconds}
	for i := range len(e.Rows) - 1 {
		times = append(times, first+int64(i)*daySeconds, first+int64(i)*daySeconds+daySeconds/2)
	}
	for _, s := range times {
		want, perr := PureAspectsChartAt(e, s, 0, 0)
		got, cerr := a.ChartAt(s, 0, 0)
		if (perr == nil) != (cerr == nil) {
			t.Fatalf("ephemeris %q: the chart at %d s: the pure Go table's error %v, the core's %v", text, s, perr, cerr)
		}
		for b := 0; b < AspectsBodies; b++ {
			if w, g := want.Point[b], got.Point[b]; math.Float64bits(w) != math.Float64bits(g) && !(w != w && g != g) {
				t.Fatalf("ephemeris %q: %s at %d s: the core has %v, the pure Go table %v", text, AspectsPointNames[b], s, g, w)
			}
		}
	}
}

// aspectsSameVerdict fails t unless both readers accepted the text or both
// refused it with ErrArg at the same line; it reports whether they
// accepted it.
func aspectsSameVerdict(t *testing.T, what string, text []byte, perr, cerr error) bool {
	t.Helper()
	if (perr == nil) != (cerr == nil) {
		t.Fatalf("%s %q: the pure Go reader says %v; the core says %v", what, text, perr, cerr)
	}
	if perr == nil {
		return true
	}
	var pe, ce *Error
	if !errors.As(perr, &pe) || !errors.As(cerr, &ce) || pe.Kind != ErrArg || ce.Kind != ErrArg || pe.Pos != ce.Pos {
		t.Fatalf("%s %q: the pure Go reader refuses it with %v; the core with %v; want ErrArg, the same line", what, text, perr, cerr)
	}
	return false
}

// aspectsFuzzTables are the tables FuzzAspectsEvents reads events for:
// from a first day, so many days, the Sun and the Moon together every day
// (so that Sun-0-Moon holds at every event). The first is the span of
// testdata/aspects/ephemeris.tsv; the others have no rows, one row, and
// lie at the ends of the calendar.
var aspectsFuzzTables = []struct {
	first string
	days  int
}{{"2000-03-01", 61}, {"2000-03-01", 0}, {"2000-03-01", 1}, {"0001-01-01", 5}, {"9999-12-27", 5}}

func aspectsFuzzTable(t testing.TB, k int) string {
	first, ok := parseDate(aspectsFuzzTables[k].first)
	if !ok {
		t.Fatalf("table %d: bad first date", k)
	}
	var b strings.Builder
	b.WriteString(aspectsTestHeader)
	for d := range aspectsFuzzTables[k].days {
		b.WriteString(formatDay(first + int64(d)))
		sun := math.Mod(float64(d)*0.9856+280, 360)
		fmt.Fprintf(&b, "\t%.6f\t%.6f", sun, sun)
		for body := 2; body < AspectsBodies; body++ {
			fmt.Fprintf(&b, "\t%.6f", math.Mod(float64(body*37+d*body), 360))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func FuzzAspectsEvents(f *testing.F) {
	aspectsSeeds(f, "events*.tsv", uint8(0))
	aspectsSeeds(f, "bad/ev-*.tsv", uint8(0))
	const header = "time\tlat\tlon\tname\n"
	for _, s := range []struct {
		text  string
		table uint8
	}{
		{header + "2000-03-01T00:00:00Z\t66\t-180\ta\n2000-04-29T23:59:59Z\t-66.0\t180.000\tZ_9-\n", 0},
		{header + "2000-04-30T00:00:00Z\t0\t0\tlast-day\n", 0},
		{header + "2000-02-29T23:59:59Z\t0\t0\tbefore\n", 0},
		{header + "2000-03-01T12:00:00Z\t66.0000000000000001\t-0\tx", 0},
		{header + "2000-03-01T12:00:00Z\t1\t2\tx\n", 1},
		{header + "2000-03-01T12:00:00Z\t1\t2\tx\n", 2},
		{header + "0001-01-01T00:00:00Z\t1\t2\tfirst\n0001-01-04T23:59:59Z\t1\t2\tlast\n", 3},
		{header + "9999-12-27T00:00:00Z\t1\t2\tfirst\n9999-12-30T23:59:59Z\t1\t2\tlast\n", 4},
		{header + "2000-03-01T12:00:00Z\t1\t2\tx\r\n", 0},
		{header + "2000-03-01T12:00:00Z\t1\t2\tx\t\n", 0},
		{header + "2000-02-30T12:00:00Z\t1\t2\tx\n", 0},
		{header + "\n", 0},
		{strings.TrimSuffix(header, "\n"), 0},
		{"", 0},
	} {
		f.Add([]byte(s.text), s.table)
	}
	tables := make([]string, len(aspectsFuzzTables))
	eph := make([]*AspectsEphemeris, len(aspectsFuzzTables))
	for k := range tables {
		tables[k] = aspectsFuzzTable(f, k)
		var err error
		if eph[k], err = AspectsParseEphemeris(tables[k], "eph.tsv"); err != nil || len(eph[k].Rows) != aspectsFuzzTables[k].days {
			f.Fatalf("table %d: %v", k, err)
		}
	}
	terms, err := AspectsParseCombo("Sun-0-Moon")
	if err != nil {
		f.Fatal(err)
	}
	c := &aspectsEventsCheck{tables: tables, eph: eph, terms: terms}
	f.Fuzz(func(t *testing.T, text []byte, table uint8) {
		c.check(t, text, int(table)%len(tables))
		c.check(t, aspectsPlaceEvents(text), 0)
	})
}

// aspectsPlaceEvents is an events text whose latitudes and longitudes
// are the fields of text (split at tabs and newlines), two an event, each
// event on the second day of table 0 (the last one's missing longitude
// 0): every field is read as a number and held to the ranges.
func aspectsPlaceEvents(text []byte) []byte {
	fields := aspectsFields(text)
	if len(fields)%2 != 0 {
		fields = append(fields, "0")
	}
	var b strings.Builder
	b.WriteString("time\tlat\tlon\tname\n")
	for k := 0; k < len(fields); k += 2 {
		fmt.Fprintf(&b, "2000-03-02T%02d:%02d:00Z\t%s\t%s\te%d\n", k/2%24, k%60, fields[k], fields[k+1], k/2)
	}
	return []byte(b.String())
}

// aspectsEventsCheck holds the tables FuzzAspectsEvents reads events for,
// as texts and as the pure Go reader's, and the combination every event
// matches.
type aspectsEventsCheck struct {
	tables []string
	eph    []*AspectsEphemeris
	terms  []AspectsTerm
}

// check holds the two readers to each other on one events text for
// table k.
func (c *aspectsEventsCheck) check(t *testing.T, text []byte, k int) {
	t.Helper()
	ev, perr := AspectsParseEvents(string(text), "ev.tsv", c.eph[k])
	a, cerr := AspectsParse([]byte(c.tables[k]), text, "eph.tsv", "ev.tsv")
	if !aspectsSameVerdict(t, fmt.Sprintf("events (table %d)", k), text, perr, cerr) {
		return
	}
	defer a.Close()
	n := len(ev.Events)
	if a.Events() != n || a.Rows() != len(c.eph[k].Rows) {
		t.Fatalf("events %q (table %d): the core has %d events, %d rows; the pure Go reader %d events, %d rows", text, k, a.Events(), a.Rows(), n, len(c.eph[k].Rows))
	}
	// Every event matches; its line names it and its time as written.
	want, wantMatches, err := PureAspectsSearch(c.eph[k], ev, c.terms, 1, nil)
	if err != nil || wantMatches != n {
		t.Fatalf("events %q (table %d): the pure Go search: %d matches of %d, %v", text, k, wantMatches, n, err)
	}
	got, matches, err := a.Search(0, n, "Sun-0-Moon", 1, nil)
	if err != nil || matches != n {
		t.Fatalf("events %q (table %d): the core's search: %d matches of %d, %v", text, k, matches, n, err)
	}
	// The count line after the matches takes the Ascendant and the
	// Midheaven (trigonometry): only the match lines are compared.
	if w, g := aspectsMatchLines(want), aspectsMatchLines(got); !bytes.Equal(w, g) {
		t.Fatalf("events %q (table %d): the core's events\n%s\nthe pure Go reader's\n%s", text, k, g, w)
	}
}

// aspectsMatchLines is a test 1 output without its last line, the counts.
func aspectsMatchLines(out []byte) []byte {
	body := bytes.TrimSuffix(out, []byte("\n"))
	return body[:bytes.LastIndexByte(body, '\n')+1]
}
