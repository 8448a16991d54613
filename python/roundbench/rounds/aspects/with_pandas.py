"""Round aspects with pandas, written the way a newcomer to programming
writes it, on purpose: the honest version of the program behind the
published "Go is 300x faster than Python" claim.

Both files become DataFrames with pd.read_csv(sep="\\t"); then each event is
a row of iterrows(), its time a pd.Timestamp, its two ephemeris rows are
found with .loc by date and each body's longitude is read from them by
column name, with numpy's functions on the scalars; the aspects go into a
list and the counts into a Series. Nothing is vectorised over events: that
is what the newcomer's program did, and what this variant measures (the
cost of reaching data through pandas one row at a time). py-numpy is the
same work vectorised; py is plain Python.

The formulas and the output are the plain variant's
(roundbench.pure.aspects), to the byte; the files are first checked by the
plain variant's readers, so a bad line gets the same error naming the file
and line.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...pure import aspects as plain

POINTS = plain.POINTS
EPOCH = pd.Timestamp("1900-01-01", tz="UTC")
J2000 = plain.J2000


def load(ephemeris_path, events_path) -> tuple:
    """(ephemeris, events) as DataFrames, after the plain readers have
    checked both files. The ephemeris is indexed by its date column."""
    plain.load_events(events_path, plain.load_ephemeris(ephemeris_path))
    ephemeris = pd.read_csv(ephemeris_path, sep="\t", index_col="date")
    try:
        events = pd.read_csv(events_path, sep="\t", dtype={"name": str})
    except pd.errors.EmptyDataError:  # a file of no bytes: no events
        events = pd.DataFrame(columns=list(plain.EVENTS_HEADER))
    return ephemeris, events


def head(data: tuple, n: int) -> tuple:
    ephemeris, events = data
    return ephemeris, events.head(n)


def positions_at(ephemeris, when, lat, lon) -> dict:
    """Every point's longitude at a time, by name."""
    today = ephemeris.loc[when.strftime("%Y-%m-%d")]
    tomorrow = ephemeris.loc[(when + pd.Timedelta(days=1)).strftime("%Y-%m-%d")]
    fraction = (when - when.normalize()).total_seconds() / 86400
    positions = {}
    for name, column in zip(plain.BODIES, ephemeris.columns):
        start = today[column]
        change = tomorrow[column] - start
        if change > 180:
            change = change - 360
        elif change < -180:
            change = change + 360
        value = start + fraction * change
        if value >= 360:
            value = value - 360
        elif value < 0:
            value = value + 360
        positions[name] = value

    seconds = (when - EPOCH).total_seconds()
    centuries = (seconds - J2000) / 86400 / 36525
    obliquity = np.radians(23.439291 - 0.0130042 * centuries)
    sidereal = (280.46061837 + 360.98564736629 * (seconds - J2000) / 86400) % 360
    ramc = np.radians((sidereal + lon) % 360)
    positions["Asc"] = (
        np.degrees(
            np.arctan2(np.cos(ramc), -(np.sin(ramc) * np.cos(obliquity) + np.tan(np.radians(lat)) * np.sin(obliquity)))
        )
        % 360
    )
    positions["MC"] = np.degrees(np.arctan2(np.sin(ramc), np.cos(ramc) * np.cos(obliquity))) % 360
    return positions


def house_cusps(asc, mc) -> list:
    ic = (mc + 180) % 360
    q = (asc - mc) % 360
    c11 = (mc + q / 3) % 360
    c12 = (mc + 2 * q / 3) % 360
    r = (ic - asc) % 360
    c2 = (asc + r / 3) % 360
    c3 = (asc + 2 * r / 3) % 360
    return [
        asc,
        c2,
        c3,
        ic,
        (c11 + 180) % 360,
        (c12 + 180) % 360,
        (asc + 180) % 360,
        (c2 + 180) % 360,
        (c3 + 180) % 360,
        mc,
        c11,
        c12,
    ]


def find_aspects(positions: dict) -> list:
    """Every aspect between two points, as (point, angle, point, orb, pair
    number) in the order of the pairs."""
    found = []
    pair = 0
    for a in range(len(POINTS)):
        for b in range(a + 1, len(POINTS)):
            separation = abs(positions[POINTS[a]] - positions[POINTS[b]])
            if separation > 180:
                separation = 360 - separation
            for angle in plain.ANGLES:
                orb = abs(separation - angle)
                if orb <= plain.ORB:
                    found.append((POINTS[a], angle, POINTS[b], orb, pair))
                    break
            pair += 1
    return found


def search(data: tuple, combo: list, print_all: bool, write) -> int:
    """The plain variant's search, the newcomer's way; combo as parsed by
    plain.parse_combo."""
    ephemeris, events = data
    counts = pd.Series(0, index=list(POINTS))
    matches = 0
    match_lines = []
    for _, event in events.iterrows():
        when = pd.Timestamp(event["time"])
        positions = positions_at(ephemeris, when, event["lat"], event["lon"])
        cusps = house_cusps(positions["Asc"], positions["MC"])
        aspects = find_aspects(positions)
        if print_all:
            write(
                f"event\t{event['name']}\t{event['time']}\tasc {positions['Asc']:.2f}\tmc {positions['MC']:.2f}"
                + "\tcusps "
                + " ".join(f"{c:.2f}" for c in cusps)
                + "\n"
            )
            most_exact = sorted(aspects, key=lambda a: (np.floor(a[3] * 100 + 0.5), a[4]))
            for p1, angle, p2, orb, _ in most_exact[: plain.MAX_LISTED]:
                write(f"\t{p1} {angle} {p2} {orb:.2f}\n")
        line = f"match\t{event['name']}\t{event['time']}"
        for _, angle, i, j in combo:
            wanted = {POINTS[i], POINTS[j]}
            hit = [a for a in aspects if {a[0], a[2]} == wanted and a[1] == angle]
            if not hit:
                break
            line += f"\t{POINTS[i]} {angle} {POINTS[j]} {hit[0][3]:.2f}"
        else:
            matches += 1
            if print_all:
                match_lines.append(line + "\n")
            else:
                write(line + "\n")
            for p1, _, p2, _, _ in aspects:
                counts[p1] += 1
                counts[p2] += 1
    for line in match_lines:
        write(line)
    write("count" + "".join(f"\t{name} {n}" for name, n in counts.items()) + "\n")
    return matches
