package roundbench

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// aspectsImpl is one Go-side implementation of round aspects: its variant
// name and a search over the files at two paths.
type aspectsImpl struct {
	impl   string
	search func(ephemeris, events, combo string, test int) ([]byte, int, error)
}

// aspectsImpls are round aspects' Go-side implementations;
// aspects_cgo_test.go adds the core's (a file without cgo cannot name it).
var aspectsImpls = []aspectsImpl{
	{"go", func(ephemeris, events, combo string, test int) ([]byte, int, error) {
		e, ev, terms, err := aspectsLoadPure(ephemeris, events, combo)
		if err != nil {
			return nil, 0, err
		}
		return PureAspectsSearch(e, ev, terms, test, nil)
	}},
	{"go-columns", func(ephemeris, events, combo string, test int) ([]byte, int, error) {
		e, ev, terms, err := aspectsLoadPure(ephemeris, events, combo)
		if err != nil {
			return nil, 0, err
		}
		return PureAspectsSearchColumns(e.Columns(), ev.Columns(), terms, test, nil)
	}},
	{"go-reflect", func(ephemeris, events, combo string, test int) ([]byte, int, error) {
		e, ev, terms, err := aspectsLoadPure(ephemeris, events, combo)
		if err != nil {
			return nil, 0, err
		}
		return PureAspectsSearchReflect(e.Named(), ev, terms, test, nil)
	}},
}

func aspectsLoadPure(ephemeris, events, combo string) (*AspectsEphemeris, *AspectsEvents, []AspectsTerm, error) {
	e, err := AspectsLoadEphemeris(ephemeris)
	if err != nil {
		return nil, nil, nil, err
	}
	ev, err := AspectsLoadEvents(events, e)
	if err != nil {
		return nil, nil, nil, err
	}
	terms, err := AspectsParseCombo(combo)
	return e, ev, terms, err
}

const aspectsTestHeader = "date\tsun\tmoon\tmercury\tvenus\tmars\tjupiter\tsaturn\turanus\tneptune\tpluto\n"

// writeFile writes text to a file in dir and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// syntheticData writes an ephemeris of `days` days from 1999-12-01, each
// body moving at its own speed (the Moon's 13 degrees a day crosses 360
// often), and `n` events inside it from a fixed seed.
func syntheticData(t *testing.T, days, n int) (ephemeris, events string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(aspectsTestHeader)
	speeds := [AspectsBodies]float64{0.9856, 13.176, 1.383, 1.2, 0.524, 0.083, 0.034, 0.012, 0.006, 0.004}
	first := int64(36493) // 1999-12-01, from 1900-01-01
	for d := 0; d < days; d++ {
		b.WriteString(formatDay(first + int64(d)))
		for k, v := range speeds {
			lon := math.Mod(float64(k)*37.3+float64(d)*v, 360)
			if k == 2 && d%40 >= 20 { // Mercury retrograde now and then
				lon = math.Mod(200-float64(d)*0.4+360, 360)
			}
			fmt.Fprintf(&b, "\t%.6f", lon)
		}
		b.WriteString("\n")
	}
	dir := t.TempDir()
	ephemeris = writeFile(t, dir, "eph.tsv", b.String())
	r := rand.New(rand.NewPCG(1, 2))
	b.Reset()
	b.WriteString("time\tlat\tlon\tname\n")
	for i := 0; i < n; i++ {
		s := first*daySeconds + r.Int64N(int64(days-1)*daySeconds)
		day := s / daySeconds
		rem := s % daySeconds
		fmt.Fprintf(&b, "%sT%02d:%02d:%02dZ\t%.4f\t%.4f\tevent-%06d\n", formatDay(day), rem/3600, rem/60%60, rem%60,
			r.Float64()*132-66, r.Float64()*360-180, i+1)
	}
	return ephemeris, writeFile(t, dir, "events.tsv", b.String())
}

