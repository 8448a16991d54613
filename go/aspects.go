package roundbench

import (
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
)

// Round aspects: an ephemeris of daily longitudes (the Sun, the Moon and
// eight planets) and a list of dated events; for each event its chart (the
// ten positions at its time, the Ascendant and the Midheaven, the twelve
// Porphyry house cusps), the aspects among its twelve points, and a search
// for a combination of aspects. docs/rounds/aspects.md has the formulas and
// the output, which every variant in every language prints byte for byte.
//
// Three pure-Go variants, which differ only in how they hold and reach the
// data (the per-event arithmetic is one function, aspectsChart):
//
//   - go: the ephemeris and the events as slices of structs, a row's ten
//     longitudes an array in it (PureAspectsSearch);
//   - go-columns: a struct of slices, one per column (PureAspectsSearchColumns);
//   - go-reflect: rows whose fields are reached by name through package
//     reflect, as the published Go port of the program did
//     (PureAspectsSearchReflect).
//
// No multiply-add is fused: the Go spec lets a compiler fuse x*y + z into
// one FMA instruction, even across statements (GOAMD64=v3 does), unless
// the product is converted explicitly, float64(x*y), which rounds it
// ("Arithmetic operators", floating-point). Every product here that could
// reach an addition is so converted, so a tuned build prints what Python
// and the C core print.

// The points: the ten bodies of the ephemeris, in its column order, then
// the Ascendant and the Midheaven. The core has the same (RB_ASPECTS_*).
const (
	AspectsBodies       = 10
	AspectsPoints       = 12
	AspectsAsc          = 10
	AspectsMC           = 11
	AspectsPairs        = 66
	AspectsMaxTerms     = 64
	AspectsMaxLat       = 66.0
	AspectsDefaultCombo = "Moon-120-Jupiter,Asc-90-Mars"
)

// AspectsPointNames are the points' printed names, in order.
var AspectsPointNames = [AspectsPoints]string{
	"Sun", "Moon", "Mercury", "Venus", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune", "Pluto", "Asc", "MC",
}

var (
	aspectsAngles    = [...]float64{0, 60, 90, 120, 180}
	aspectsAngleText = [...]string{"0", "60", "90", "120", "180"}
	// ephemerisHeader and eventsHeader are the files' header lines.
	ephemerisHeader = "date\tsun\tmoon\tmercury\tvenus\tmars\tjupiter\tsaturn\turanus\tneptune\tpluto"
	eventsHeader    = "time\tlat\tlon\tname"
)

const (
	aspectsOrb   = 8.0
	j2000Seconds = 3155716800 // 2000-01-01T12:00:00Z in seconds since 1900-01-01
	daySeconds   = 86400
	deg2rad      = 0.017453292519943295 // pi / 180, as Python's math.radians
	rad2deg      = 57.29577951308232    // 180 / pi, as math.degrees
	// day1900 is 1900-01-01's day number counted from 1970-01-01.
	day1900 = -25567
)

// ---- The data -------------------------------------------------------------

// AspectsRow is one day of the ephemeris as the go variant holds it: the
// ten longitudes in column order.
type AspectsRow struct {
	Lon [AspectsBodies]float64
}

// AspectsEphemeris is the table as the go variant holds it: a slice of
// structs. FirstDay is row 0's day counted from 1900-01-01; File names the
// file in messages.
type AspectsEphemeris struct {
	File     string
	FirstDay int64
	Rows     []AspectsRow
}

// AspectsColumns is the table as go-columns holds it: a struct of slices,
// one per column.
type AspectsColumns struct {
	File                                                                     string
	FirstDay                                                                 int64
	Day                                                                      []int64
	Sun, Moon, Mercury, Venus, Mars, Jupiter, Saturn, Uranus, Neptune, Pluto []float64
}

// AspectsNamedRow is one day as go-reflect holds it: a field per column,
// named as the point it holds (AspectsPointNames).
type AspectsNamedRow struct {
	Date                                                                     string
	Sun, Moon, Mercury, Venus, Mars, Jupiter, Saturn, Uranus, Neptune, Pluto float64
}

// AspectsNamedTable is go-reflect's table.
type AspectsNamedTable struct {
	File     string
	FirstDay int64
	Rows     []AspectsNamedRow
}

// AspectsEvent is one event: its time in seconds since
// 1900-01-01T00:00:00Z and as written, latitude and east longitude in
// degrees, name, and the line of the events file it came from.
type AspectsEvent struct {
	Seconds    int64
	Lat, Lon   float64
	Time, Name string
	Line       int64
}

// AspectsEvents are the events as go and go-reflect hold them.
type AspectsEvents struct {
	File   string
	Events []AspectsEvent
}

// AspectsEventColumns are the events as go-columns holds them.
type AspectsEventColumns struct {
	File       string
	Seconds    []int64
	Lat, Lon   []float64
	Time, Name []string
	Line       []int64
}

