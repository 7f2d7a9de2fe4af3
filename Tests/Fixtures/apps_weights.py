#!/usr/bin/env python3
"""Writes hand weights (raw/weights.csv: s_id, weight, note) for a master in the apps'
conventions (apps_master.py's output), made the way the apps' maintainer made his.

The apps' own weights are not in this repository. This is a stand-in, made to match
what issue 44 measured of them: about 1,400 stations with levels 1-10, most at 3, 5
and 7, none at 4 or 6; on the country view (100 pins over every live station's box)
Hokkaido shows 1 pin, Tohoku 9, Shikoku 5, Kyushu 7 and Kinki 27; coverage about
0.8 at the country's span and 0.77 at a region's. It is a person's work, not a
machine's:

- which stations: the best known station of each part of the map (squares of 0.14
  degrees, about 15 km), then the best known of the rest, which are the big cities'
  (a station is known by the stations within 3 km, the lines meeting at its place and
  a Shinkansen row);
- which levels: a prefecture at a time, each town's best known station first, the big
  towns first and going deeper; a region at a time over the years, each in the style of
  its year: Kinki first and generous (many 1s and 2s), then Kanto, Chubu, Chugoku,
  Kyushu, Tohoku, Shikoku, Okinawa, and Hokkaido last and in a hurry: its capital at 1
  and every other station at 5 or above, a region left with only high levels;
- each operator's row at a place is a station of its own (東京 has four rows), weighed
  one by one.

Deterministic: the same master gives the same bytes.

usage: apps_weights.py MASTER_FOLDER OUT_CSV
"""
import csv
import math
import os
import sys

# Regions by prefecture code, in the order the maintainer worked through them, each with
# the year and its levels, best first: (level, a count for the region shared among its
# prefectures by their stations, or a share of the picks the counts leave).
REGIONS = [
    ("近畿", range(24, 31), 2017, [(1, 10), (2, 17), (3, 0.32), (5, 0.28), (7, 0.22), (9, 0.18)]),
    ("関東", range(8, 15), 2018, [(1, 11), (2, 26), (3, 0.28), (5, 0.30), (7, 0.28), (9, 0.14)]),
    ("中部", range(15, 24), 2019, [(1, 9), (2, 16), (3, 0.28), (5, 0.32), (7, 0.22), (9, 0.18)]),
    ("中国", range(31, 36), 2020, [(1, 4), (2, 8), (3, 0.25), (5, 0.32), (7, 0.28), (8, 0.15)]),
    ("九州", range(40, 47), 2021, [(1, 7), (2, 10), (3, 0.24), (5, 0.34), (7, 0.24), (9, 0.18)]),
    ("東北", range(2, 8), 2022, [(1, 9), (2, 6), (3, 0.22), (5, 0.36), (7, 0.22), (9, 0.20)]),
    ("四国", range(36, 40), 2023, [(1, 5), (2, 3), (3, 0.22), (5, 0.33), (7, 0.28), (9, 0.17)]),
    ("沖縄", range(47, 48), 2024, [(3, 0.20), (5, 0.40), (7, 0.40)]),
    ("北海道", range(1, 2), 2025, [(1, 1), (5, 0.30), (7, 0.36), (9, 0.32), (10, 0.02)]),
]
PICKS = 1430
SQUARE = 0.14


def read(folder, name):
    with open(os.path.join(folder, name), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def metres(a, b):
    dlat = (a[0] - b[0]) * 111_320
    dlng = (a[1] - b[1]) * 111_320 * math.cos(math.radians((a[0] + b[0]) / 2))
    return math.hypot(dlat, dlng)


def town(address):
    """The municipality an address starts with (apps_master.py writes none of the prefecture)."""
    for i, c in enumerate(address):
        if c in "市区町村" and i > 0:
            return address[:i + 1]
    return address


def main(master, out):
    lines = {int(l["l_id"]): l for l in read(master, "lines.csv") if l["enabled"] == "1"}
    stations = [s for s in read(master, "stations.csv") if s["enabled"] == "1"]
    on = {}
    for r in read(master, "stations_lines.csv"):
        if int(r["l_id"]) in lines:
            on.setdefault(int(r["s_id"]), set()).add(int(r["l_id"]))
    place = {int(s["s_id"]): (float(s["lat"]), float(s["lng"])) for s in stations}
    # Stations in cells of about 3 km, for the neighbours within 3 km and the rows at a place.
    cells = {}
    def cell(p):
        return (int(p[0] / 0.027), int(p[1] / 0.033))
    for s in stations:
        cells.setdefault(cell(place[int(s["s_id"])]), []).append(s)
    def near(p, within):
        c = cell(p)
        return [t for dy in (-1, 0, 1) for dx in (-1, 0, 1) for t in cells.get((c[0] + dy, c[1] + dx), [])
                if metres(p, place[int(t["s_id"])]) <= within]

    def known(s):
        p = place[int(s["s_id"])]
        here = [t for t in near(p, 500) if t["station"] == s["station"]]
        lines_here = set().union(*(on.get(int(t["s_id"]), set()) for t in here))
        shinkansen = any(lines[l]["l_type"] == "1" for l in on.get(int(s["s_id"]), ()))
        # The rows of a place with more lines of their own first (JR's before a tram stop's).
        return 25 * math.log2(len(near(p, 3_000))) + 8 * len(lines_here) + 30 * shinkansen + 2 * len(on.get(int(s["s_id"]), ()))
    fame = {int(s["s_id"]): known(s) for s in stations}

    # The picks: each square's best known station, then the best known of the rest.
    squares = {}
    for s in stations:
        p = place[int(s["s_id"])]
        squares.setdefault((s["pref"], int(p[0] / SQUARE), int(p[1] / SQUARE / 1.25)), []).append(s)
    pick = dict(fame)
    for members in squares.values():
        best = max(members, key=lambda s: (fame[int(s["s_id"])], -int(s["s_id"])))
        pick[int(best["s_id"])] += 1e9
    picked = set(sorted(pick, key=lambda i: (-pick[i], i))[:PICKS])

    # The order of his levels: each town's best known station first (its k-th counts 1/k³),
    # the bigger and better known towns first.
    towns, order = {}, {}
    for s in stations:
        towns.setdefault((s["pref"], town(s["address"])), []).append(s)
    for members in towns.values():
        ranked = sorted(members, key=lambda s: (-fame[int(s["s_id"])], int(s["s_id"])))
        for k, s in enumerate(ranked):
            order[int(s["s_id"])] = (fame[int(ranked[0]["s_id"])] + len(members)) / (k + 1) ** 3

    rows = []
    for name, prefs, year, levels in REGIONS:
        region = [s for s in stations if int(s["pref"]) in prefs]
        for pref in prefs:
            these = [s for s in region if int(s["pref"]) == pref]
            picks = sorted((s for s in these if int(s["s_id"]) in picked), key=lambda s: (-order[int(s["s_id"])], int(s["s_id"])))
            share = len(these) / len(region)
            counts = [(level, max(1 if level == 1 else 0, round(part * share)) if isinstance(part, int) else part) for level, part in levels]
            counted = sum(part for _, part in counts if isinstance(part, int))
            bounds, total = [], 0
            for level, part in counts:
                total += part if isinstance(part, int) else part * (len(picks) - counted)
                bounds.append((round(total), level))
            for rank, s in enumerate(picks):
                level = next((level for bound, level in bounds if rank < bound), levels[-1][0])
                rows.append((int(s["s_id"]), level, f"{s['station']} ({name} {year})"))
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["s_id", "weight", "note"])
        w.writerows(sorted(rows))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    main(*sys.argv[1:])