func TestAspectsVariantsAgree(t *testing.T) {
	ephemeris, events := syntheticData(t, 120, 600)
	for _, combo := range []string{AspectsDefaultCombo, "Moon-0-Sun", "Moon-60-Sun,MC-90-Asc", "Jupiter-180-Moon"} {
		for test := 1; test <= 2; test++ {
			want, wantMatches, err := aspectsImpls[0].search(ephemeris, events, combo, test)
			if err != nil {
				t.Fatal(err)
			}
			if test == 1 && combo != "Jupiter-180-Moon" && wantMatches == 0 {
				t.Errorf("%s never matched: the data tests nothing", combo)
			}
			for _, c := range aspectsImpls[1:] {
				got, matches, err := c.search(ephemeris, events, combo, test)
				if err != nil || matches != wantMatches || !bytes.Equal(got, want) {
					t.Errorf("%s test %d %s: %d matches, %d bytes, %v; want %d, %d bytes (first difference at %d)",
						c.impl, test, combo, matches, len(got), err, wantMatches, len(want), firstDifference(got, want))
				}
			}
		}
	}
}

func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestAspectsOutputShape(t *testing.T) {
	ephemeris, events := syntheticData(t, 60, 40)
	out, matches, err := aspectsImpls[0].search(ephemeris, events, "Uranus-60-Jupiter", 2)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	var blocks, aspects, matchLines int
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "event\t"):
			if matchLines > 0 {
				t.Errorf("line %d: an event block after a match line", i+1)
			}
			blocks++
			if f := strings.Split(line, "\t"); len(f) != 6 || !strings.HasPrefix(f[3], "asc ") ||
				len(strings.Fields(f[5])) != 13 {
				t.Errorf("line %d: %q is no event line", i+1, line)
			}
		case strings.HasPrefix(line, "\t"):
			aspects++
		case strings.HasPrefix(line, "match\t"):
			matchLines++
		case strings.HasPrefix(line, "count\t"):
			if i != len(lines)-1 || len(strings.Split(line, "\t")) != 13 {
				t.Errorf("line %d: %q is no last count line", i+1, line)
			}
		default:
			t.Errorf("line %d: %q", i+1, line)
		}
	}
	if blocks != 40 || matchLines != matches || aspects > 20*40 || aspects < 40 {
		t.Errorf("%d blocks, %d aspect lines, %d match lines (%d matches)", blocks, aspects, matchLines, matches)
	}
}

func TestAspectsWrapAndCusps(t *testing.T) {
	text := aspectsTestHeader +
		"2000-01-01\t280\t350\t300\t320\t10\t40\t50\t300\t296\t250\n" +
		"2000-01-02\t281\t4\t301\t321\t11\t40.1\t50.1\t300\t296\t250\n" +
		"2000-01-03\t282\t18\t302\t322\t12\t40.2\t50.2\t300\t296\t250\n"
	e, err := AspectsParseEphemeris(text, "eph.tsv")
	if err != nil {
		t.Fatal(err)
	}
	day0 := int64(36524) * daySeconds
	c, err := PureAspectsChartAt(e, day0+43200, 0, 0)
	if err != nil || c.Point[1] != 357 || c.Point[0] != 280.5 {
		t.Errorf("the Moon and Sun at noon = %v, %v, %v; want 357, 280.5", c.Point[1], c.Point[0], err)
	}
	if c, _ := PureAspectsChartAt(e, day0+86400+64800, 0, 0); c.Point[1] != 14.5 {
		t.Errorf("the Moon three quarters into day 2 = %v; want 14.5", c.Point[1])
	}
	if c.Cusp[0] != c.Point[AspectsAsc] || c.Cusp[9] != c.Point[AspectsMC] {
		t.Errorf("cusps 1 and 10 = %v, %v; want Asc %v and MC %v", c.Cusp[0], c.Cusp[9], c.Point[AspectsAsc], c.Point[AspectsMC])
	}
	for h := range c.Cusp {
		if step := math.Mod(c.Cusp[(h+1)%12]-c.Cusp[h]+360, 360); step <= 0 || step >= 180 {
			t.Errorf("cusp %d to %d steps %.3f", h+1, (h+1)%12+1, step)
		}
	}
	for _, bad := range []struct {
		seconds int64
		lat     float64
		words   string
	}{
		{day0 + 2*daySeconds, 0, "argument seconds: must be inside the ephemeris (2000-01-01 .. 2000-01-03)"},
		{day0 - 1, 0, "argument seconds: must be inside the ephemeris"},
		{day0, -66.0001, "argument lat: must be in [-66, 66]"},
	} {
		if _, err := PureAspectsChartAt(e, bad.seconds, bad.lat, 0); err == nil || !strings.Contains(err.Error(), bad.words) {
			t.Errorf("PureAspectsChartAt(%d, %v) error = %v; want %q", bad.seconds, bad.lat, err, bad.words)
		}
	}
	if _, err := PureAspectsChartAt(e, day0, 66, 0); err != nil {
		t.Errorf("latitude 66 is inside: %v", err)
	}
}