// Slice returns the events [lo, hi), sharing their storage.
func (ev *AspectsEvents) Slice(lo, hi int) *AspectsEvents {
	return &AspectsEvents{File: ev.File, Events: ev.Events[lo:hi]}
}

// Slice returns the events [lo, hi), sharing their storage.
func (ev *AspectsEventColumns) Slice(lo, hi int) *AspectsEventColumns {
	return &AspectsEventColumns{File: ev.File, Seconds: ev.Seconds[lo:hi], Lat: ev.Lat[lo:hi],
		Lon: ev.Lon[lo:hi], Time: ev.Time[lo:hi], Name: ev.Name[lo:hi], Line: ev.Line[lo:hi]}
}

// Columns returns the table as go-columns holds it.
func (e *AspectsEphemeris) Columns() *AspectsColumns {
	n := len(e.Rows)
	c := &AspectsColumns{File: e.File, FirstDay: e.FirstDay, Day: make([]int64, n)}
	cols := c.bodies()
	for b := range cols {
		*cols[b] = make([]float64, n)
	}
	for i, r := range e.Rows {
		c.Day[i] = e.FirstDay + int64(i)
		for b := range cols {
			(*cols[b])[i] = r.Lon[b]
		}
	}
	return c
}

// bodies are the table's body columns, in order.
func (c *AspectsColumns) bodies() [AspectsBodies]*[]float64 {
	return [...]*[]float64{&c.Sun, &c.Moon, &c.Mercury, &c.Venus, &c.Mars, &c.Jupiter, &c.Saturn,
		&c.Uranus, &c.Neptune, &c.Pluto}
}

// Named returns the table as go-reflect holds it, its fields set by name.
func (e *AspectsEphemeris) Named() *AspectsNamedTable {
	t := &AspectsNamedTable{File: e.File, FirstDay: e.FirstDay, Rows: make([]AspectsNamedRow, len(e.Rows))}
	for i, r := range e.Rows {
		v := reflect.ValueOf(&t.Rows[i]).Elem()
		v.FieldByName("Date").SetString(formatDay(e.FirstDay + int64(i)))
		for b := 0; b < AspectsBodies; b++ {
			v.FieldByName(AspectsPointNames[b]).SetFloat(r.Lon[b])
		}
	}
	return t
}

// Columns returns the events as go-columns holds them.
func (ev *AspectsEvents) Columns() *AspectsEventColumns {
	n := len(ev.Events)
	c := &AspectsEventColumns{File: ev.File, Seconds: make([]int64, n), Lat: make([]float64, n),
		Lon: make([]float64, n), Time: make([]string, n), Name: make([]string, n), Line: make([]int64, n)}
	for i, e := range ev.Events {
		c.Seconds[i], c.Lat[i], c.Lon[i], c.Time[i], c.Name[i], c.Line[i] = e.Seconds, e.Lat, e.Lon, e.Time, e.Name, e.Line
	}
	return c
}

// ---- Reading the files ----------------------------------------------------

// The messages are the plain Python variant's, word for word
// (python/roundbench/pure/aspects.py): `PATH:LINE: what was wrong`, a field
// quoted as Python's repr() quotes it, so that every language reports bad
// input in the same words. Lines end with "\n"; a last line without one is
// a line. Numbers are -?[0-9]+(\.[0-9]+)? (no exponent, no nan or inf,
// nothing around them).

// aspectsError is a bad file's error: ErrArg, the line in Pos and the
// message `PATH:LINE: ...`, as the core's.
func aspectsError(fn, file string, line int64, format string, a ...any) error {
	return &Error{Func: fn, Msg: fmt.Sprintf("%s:%d: ", file, line) + fmt.Sprintf(format, a...),
		Pos: line, Kind: ErrArg}
}

// fileLines splits a text into its lines without "\n"; a last line without
// a newline is a line, nothing after the last newline is none.
func fileLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// pyRepr quotes a field as Python's repr() does, the file read as ASCII
// with every other byte replaced by U+FFFD: in single quotes, or double
// quotes when it holds a single quote and no double one; backslash escapes
// for that quote, the backslash and control characters.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	b := []byte{q}
	for _, c := range []byte(s) {
		switch {
		case c == q || c == '\\':
			b = append(b, '\\', c)
		case c == '\t':
			b = append(b, `\t`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c < 0x20 || c == 0x7f:
			b = fmt.Appendf(b, `\x%02x`, c)
		case c >= 0x80:
			b = append(b, "\uFFFD"...)
		default:
			b = append(b, c)
		}
	}
	return string(append(b, q))
}

