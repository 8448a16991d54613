"""Round aspects with pandas, written the way a newcomer to programming
writes it, on purpose: the honest version of the program behind the
published "Go is 300x faster than Python" claim.

Both files become DataFrames with pd.read_csv(sep="\\t"); then each event is
a row of iterrows(), its two ephemeris rows are found with .loc by date,
each body's longitude is read from them by column name, the aspects of an
event are collected into a DataFrame of their own, and the combination is
looked up in it with boolean masks. Nothing is vectorised over events:
that is what the newcomer's program did, and what this variant measures.
py-numpy is the same work vectorised; py is plain Python.

The formulas and the output are the plain variant's
(roundbench.pure.aspects), to the byte; the files are first checked by the
plain variant's readers, so a bad line gets the same error naming the file
and line.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import aspects as plain

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


def find_aspects(positions: dict) -> pd.DataFrame:
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
                    found.append({"p1": POINTS[a], "angle": angle, "p2": POINTS[b], "orb": orb, "pair": pair})
                    break
            pair += 1
    return pd.DataFrame(found, columns=["p1", "angle", "p2", "orb", "pair"])


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
            aspects["exact"] = np.floor(aspects["orb"] * 100 + 0.5)
            for _, a in aspects.sort_values(["exact", "pair"]).head(plain.MAX_LISTED).iterrows():
                write(f"\t{a['p1']} {a['angle']} {a['p2']} {a['orb']:.2f}\n")
        line = f"match\t{event['name']}\t{event['time']}"
        for _, angle, i, j in combo:
            p1, p2 = POINTS[i], POINTS[j]
            hit = aspects[
                (((aspects["p1"] == p1) & (aspects["p2"] == p2)) | ((aspects["p1"] == p2) & (aspects["p2"] == p1)))
                & (aspects["angle"] == angle)
            ]
            if len(hit) == 0:
                break
            line += f"\t{p1} {angle} {p2} {hit['orb'].iloc[0]:.2f}"
        else:
            matches += 1
            if print_all:
                match_lines.append(line + "\n")
            else:
                write(line + "\n")
            for _, a in aspects.iterrows():
                counts[a["p1"]] += 1
                counts[a["p2"]] += 1
    for line in match_lines:
        write(line)
    write("count" + "".join(f"\t{name} {n}" for name, n in counts.items()) + "\n")
    return matches