func TestAspectsEphemerisErrors(t *testing.T) {
	row1 := "1900-01-01\t10\t20\t30\t40\t50\t60\t70\t80\t90\t100\n"
	row2 := "1900-01-02\t11\t33\t31\t41\t51\t61\t71\t81\t91\t101\n"
	pluto := func(v string) string { return "%s1900-01-01\t1\t2\t3\t4\t5\t6\t7\t8\t9\t" + v + "\n" }
	for _, c := range []struct {
		text, words string
		line        int64
	}{
		{"", "bad header (want date<TAB>sun<TAB>moon<TAB>mercury<TAB>venus<TAB>mars<TAB>jupiter<TAB>saturn<TAB>uranus<TAB>neptune<TAB>pluto)", 1},
		{"date\tsun\n" + row1, "bad header", 1},
		{strings.TrimSuffix(aspectsTestHeader, "\n") + "\r\n" + row1, "bad header", 1},
		{"%s1900-01-01\t1\t2\n", "wrong number of columns (3, want 11)", 2},
		{"%s" + row1 + "1900-01-02\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\n", "wrong number of columns (12, want 11)", 3},
		{"%s" + row1 + "\n", "wrong number of columns (1, want 11)", 3},
		{"%s1900-13-01\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n", "bad date '1900-13-01' (want YYYY-MM-DD)", 2},
		{"%s1900-02-29\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n", "bad date '1900-02-29'", 2},
		{"%s-900-01-01\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n", "bad date '-900-01-01'", 2},
		{"%s0000-01-01\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n", "bad date '0000-01-01'", 2},
		{"%s" + row1 + "1900-01-03\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n", "date 1900-01-03 is not one day after the previous row's (1900-01-01)", 3},
		{"%s" + row1 + "1900-01-01\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n", "is not one day after", 3},
		{"%s" + row1 + row2 + "1900-01-03\t1\t2\tx\t4\t5\t6\t7\t8\t9\t10\n", "mercury: 'x' is not a number", 4},
		{pluto("nan"), "pluto: 'nan' is not a number", 2},
		{pluto("Inf"), "pluto: 'Inf' is not a number", 2},
		{pluto("0x1p3"), "pluto: '0x1p3' is not a number", 2},
		{pluto("1e5"), "pluto: '1e5' is not a number", 2},
		{pluto("+1"), "pluto: '+1' is not a number", 2},
		{pluto("1."), "pluto: '1.' is not a number", 2},
		{pluto(".5"), "pluto: '.5' is not a number", 2},
		{pluto(""), "pluto: '' is not a number", 2},
		{pluto("10\r"), `pluto: '10\r' is not a number`, 2},
		{pluto("it's"), `pluto: "it's" is not a number`, 2},
		{pluto(`"it's"`), `pluto: '"it\'s"' is not a number`, 2},
		{pluto("a\\b\x01"), `pluto: 'a\\b\x01' is not a number`, 2},
		{pluto("\xc3\xa9"), "pluto: '\uFFFD\uFFFD' is not a number", 2},
		{"%s1900-01-01\t1\t 2\t3\t4\t5\t6\t7\t8\t9\t10\n", "moon: ' 2' is not a number", 2},
	} {
		text := strings.ReplaceAll(c.text, "%s", aspectsTestHeader)
		_, err := AspectsParseEphemeris(text, "eph.tsv")
		checkAspectsError(t, fmt.Sprintf("ephemeris %q", text), err, "eph.tsv", c.line, c.words)
	}
	text := aspectsTestHeader + "1900-01-01\t360\t2\t3\t4\t5\t6\t7\t8\t9\t10\n1900-01-02\t-1\t2\t3\t4\t5\t6\t7\t8\t9\t10.5"
	if e, err := AspectsParseEphemeris(text, "eph.tsv"); err != nil || len(e.Rows) != 2 || e.Rows[1].Lon[9] != 10.5 || e.Rows[0].Lon[0] != 360 {
		t.Errorf("no final newline, any number: %v", err)
	}
	if e, err := AspectsParseEphemeris(aspectsTestHeader, "eph.tsv"); err != nil || len(e.Rows) != 0 {
		t.Errorf("a header alone = %v, %v; want a table without rows", e, err)
	}
}