// asText is a field as read, non-ASCII bytes as U+FFFD.
func asText(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 0x80 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// digitsAt reads s[i:i+n] as decimal digits.
func digitsAt(s string, i, n int) (int, bool) {
	v := 0
	for _, c := range []byte(s[i : i+n]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// daysFromCivil is the day number of y-m-d counted from 1970-01-01, in the
// proleptic Gregorian calendar (years counted from March, 400-year eras).
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := int64(m + 9)
	if m > 2 {
		mp = int64(m - 3)
	}
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// formatDay writes a day counted from 1900-01-01 as YYYY-MM-DD.
func formatDay(day int64) string {
	z := day + day1900 + 719468
	era := z / 146097
	if z < 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if mp >= 10 {
		m = mp - 9
	}
	y := yoe + era*400
	if m <= 2 {
		y++
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

func daysInMonth(y, m int) int {
	switch m {
	case 2:
		if (y%4 == 0 && y%100 != 0) || y%400 == 0 {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// parseDate reads YYYY-MM-DD (exactly, a date of the years 1 to 9999) as a
// day counted from 1900-01-01.
func parseDate(s string) (int64, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	y, ok1 := digitsAt(s, 0, 4)
	m, ok2 := digitsAt(s, 5, 2)
	d, ok3 := digitsAt(s, 8, 2)
	if !ok1 || !ok2 || !ok3 || y < 1 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) {
		return 0, false
	}
	return daysFromCivil(int64(y), m, d) - day1900, true
}

// parseTime reads YYYY-MM-DDTHH:MM:SSZ (exactly) as seconds since 1900.
func parseTime(s string) (int64, bool) {
	if len(s) != 20 || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z' {
		return 0, false
	}
	day, ok := parseDate(s[:10])
	h, ok1 := digitsAt(s, 11, 2)
	mi, ok2 := digitsAt(s, 14, 2)
	sec, ok3 := digitsAt(s, 17, 2)
	if !ok || !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	return day*daySeconds + int64(h*3600+mi*60+sec), true
}

// parseNumber reads -?[0-9]+(\.[0-9]+)? as its nearest double
// (strconv.ParseFloat alone would also take "+1", "1e5", "inf", "nan",
// hexadecimal and underscores).
func parseNumber(s string) (float64, bool) {
	i, n := 0, len(s)
	if i < n && s[i] == '-' {
		i++
	}
	whole := i
	for i < n && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == whole {
		return 0, false
	}
	if i < n && s[i] == '.' {
		i++
		frac := i
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == frac {
			return 0, false
		}
	}
	if i != n {
		return 0, false
	}
	// Past the largest double the nearest is +-Inf, which ParseFloat returns
	// with ErrRange (strtod and Python's float() return it alone): the
	// number is in the grammar, so it is read.
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil || errors.Is(err, strconv.ErrRange)
}

// AspectsParseEphemeris parses an ephemeris text (docs/rounds/aspects.md):
// the header `date<TAB>sun<TAB>...<TAB>pluto`, then one row a day,
// YYYY-MM-DD and ten longitudes in degrees, each date one day after the
// previous row's. file names it in messages. A header alone is a table
// without rows. Errors are *Error values of kind ErrArg with the line in
// Pos, worded as the core's.
func AspectsParseEphemeris(text, file string) (*AspectsEphemeris, error) {
	const fn = "AspectsParseEphemeris"
	lines := fileLines(text)
	if len(lines) == 0 || lines[0] != ephemerisHeader {
		return nil, aspectsError(fn, file, 1, "bad header (want %s)", strings.ReplaceAll(ephemerisHeader, "\t", "<TAB>"))
	}
	columns := strings.Split(ephemerisHeader, "\t")
	e := &AspectsEphemeris{File: file, Rows: make([]AspectsRow, 0, len(lines)-1)}
	prev := int64(0)
	for k, line := range lines[1:] {
		no := int64(k + 2)
		f := strings.Split(line, "\t")
		if len(f) != AspectsBodies+1 {
			return nil, aspectsError(fn, file, no, "wrong number of columns (%d, want %d)", len(f), AspectsBodies+1)
		}
		day, ok := parseDate(f[0])
		if !ok {
			return nil, aspectsError(fn, file, no, "bad date %s (want YYYY-MM-DD)", pyRepr(f[0]))
		}
		if len(e.Rows) > 0 && day != prev+1 {
			return nil, aspectsError(fn, file, no, "date %s is not one day after the previous row's (%s)", f[0], formatDay(prev))
		}
		var r AspectsRow
		for b := range r.Lon {
			if r.Lon[b], ok = parseNumber(f[b+1]); !ok {
				return nil, aspectsError(fn, file, no, "%s: %s is not a number", columns[b+1], pyRepr(f[b+1]))
			}
		}
		if len(e.Rows) == 0 {
			e.FirstDay = day
		}
		prev = day
		e.Rows = append(e.Rows, r)
	}
	return e, nil
}

// isWord reports whether s is a non-empty word of [A-Za-z0-9_-].
func isWord(s string) bool {
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

// span is the table's span for messages: "FIRST .. LAST", or "no rows".
func aspectsSpan(firstDay int64, rows int) string {
	if rows == 0 {
		return "no rows"
	}
	return formatDay(firstDay) + " .. " + formatDay(firstDay+int64(rows)-1)
}

// aspectsInside reports whether the row of the day of `seconds` and the
// next one are in the table (never extrapolated).
func aspectsInside(firstDay int64, rows int, seconds int64) bool {
	day := seconds / daySeconds
	if seconds%daySeconds < 0 {
		day--
	}
	return day >= firstDay && day < firstDay+int64(rows)-1
}

// AspectsParseEvents parses an events text for the table e: the header
// `time<TAB>lat<TAB>lon<TAB>name`, then one event a line:
// YYYY-MM-DDTHH:MM:SSZ, latitude in [-90, 90], longitude in [-180, 180],
// a name of [A-Za-z0-9_-], inside the table (the row of its day and the
// next exist) and within the polar circles (|lat| <= 66). An empty text or
// a header alone is an empty list. Errors as AspectsParseEphemeris's, the
// first line's in line order.
func AspectsParseEvents(text, file string, e *AspectsEphemeris) (*AspectsEvents, error) {
	const fn = "AspectsParseEvents"
	lines := fileLines(text)
	if len(lines) > 0 && lines[0] != eventsHeader {
		return nil, aspectsError(fn, file, 1, "bad header (want %s)", strings.ReplaceAll(eventsHeader, "\t", "<TAB>"))
	}
	events := len(lines) - 1 // after the header
	if events < 0 {
		events = 0
	}
	ev := &AspectsEvents{File: file, Events: make([]AspectsEvent, 0, events)}
	for k := 1; k < len(lines); k++ {
		no := int64(k + 1)
		f := strings.Split(lines[k], "\t")
		if len(f) != 4 {
			return nil, aspectsError(fn, file, no, "wrong number of columns (%d, want 4)", len(f))
		}
		x := AspectsEvent{Time: f[0], Name: f[3], Line: no}
		var ok bool
		if x.Seconds, ok = parseTime(f[0]); !ok {
			return nil, aspectsError(fn, file, no, "bad time %s (want YYYY-MM-DDTHH:MM:SSZ)", pyRepr(f[0]))
		}
		if x.Lat, ok = parseNumber(f[1]); !ok {
			return nil, aspectsError(fn, file, no, "latitude: %s is not a number", pyRepr(f[1]))
		}
		if !(x.Lat >= -90 && x.Lat <= 90) {
			return nil, aspectsError(fn, file, no, "latitude outside [-90, 90]: %s", asText(f[1]))
		}
		if x.Lon, ok = parseNumber(f[2]); !ok {
			return nil, aspectsError(fn, file, no, "longitude: %s is not a number", pyRepr(f[2]))
		}
		if !(x.Lon >= -180 && x.Lon <= 180) {
			return nil, aspectsError(fn, file, no, "longitude outside [-180, 180]: %s", asText(f[2]))
		}
		if f[3] == "" {
			return nil, aspectsError(fn, file, no, "empty name")
		}
		if !isWord(f[3]) {
			return nil, aspectsError(fn, file, no, "bad name %s (want letters, digits, _ and -)", pyRepr(f[3]))
		}
		if !aspectsInside(e.FirstDay, len(e.Rows), x.Seconds) {
			return nil, aspectsError(fn, file, no, "time %s outside the ephemeris (%s)", f[0], aspectsSpan(e.FirstDay, len(e.Rows)))
		}
		if math.Abs(x.Lat) > AspectsMaxLat {
			return nil, aspectsError(fn, file, no, "Ascendant undefined beyond the polar circles (|lat| > 66)")
		}
		ev.Events = append(ev.Events, x)
	}
	return ev, nil
}

// AspectsLoadEphemeris reads and parses the ephemeris file at path.
func AspectsLoadEphemeris(path string) (*AspectsEphemeris, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return AspectsParseEphemeris(string(b), path)
}

// AspectsLoadEvents reads and parses the events file at path for the
// table e.
func AspectsLoadEvents(path string, e *AspectsEphemeris) (*AspectsEvents, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return AspectsParseEvents(string(b), path, e)
}

// ---- The combination ------------------------------------------------------

// AspectsTerm is one term of a combination: points P1 and P2 (indices into
// AspectsPointNames, in the order written) form the aspect Angle.
type AspectsTerm struct {
	P1, Angle, P2 int
}

func findPoint(s string) int {
	for i, name := range AspectsPointNames {
		if s == name {
			return i
		}
	}
	return -1
}

// AspectsParseCombo parses a combination: POINT-ANGLE-POINT terms joined
// by commas (AspectsDefaultCombo). A bad term is an ErrArg naming
// "combo", its index in Pos, worded as the core's.
func AspectsParseCombo(s string) ([]AspectsTerm, error) {
	const fn = "AspectsParseCombo"
	bad := func(k int, format string, a ...any) error {
		return &Error{Func: fn, Arg: "combo", Msg: fmt.Sprintf(format, a...), Pos: int64(k), Kind: ErrArg}
	}
	var terms []AspectsTerm
	for k, term := range strings.Split(s, ",") {
		if k == AspectsMaxTerms {
			return nil, bad(k, "has more than %d terms", AspectsMaxTerms)
		}
		w := term
		parts := strings.Split(term, "-")
		if len(parts) != 3 {
			return nil, bad(k, "has a bad term '%s' (want POINT-ANGLE-POINT, e.g. Moon-120-Jupiter)", w)
		}
		t := AspectsTerm{P1: findPoint(parts[0]), Angle: -1, P2: findPoint(parts[2])}
		if t.P1 < 0 || t.P2 < 0 {
			missing := parts[0]
			if t.P1 >= 0 {
				missing = parts[2]
			}
			return nil, bad(k, "has a bad term '%s': no point '%s' (the points: %s)", w, missing,
				strings.Join(AspectsPointNames[:], ", "))
		}
		for a, text := range aspectsAngleText {
			if parts[1] == text {
				t.Angle = int(aspectsAngles[a])
			}
		}
		if t.Angle < 0 {
			return nil, bad(k, "has a bad term '%s': the angle must be 0, 60, 90, 120 or 180", w)
		}
		if t.P1 == t.P2 {
			return nil, bad(k, "has a bad term '%s': a point forms no aspect with itself", w)
		}
		terms = append(terms, t)
	}
	return terms, nil
}

// ---- The per-event work ---------------------------------------------------

// AspectsChart is one event's chart: the twelve points' longitudes
// (degrees in [0, 360): the bodies, then Asc and MC) and the twelve house
// cusps (Cusp[0] is the first house's, the Ascendant).
type AspectsChart struct {
	Point [AspectsPoints]float64
	Cusp  [12]float64
}

// mod360 is x mod 360 in [0, 360) as Python's x % 360.0: math.Mod's
// remainder (exact), plus 360 when it is negative.
func mod360(x float64) float64 {
	r := math.Mod(x, 360)
	if r < 0 {
		r += 360
	}
	return r
}

// aspectsInterpolate is a body's longitude a fraction f into the day whose
// row holds l0 and the next row l1, across the 360 degree wrap.
func aspectsInterpolate(l0, l1, f float64) float64 {
	d := l1 - l0
	if d > 180 {
		d -= 360
	} else if d < -180 {
		d += 360
	}
	x := l0 + float64(f*d)
	if x >= 360 {
		x -= 360
	}
	if x < 0 {
		x += 360
	}
	return x
}

// aspectsHouseAngles is the sidereal angle RAMC, the Midheaven and the
// Ascendant (degrees) at `seconds` since 1900 for latitude lat and east
// longitude lon. atan2 with both signs puts the Ascendant in the right half
// of the circle.
func aspectsHouseAngles(seconds int64, lat, lon float64) (ramc, mc, asc float64) {
	dt := float64(seconds - j2000Seconds)
	t := dt / 86400.0 / 36525.0
	eps := 23.439291 - float64(0.0130042*t)
	gmst := mod360(280.46061837 + float64(360.98564736629*dt)/86400.0)
	ramc = mod360(gmst + lon)
	sr, cr := math.Sincos(float64(ramc * deg2rad))
	se, ce := math.Sincos(float64(eps * deg2rad))
	tl := math.Tan(float64(lat * deg2rad))
	mc = circle(float64(math.Atan2(sr, float64(cr*ce)) * rad2deg))
	asc = circle(float64(math.Atan2(cr, -(float64(sr*ce)+float64(tl*se))) * rad2deg))
	return ramc, mc, asc
}

// aspectsPorphyry is the twelve Porphyry cusps: each quadrant between the
// angles trisected.
func aspectsPorphyry(asc, mc float64, h *[12]float64) {
	h[0], h[9] = asc, mc
	h[3] = mod360(mc + 180)
	h[6] = mod360(asc + 180)
	q := mod360(asc - mc)
	h[10] = mod360(mc + q/3)
	h[11] = mod360(mc + 2*q/3)
	r := mod360(h[3] - asc)
	h[1] = mod360(asc + r/3)
	h[2] = mod360(asc + 2*r/3)
	h[4] = mod360(h[10] + 180)
	h[5] = mod360(h[11] + 180)
	h[7] = mod360(h[1] + 180)
	h[8] = mod360(h[2] + 180)
}

// aspectsPair is the aspect two points at a and b form (an index into
// aspectsAngles, or -1), its orb, and their separation folded into
// [0, 180]: the first angle, in order, within the orb. (The core tries
// every angle with a select instead of a branch; Go's compiler makes a
// branch of that too, whichever way it is written: a loop, unrolled, the
// orbs compared as integers. So this is the plain loop.)
func aspectsPair(a, b float64) (angle int, orb, sep float64) {
	sep = math.Abs(a - b)
	if sep > 180 {
		sep = 360 - sep
	}
	for k, angle := range aspectsAngles {
		if orb := math.Abs(sep - angle); orb <= aspectsOrb {
			return k, orb, sep
		}
	}
	return -1, 0, sep
}

// aspectsChart computes the chart at `seconds` from the rows l0 and l1
// around it, f the fraction of the day past l0's (the formulas of
// docs/rounds/aspects.md, in their order).
func aspectsChart(l0, l1 *[AspectsBodies]float64, f float64, seconds int64, lat, lon float64, c *AspectsChart) {
	for b := range l0 {
		c.Point[b] = aspectsInterpolate(l0[b], l1[b], f)
	}
	_, c.Point[AspectsMC], c.Point[AspectsAsc] = aspectsHouseAngles(seconds, lat, lon)
	aspectsPorphyry(c.Point[AspectsAsc], c.Point[AspectsMC], &c.Cusp)
}

// circle puts an angle of atan2 in [0, 360).
func circle(deg float64) float64 {
	if deg < 0 {
		return deg + 360
	}
	return deg
}

// aspectsFound holds, for every pair of points (i < j, in index order),
// the aspect it forms (an index into aspectsAngles, or -1) and its orb.
type aspectsFound struct {
	angle [AspectsPairs]int8
	orb   [AspectsPairs]float64
}

// pairPoints are the two points of each pair.
var pairPoints = func() (pp [AspectsPairs][2]uint8) {
	k := 0
	for i := 0; i < AspectsPoints; i++ {
		for j := i + 1; j < AspectsPoints; j++ {
			pp[k] = [2]uint8{uint8(i), uint8(j)}
			k++
		}
	}
	return pp
}()

func pairIndex(i, j int) int {
	if i > j {
		i, j = j, i
	}
	return i*(2*AspectsPoints-i-1)/2 + (j - i - 1)
}

func findAspects(p *[AspectsPoints]float64, a *aspectsFound) {
	pair := 0
	for i := 0; i < AspectsPoints; i++ {
		for j := i + 1; j < AspectsPoints; j++ {
			angle, orb, _ := aspectsPair(p[i], p[j])
			a.angle[pair], a.orb[pair] = int8(angle), orb
			pair++
		}
	}
}

// aspectsLocate is the row of the day of `seconds` and the fraction of the
// day past it; false when the events' reader would have refused the event
// (outside the table, or beyond the polar circles), as happens when the
// table is not the one the events were read for: then aspectsRefused says
// why, in the reader's words.
func aspectsLocate(firstDay int64, rows int, seconds int64, lat float64) (int, float64, bool) {
	if !aspectsInside(firstDay, rows, seconds) || math.Abs(lat) > AspectsMaxLat {
		return 0, 0, false
	}
	day, inDay := seconds/daySeconds, seconds%daySeconds
	if inDay < 0 {
		day, inDay = day-1, inDay+daySeconds
	}
	return int(day - firstDay), float64(inDay) / 86400.0, true
}

func aspectsRefused(fn, file string, firstDay int64, rows int, seconds int64, lat float64, time string, line int64) error {
	if !aspectsInside(firstDay, rows, seconds) {
		return aspectsError(fn, file, line, "time %s outside the ephemeris (%s)", time, aspectsSpan(firstDay, rows))
	}
	return aspectsError(fn, file, line, "Ascendant undefined beyond the polar circles (|lat| > 66)")
}

// PureAspectsChartAt is the chart at `seconds` since 1900-01-01T00:00:00Z
// for latitude lat and east longitude lon, from the go variant's table.
func PureAspectsChartAt(e *AspectsEphemeris, seconds int64, lat, lon float64) (AspectsChart, error) {
	const fn = "PureAspectsChartAt"
	var c AspectsChart
	switch {
	case !aspectsInside(e.FirstDay, len(e.Rows), seconds):
		return c, argError(fn, "seconds", ErrArg, "must be inside the ephemeris (%s), not %d", aspectsSpan(e.FirstDay, len(e.Rows)), seconds)
	case !(math.Abs(lat) <= AspectsMaxLat):
		return c, argError(fn, "lat", ErrArg, "must be in [-66, 66] (the Ascendant is undefined beyond the polar circles), not %g", lat)
	case !(lon >= -180 && lon <= 180):
		return c, argError(fn, "lon", ErrArg, "must be in [-180, 180], not %g", lon)
	}
	i, f, _ := aspectsLocate(e.FirstDay, len(e.Rows), seconds, lat)
	aspectsChart(&e.Rows[i].Lon, &e.Rows[i+1].Lon, f, seconds, lat, lon, &c)
	return c, nil
}

// ---- The output -----------------------------------------------------------

// aspectsSearch is one search's state: the combination (each term's pair
// and angle), the per-point counts over the matches, and, for test 2, the
// match lines held until every event block is out.
type aspectsSearch struct {
	terms   []AspectsTerm
	pair    []int
	angle   []int8
	test    int
	counts  [AspectsPoints]int64
	matches int
	held    []byte
	keys    []int32
}

// aspectIndex is the index of angle in aspectsAngles, or -1.
func aspectIndex(angle float64) int {
	for a, x := range aspectsAngles {
		if x == angle {
			return a
		}
	}
	return -1
}

// sortKeys sorts an event's aspect keys in increasing order, in place: an
// insertion sort, the core's (csrc/aspects.c), since an event has at most
// AspectsPairs of them and most often about two dozen, where it is faster
// than slices.Sort (Go 1.21's; the package builds with Go 1.19 and later).
func sortKeys(keys []int32) {
	for i := 1; i < len(keys); i++ {
		k, j := keys[i], i
		for ; j > 0 && keys[j-1] > k; j-- {
			keys[j] = keys[j-1]
		}
		keys[j] = k
	}
}

func newAspectsSearch(fn string, terms []AspectsTerm, test int) (*aspectsSearch, error) {
	if test != 1 && test != 2 {
		return nil, argError(fn, "test", ErrArg, "must be 1 or 2, not %d", test)
	}
	if len(terms) < 1 || len(terms) > AspectsMaxTerms {
		return nil, argError(fn, "combo", ErrArg, "must have 1 to %d terms, not %d", AspectsMaxTerms, len(terms))
	}
	s := &aspectsSearch{terms: terms, test: test, keys: make([]int32, 0, AspectsPairs)}
	for k, t := range terms {
		a := aspectIndex(float64(t.Angle))
		if t.P1 < 0 || t.P1 >= AspectsPoints || t.P2 < 0 || t.P2 >= AspectsPoints || t.P1 == t.P2 || a < 0 {
			return nil, argError(fn, "combo", ErrArg, "has a bad term (number %d)", k+1)
		}
		s.pair = append(s.pair, pairIndex(t.P1, t.P2))
		s.angle = append(s.angle, int8(a))
	}
	return s, nil
}

func appendAspect(dst []byte, p1, angle, p2 int, orb float64) []byte {
	dst = append(dst, '\t')
	dst = append(dst, AspectsPointNames[p1]...)
	dst = append(dst, ' ')
	dst = append(dst, aspectsAngleText[angle]...)
	dst = append(dst, ' ')
	dst = append(dst, AspectsPointNames[p2]...)
	dst = append(dst, ' ')
	return strconv.AppendFloat(dst, orb, 'f', 2, 64)
}

// event adds one event's output: its block (test 2) to dst, its match line
// (to dst for test 1, held for test 2) and its counts when it matches.
func (s *aspectsSearch) event(dst []byte, name, time string, c *AspectsChart) []byte {
	var a aspectsFound
	findAspects(&c.Point, &a)
	match := true
	for k, pair := range s.pair {
		match = match && a.angle[pair] == s.angle[k]
	}
	if s.test == 2 {
		dst = append(dst, "event\t"...)
		dst = append(dst, name...)
		dst = append(dst, '\t')
		dst = append(dst, time...)
		dst = append(dst, "\tasc "...)
		dst = strconv.AppendFloat(dst, c.Point[AspectsAsc], 'f', 2, 64)
		dst = append(dst, "\tmc "...)
		dst = strconv.AppendFloat(dst, c.Point[AspectsMC], 'f', 2, 64)
		dst = append(dst, "\tcusps"...)
		for _, h := range c.Cusp {
			dst = append(dst, ' ')
			dst = strconv.AppendFloat(dst, h, 'f', 2, 64)
		}
		dst = append(dst, '\n')
		// The most exact first: by the orb in hundredths, then the pair,
		// one integer key each.
		keys := s.keys[:0]
		for pair, angle := range a.angle {
			if angle >= 0 {
				keys = append(keys, int32(float64(a.orb[pair]*100)+0.5)*128+int32(pair))
			}
		}
		sortKeys(keys)
		if len(keys) > 20 {
			keys = keys[:20]
		}
		for _, key := range keys {
			pair := int(key & 127)
			dst = appendAspect(dst, int(pairPoints[pair][0]), int(a.angle[pair]), int(pairPoints[pair][1]), a.orb[pair])
			dst = append(dst, '\n')
		}
	}
	if match {
		m := dst
		if s.test == 2 {
			m = s.held
		}
		m = append(m, "match\t"...)
		m = append(m, name...)
		m = append(m, '\t')
		m = append(m, time...)
		for k, t := range s.terms {
			m = appendAspect(m, t.P1, int(s.angle[k]), t.P2, a.orb[s.pair[k]])
		}
		m = append(m, '\n')
		if s.test == 2 {
			s.held = m
		} else {
			dst = m
		}
		s.matches++
		for pair, angle := range a.angle {
			if angle >= 0 {
				s.counts[pairPoints[pair][0]]++
				s.counts[pairPoints[pair][1]]++
			}
		}
	}
	return dst
}

// finish adds the held match lines and the count line.
func (s *aspectsSearch) finish(dst []byte) []byte {
	dst = append(dst, s.held...)
	dst = append(dst, "count"...)
	for i, n := range s.counts {
		dst = append(dst, '\t')
		dst = append(dst, AspectsPointNames[i]...)
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, n, 10)
	}
	return append(dst, '\n')
}

// ---- The three searches ---------------------------------------------------

// PureAspectsSearch is the go variant: the search (test 1) or the search and
// print (test 2) over the events, appended to dst, from a slice of structs.
// It returns the output and the number of matching events. An event outside
// the ephemeris or beyond the polar circles is an error naming the events
// file and line (dst as it was is returned with it).
func PureAspectsSearch(e *AspectsEphemeris, ev *AspectsEvents, terms []AspectsTerm, test int, dst []byte) ([]byte, int, error) {
	const fn = "PureAspectsSearch"
	s, err := newAspectsSearch(fn, terms, test)
	if err != nil {
		return dst, 0, err
	}
	out := dst
	var c AspectsChart
	for k := range ev.Events {
		x := &ev.Events[k]
		i, f, ok := aspectsLocate(e.FirstDay, len(e.Rows), x.Seconds, x.Lat)
		if !ok {
			return dst, 0, aspectsRefused(fn, ev.File, e.FirstDay, len(e.Rows), x.Seconds, x.Lat, x.Time, x.Line)
		}
		aspectsChart(&e.Rows[i].Lon, &e.Rows[i+1].Lon, f, x.Seconds, x.Lat, x.Lon, &c)
		out = s.event(out, x.Name, x.Time, &c)
	}
	return s.finish(out), s.matches, nil
}

// PureAspectsSearchColumns is the go-columns variant: PureAspectsSearch
// from a struct of slices, one per column.
func PureAspectsSearchColumns(e *AspectsColumns, ev *AspectsEventColumns, terms []AspectsTerm, test int, dst []byte) ([]byte, int, error) {
	const fn = "PureAspectsSearchColumns"
	s, err := newAspectsSearch(fn, terms, test)
	if err != nil {
		return dst, 0, err
	}
	cols := [AspectsBodies][]float64{e.Sun, e.Moon, e.Mercury, e.Venus, e.Mars, e.Jupiter, e.Saturn,
		e.Uranus, e.Neptune, e.Pluto}
	out := dst
	var c AspectsChart
	var l0, l1 [AspectsBodies]float64
	for k, seconds := range ev.Seconds {
		lat, lon := ev.Lat[k], ev.Lon[k]
		i, f, ok := aspectsLocate(e.FirstDay, len(e.Day), seconds, lat)
		if !ok {
			return dst, 0, aspectsRefused(fn, ev.File, e.FirstDay, len(e.Day), seconds, lat, ev.Time[k], ev.Line[k])
		}
		for b, col := range cols {
			l0[b], l1[b] = col[i], col[i+1]
		}
		aspectsChart(&l0, &l1, f, seconds, lat, lon, &c)
		out = s.event(out, ev.Name[k], ev.Time[k], &c)
	}
	return s.finish(out), s.matches, nil
}

// PureAspectsSearchReflect is the go-reflect variant: PureAspectsSearch
// from rows whose longitudes are reached by field name through package
// reflect on every access, as the published Go port of the program reached
// its table's columns.
func PureAspectsSearchReflect(e *AspectsNamedTable, ev *AspectsEvents, terms []AspectsTerm, test int, dst []byte) ([]byte, int, error) {
	const fn = "PureAspectsSearchReflect"
	s, err := newAspectsSearch(fn, terms, test)
	if err != nil {
		return dst, 0, err
	}
	out := dst
	var c AspectsChart
	var l0, l1 [AspectsBodies]float64
	for k := range ev.Events {
		x := &ev.Events[k]
		i, f, ok := aspectsLocate(e.FirstDay, len(e.Rows), x.Seconds, x.Lat)
		if !ok {
			return dst, 0, aspectsRefused(fn, ev.File, e.FirstDay, len(e.Rows), x.Seconds, x.Lat, x.Time, x.Line)
		}
		r0, r1 := reflect.ValueOf(&e.Rows[i]).Elem(), reflect.ValueOf(&e.Rows[i+1]).Elem()
		for b := range l0 {
			name := AspectsPointNames[b]
			l0[b], l1[b] = r0.FieldByName(name).Float(), r1.FieldByName(name).Float()
		}
		aspectsChart(&l0, &l1, f, x.Seconds, x.Lat, x.Lon, &c)
		out = s.event(out, x.Name, x.Time, &c)
	}
	return s.finish(out), s.matches, nil
}