// checkAspectsError checks a bad file's error: ErrArg, the line in Pos
// and at the start of the message after the file's name, and the words.
func checkAspectsError(t *testing.T, what string, err error, file string, line int64, words string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrArg) {
		t.Errorf("%s: error %v; want an ErrArg *Error", what, err)
		return
	}
	if where := fmt.Sprintf("%s:%d: ", file, line); e.Pos != line || !strings.HasPrefix(e.Msg, where) || !strings.Contains(e.Msg, words) {
		t.Errorf("%s: error %q (pos %d); want %q%q", what, e.Msg, e.Pos, where, words)
	}
}

// twoDays is a table of 1900-01-01 and 1900-01-02: events of the first day
// are inside it.
const twoDays = aspectsTestHeader + "1900-01-01\t10\t20\t30\t40\t50\t60\t70\t80\t90\t100\n" +
	"1900-01-02\t11\t33\t31\t41\t51\t61\t71\t81\t91\t101\n"

func TestAspectsEventErrors(t *testing.T) {
	const header = "time\tlat\tlon\tname\n"
	const ok = "1900-01-01T12:00:00Z\t1\t2\tok\n"
	e, err := AspectsParseEphemeris(twoDays, "eph.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text, words string
		line        int64
	}{
		{"time\tlat\tlon\n", "bad header (want time<TAB>lat<TAB>lon<TAB>name)", 1},
		{"%s1900-01-01T12:00:00Z\t1\t2\n", "wrong number of columns (3, want 4)", 2},
		{"%s" + ok + "1900-01-01T12:00:00Z\t1\t2\ta\tb\n", "wrong number of columns (5, want 4)", 3},
		{"%s1900-01-01 12:00:00Z\t1\t2\ta\n", "bad time '1900-01-01 12:00:00Z' (want YYYY-MM-DDTHH:MM:SSZ)", 2},
		{"%s1900-01-01T24:00:00Z\t1\t2\ta\n", "bad time '1900-01-01T24:00:00Z'", 2},
		{"%s1900-01-01T12:00:00\t1\t2\ta\n", "bad time", 2},
		{"%s1900-01-01T12:00:00.5Z\t1\t2\ta\n", "bad time", 2},
		{"%s1900-01-01T12:00:00Z\tx\t2\ta\n", "latitude: 'x' is not a number", 2},
		{"%s1900-01-01T12:00:00Z\t90.5\t2\ta\n", "latitude outside [-90, 90]: 90.5", 2},
		{"%s1900-01-01T12:00:00Z\t1\t2e1\ta\n", "longitude: '2e1' is not a number", 2},
		{"%s1900-01-01T12:00:00Z\t1\t-180.01\ta\n", "longitude outside [-180, 180]: -180.01", 2},
		{"%s" + ok + "1900-01-01T12:00:00Z\t1\t2\t\n", "empty name", 3},
		{"%s1900-01-01T12:00:00Z\t1\t2\tno way\n", "bad name 'no way' (want letters, digits, _ and -)", 2},
		{"%s1900-01-02T00:00:00Z\t1\t2\tlate\n", "time 1900-01-02T00:00:00Z outside the ephemeris (1900-01-01 .. 1900-01-02)", 2},
		{"%s1899-12-31T23:59:59Z\t1\t2\tearly\n", "time 1899-12-31T23:59:59Z outside the ephemeris", 2},
		{"%s" + ok + "1900-01-01T12:00:00Z\t-66.0001\t2\tpolar\n", "Ascendant undefined beyond the polar circles (|lat| > 66)", 3},
		// Line by line: the first bad line is reported, whatever is wrong later.
		{"%s1900-01-01T12:00:00Z\t70\t2\tpolar\nbad\n", "Ascendant undefined", 2},
	} {
		text := strings.ReplaceAll(c.text, "%s", header)
		_, err := AspectsParseEvents(text, "ev.tsv", e)
		checkAspectsError(t, fmt.Sprintf("events %q", text), err, "ev.tsv", c.line, c.words)
	}
	for _, text := range []string{"", header} {
		if ev, err := AspectsParseEvents(text, "ev.tsv", e); err != nil || len(ev.Events) != 0 {
			t.Errorf("events %q = %v, %v; want an empty list", text, ev, err)
		}
	}
	empty, _ := AspectsParseEphemeris(aspectsTestHeader, "eph.tsv")
	_, err = AspectsParseEvents(header+ok, "ev.tsv", empty)
	checkAspectsError(t, "an event and a table without rows", err, "ev.tsv", 2, "time 1900-01-01T12:00:00Z outside the ephemeris (no rows)")
	if ev, err := AspectsParseEvents(header+ok+"1900-01-01T23:59:59Z\t66\t-180\tlast-second", "ev.tsv", e); err != nil || len(ev.Events) != 2 {
		t.Errorf("the last second of the table, latitude 66, longitude -180: %v", err)
	}
}

func TestAspectsSearchErrors(t *testing.T) {
	ephemeris, _ := syntheticData(t, 3, 0)
	dir := t.TempDir()
	for _, c := range []struct {
		text, words string
		line        int64
	}{
		{"1999-12-01T00:00:00Z\t10\t20\tok\n1999-12-03T00:00:00Z\t10\t20\tlate\n", "time 1999-12-03T00:00:00Z outside the ephemeris (1999-12-01 .. 1999-12-03)", 3},
		{"1999-11-30T23:59:59Z\t10\t20\tearly\n", "outside the ephemeris", 2},
		{"1999-12-01T00:00:00Z\t10\t20\tok\n1999-12-01T00:00:00Z\t-70\t20\tpolar\n", "Ascendant undefined beyond the polar circles (|lat| > 66)", 3},
	} {
		events := writeFile(t, dir, "ev.tsv", "time\tlat\tlon\tname\n"+c.text)
		for _, impl := range aspectsImpls {
			_, _, err := impl.search(ephemeris, events, AspectsDefaultCombo, 2)
			checkAspectsError(t, impl.impl+" "+c.text, err, events, c.line, c.words)
		}
	}
	// An empty list is a valid, empty result: the count line alone.
	const none = "count\tSun 0\tMoon 0\tMercury 0\tVenus 0\tMars 0\tJupiter 0\tSaturn 0\tUranus 0\tNeptune 0\tPluto 0\tAsc 0\tMC 0\n"
	for _, text := range []string{"", "time\tlat\tlon\tname\n"} {
		events := writeFile(t, dir, "empty.tsv", text)
		for _, impl := range aspectsImpls {
			for test := 1; test <= 2; test++ {
				if out, n, err := impl.search(ephemeris, events, AspectsDefaultCombo, test); err != nil || n != 0 || string(out) != none {
					t.Errorf("%s test %d on %q = %q, %d, %v; want the count line", impl.impl, test, text, out, n, err)
				}
			}
		}
	}
	// Events searched in a table other than theirs: the reader's words.
	e, _ := AspectsParseEphemeris(twoDays, "eph.tsv")
	ev, err := AspectsParseEvents("time\tlat\tlon\tname\n1900-01-01T12:00:00Z\t1\t2\tok\n", "ev.tsv", e)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := AspectsParseEphemeris(strings.Replace(twoDays, "1900-01-0", "1901-01-0", 2), "other.tsv")
	terms, _ := AspectsParseCombo(AspectsDefaultCombo)
	_, _, err = PureAspectsSearch(other, ev, terms, 1, nil)
	checkAspectsError(t, "another table", err, "ev.tsv", 2, "time 1900-01-01T12:00:00Z outside the ephemeris (1901-01-01 .. 1901-01-02)")
	_, _, err = PureAspectsSearchColumns(other.Columns(), ev.Columns(), terms, 1, nil)
	checkAspectsError(t, "another table, columns", err, "ev.tsv", 2, "outside the ephemeris (1901-01-01 .. 1901-01-02)")
	_, _, err = PureAspectsSearchReflect(other.Named(), ev, terms, 1, nil)
	checkAspectsError(t, "another table, reflect", err, "ev.tsv", 2, "outside the ephemeris (1901-01-01 .. 1901-01-02)")
}

func TestAspectsCombo(t *testing.T) {
	terms, err := AspectsParseCombo(AspectsDefaultCombo)
	if want := []AspectsTerm{{1, 120, 5}, {AspectsAsc, 90, 4}}; err != nil || fmt.Sprint(terms) != fmt.Sprint(want) {
		t.Errorf("AspectsParseCombo(%q) = %v, %v; want %v", AspectsDefaultCombo, terms, err, want)
	}
	for _, c := range []struct {
		text, words string
		pos         int64
	}{
		{"", "bad term ''", 0},
		{"Moon-120-Jupiter,", "bad term ''", 1},
		{"Moon-120", "bad term 'Moon-120' (want POINT-ANGLE-POINT", 0},
		{"Moon-120-Jupiter-Sun", "bad term 'Moon-120-Jupiter-Sun'", 0},
		{"Sun-0-Moon,Moon-45-Jupiter", "'Moon-45-Jupiter': the angle must be 0, 60, 90, 120 or 180", 1},
		{"Moon-120-jupiter", "no point 'jupiter'", 0},
		{"Moon-+60-Sun", "the angle must be", 0},
		{"Mars-90-Mars", "'Mars-90-Mars': a point forms no aspect with itself", 0},
		{strings.Repeat("Sun-0-Moon,", AspectsMaxTerms) + "Sun-0-Moon", "more than 64 terms", AspectsMaxTerms},
	} {
		_, err := AspectsParseCombo(c.text)
		var e *Error
		if !errors.As(err, &e) || e.Arg != "combo" || e.Pos != c.pos || !strings.Contains(e.Msg, c.words) {
			t.Errorf("AspectsParseCombo(%q) error = %v; want %q at term %d", c.text, err, c.words, c.pos)
		}
	}
}

// ---- The shared vectors ----------------------------------------------------

// aspectsData is the shared data's folder (testdata/aspects/).
const aspectsData = "../testdata/aspects/"

func TestAspectsInterpolateVectors(t *testing.T) {
	for _, v := range loadAtLeast(t, "aspects-interp", 5) {
		x := aspectsInterpolate(v.float(t, "l0"), v.float(t, "l1"), v.float(t, "sec")/86400.0)
		if got := fmt.Sprintf("%.6f", x); got != v["x"] {
			t.Errorf("aspectsInterpolate(%s, %s, %s s) = %s; want %s", v["l0"], v["l1"], v["sec"], got, v["x"])
		}
	}
}

func TestAspectsPairVectors(t *testing.T) {
	for _, v := range loadAtLeast(t, "aspects-pair", 8) {
		angle, orb, sep := aspectsPair(v.float(t, "a"), v.float(t, "b"))
		got := fmt.Sprintf("%.6f none -", sep)
		if angle >= 0 {
			got = fmt.Sprintf("%.6f %s %.2f", sep, aspectsAngleText[angle], orb)
		}
		if want := v["sep"] + " " + v["aspect"] + " " + v["orb"]; got != want {
			t.Errorf("aspectsPair(%s, %s) = %s; want %s", v["a"], v["b"], got, want)
		}
	}
}

func TestAspectsAngleVectors(t *testing.T) {
	for _, v := range loadAtLeast(t, "aspects-angles", 7) {
		seconds, ok := parseTime(v["time"])
		if !ok {
			t.Fatalf("vector %v: bad time", v)
		}
		ramc, mc, asc := aspectsHouseAngles(seconds, v.float(t, "lat"), v.float(t, "lon"))
		var h [12]float64
		aspectsPorphyry(asc, mc, &h)
		if math.Abs(ramc-v.float(t, "ramc")) > 2e-6 {
			t.Errorf("%s: ramc %.6f; want %s", v["time"], ramc, v["ramc"])
		}
		cusps := make([]string, 12)
		for i, c := range h {
			cusps[i] = fmt.Sprintf("%.2f", c)
		}
		got := fmt.Sprintf("%.2f %.2f %s", mc, asc, strings.Join(cusps, ","))
		if want := v["mc"] + " " + v["asc"] + " " + v["cusps"]; got != want {
			t.Errorf("%s lat %s lon %s: mc asc cusps %s; want %s", v["time"], v["lat"], v["lon"], got, want)
		}
	}
}

func TestAspectsComboVectors(t *testing.T) {
	for _, v := range loadAtLeast(t, "aspects-combo", 2) {
		if terms, err := AspectsParseCombo(v["combo"]); err != nil || int64(len(terms)) != v.int(t, "terms") {
			t.Errorf("AspectsParseCombo(%s) = %d terms, %v; want %s", v["combo"], len(terms), err, v["terms"])
		}
	}
	for _, v := range loadAtLeast(t, "aspects-combo-error", 4) {
		if _, err := AspectsParseCombo(v["combo"]); err == nil || !strings.Contains(err.Error(), "'"+v["term"]+"'") {
			t.Errorf("AspectsParseCombo(%s) error = %v; want one naming '%s'", v["combo"], err, v["term"])
		}
	}
}

func TestAspectsOutputVectors(t *testing.T) {
	for _, v := range loadAtLeast(t, "aspects-output", 4) {
		events, test := aspectsData+v["events"], int(v.int(t, "test"))
		var want []byte
		if v["out"] != "-" {
			var err error
			if want, err = os.ReadFile(aspectsData + v["out"]); err != nil {
				t.Fatal(err)
			}
		}
		for _, impl := range aspectsImpls {
			got, matches, err := impl.search(aspectsData+"ephemeris.tsv", events, v["combo"], test)
			if err != nil {
				t.Errorf("%s %s test %d: %v", impl.impl, v["events"], test, err)
				continue
			}
			crc := fmt.Sprintf("%08x", crc32.ChecksumIEEE(got))
			if int64(matches) != v.int(t, "matches") || int64(len(got)) != v.int(t, "len") || crc != v["crc"] {
				t.Errorf("%s %s test %d %s: matches=%d len=%d crc=%s; want %s %s %s", impl.impl, v["events"], test,
					v["combo"], matches, len(got), crc, v["matches"], v["len"], v["crc"])
			}
			if want != nil && !bytes.Equal(got, want) {
				t.Errorf("%s %s test %d: differs from %s at byte %d", impl.impl, v["events"], test, v["out"], firstDifference(got, want))
			}
		}
	}
}

func TestAspectsErrorVectors(t *testing.T) {
	for _, v := range loadAtLeast(t, "aspects-error", 8) {
		eph, events := aspectsData+v["ephemeris"], aspectsData+v["events"]
		file := events
		if v["file"] == "ephemeris" {
			file = eph
		}
		says := strings.ReplaceAll(v["says"], "+", " ")
		for _, impl := range aspectsImpls {
			_, _, err := impl.search(eph, events, AspectsDefaultCombo, 1)
			checkAspectsError(t, impl.impl+" "+v["ephemeris"]+" "+v["events"], err, file, v.int(t, "line"), says)
		}
	}
}
