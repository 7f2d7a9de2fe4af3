#!/usr/bin/env python3
"""Writes a native master (docs/sources.md section 1) in the conventions of the
apps' own master, from a release of the upstream station_database.

The apps' master and the upstream describe the same network in different ways;
this script writes the upstream's stations the apps' way, so that a test can
publish such a master, switch raw/ to the upstream, and check that no s_id
moves (issue 34). The conventions:

- station names end in 駅; one row per operator at a place, and a Shinkansen
  station has a row of its own per operator (東京: JR Central's and JR East's
  Shinkansen, JR East's conventional lines, Tokyo Metro);
- operators under their formal names without 株式会社 (東海旅客鉄道), Latin
  letters full-width (ＩＲいしかわ鉄道);
- lines without the operator's prefix (東海道本線), Tokyo Metro's under their
  numbered official names (4号線丸ノ内線); l_type 1 Shinkansen, 2 JR
  conventional, 3 major private, 4 public, 5 other;
- a line is split where its operators meet: 北陸新幹線 at 上越妙高 (JR East
  east of it, JR West west of it; 上越妙高 has a row of each) and 高山本線 at
  猪谷 (JR Central south of it, JR West north of it, 富山 included), where the
  upstream gives each line to one operator;
- addresses without their prefecture, in ASCII digits;
- positions tens to hundreds of metres off the upstream's (each row its own);
- s_ids grouped by kind: Shinkansen 12xxxx, JR conventional 2xxxxx, others 3xxxxx.

Beside the master folder it writes truth.csv: each o_id, l_id and s_id with
the keys the upstream's reader gives what it was made from
(station_database:company:<code>, station_database:line:<id>,
station_database:station:<id>:company:<code>[:shinkansen]), the ground truth
the test checks identities against.

usage: apps_master.py RELEASE_FOLDER OUT_FOLDER TRUTH_CSV
"""
import csv
import hashlib
import math
import os
import sys

PREFECTURES = ["北海道", "青森県", "岩手県", "宮城県", "秋田県", "山形県", "福島県", "茨城県", "栃木県", "群馬県", "埼玉県",
               "千葉県", "東京都", "神奈川県", "新潟県", "富山県", "石川県", "福井県", "山梨県", "長野県", "岐阜県", "静岡県",
               "愛知県", "三重県", "滋賀県", "京都府", "大阪府", "兵庫県", "奈良県", "和歌山県", "鳥取県", "島根県", "岡山県",
               "広島県", "山口県", "徳島県", "香川県", "愛媛県", "高知県", "福岡県", "佐賀県", "長崎県", "熊本県", "大分県",
               "宮崎県", "鹿児島県", "沖縄県"]

# Tokyo Metro's lines as the official register names them.
NUMBERED = {"銀座線": "3号線銀座線", "丸ノ内線": "4号線丸ノ内線", "日比谷線": "2号線日比谷線", "東西線": "5号線東西線",
            "千代田線": "9号線千代田線", "有楽町線": "8号線有楽町線", "半蔵門線": "11号線半蔵門線", "南北線": "7号線南北線",
            "副都心線": "13号線副都心線"}

JR_EAST, JR_CENTRAL, JR_WEST = 2, 3, 4
# (line code, operator before the boundary, operator after it, boundary station's name)
SPLITS = [(1009, JR_EAST, JR_WEST, "上越妙高"), (11416, JR_CENTRAL, JR_WEST, "猪谷")]


def read(folder, name):
    with open(os.path.join(folder, name), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def value(v):
    return None if v == "NULL" else v


def full_width(text):
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in text)


def ascii_digits(text):
    return "".join(chr(ord(c) - 0xFEE0) if "０" <= c <= "９" else c for c in text)


def offset(key, lat, lng):
    """The point 20 to 350 m from (lat, lng), in a direction and at a distance `key` decides."""
    h = hashlib.sha256(key.encode()).digest()
    angle = int.from_bytes(h[:4], "big") / 2**32 * 2 * math.pi
    metres = 20 + int.from_bytes(h[4:8], "big") / 2**32 * 330
    dlat = metres * math.cos(angle) / 111_320
    dlng = metres * math.sin(angle) / (111_320 * math.cos(math.radians(lat)))
    return f"{lat + dlat:.6f}", f"{lng + dlng:.6f}"


def main(release, out, truth_path):
    companies = read(release, "company.csv")
    lines = read(release, "line.csv")
    stations = read(release, "station.csv")
    register = read(release, "register.csv")

    # Operators: every company, numbered in the file's order.
    o_id = {}
    operators, truth = [], []
    for i, c in enumerate(companies, start=1):
        code = int(c["code"])
        o_id[code] = i
        formal = value(c["name_formal"]) or c["name"]
        name = formal.replace("株式会社", "").strip()
        kind = {"1": 1, "2": 2, "3": 3}.get(c["type"], 4 if "交通局" in name or name.endswith("市") else 5)
        operators.append({"o_id": i, "operator": full_width(name), "type": kind, "enabled": 0 if c["closed"] == "1" else 1})
        truth.append({"kind": "operator", "id": i, "keys": f"station_database:company:{code}"})
    company_type = {int(c["code"]): c["type"] for c in companies}
    company_names = {int(c["code"]): [c["name"], value(c["name_short"]) or c["name"]] for c in companies}

    # Lines: the upstream's, each split line as two, numbered from 1001 in the file's order.
    station_name = {int(s["code"]): s["original_name"] for s in stations}
    by_line = {}
    for r in register:
        by_line.setdefault(int(r["line_code"]), []).append((int(r["index"]), int(r["station_code"])))
    out_lines = []            # dicts of lines.csv
    parts = {}                # line code -> [(l_id, company, shinkansen, [(index, station code)])]
    next_l_id = 1001
    for line in lines:
        code = int(line["code"])
        company = int(line["company_code"]) if value(line["company_code"]) else None
        shinkansen = "新幹線" in line["name"]
        name = line["name"]
        prefixes = ["JR"] + (company_names.get(company, []) if company is not None else [])
        for p in sorted(prefixes, key=len, reverse=True):
            if name.startswith(p) and len(name) > len(p):
                name = name[len(p):]
                break
        name = NUMBERED.get(name, name) if company == 18 else name
        registered = sorted(by_line.get(code, []))
        split = next((s for s in SPLITS if s[0] == code), None)
        if split:
            at = next(i for i, (_, st) in enumerate(registered) if station_name[st] == split[3])
            pieces = [(split[1], registered[:at + 1]), (split[2], registered[at:])]
        else:
            pieces = [(company, registered)]
        parts[code] = []
        for owner, members in pieces:
            if shinkansen:
                l_type = 1
            elif owner is not None and company_type.get(owner) == "1":
                l_type = 2
            else:
                l_type = {"2": 3, "3": 3}.get(company_type.get(owner, "0"), 5)
            if owner is None:
                # The upstream lists no company yet: the apps' master names the line's operator after it.
                owner = 10_000 + code
                o_id[owner] = len(operators) + 1
                operators.append({"o_id": o_id[owner], "operator": name, "type": 5, "enabled": 1})
                truth.append({"kind": "operator", "id": o_id[owner], "keys": f"station_database:line-operator:{line['id']}"})
            out_lines.append({"l_id": next_l_id, "line": name, "o_id": o_id[owner], "enabled": 0 if line["closed"] == "1" else 1,
                              "l_type": l_type})
            upstream = f"company:{company}" if company is not None else f"line-operator:{line['id']}"
            truth.append({"kind": "line", "id": next_l_id, "keys": f"station_database:line:{line['id']}"})
            parts[code].append((next_l_id, owner, upstream, shinkansen, line["closed"] != "1", members))
            next_l_id += 1

    # Stations: one row per (station, operator of its line, Shinkansen or not).
    rows = {}                 # (station code, owner, shinkansen) -> list of (l_id, sort, open, upstream operator key)
    for code, pieces in parts.items():
        for l_id, owner, upstream, shinkansen, is_open, members in pieces:
            first = members[0][0] if members else 1
            for index, st in members:
                rows.setdefault((st, owner, shinkansen), []).append((l_id, index - first + 1, is_open, upstream))
    by_code = {int(s["code"]): s for s in stations}
    counters = {"shinkansen": 120_000, "jr": 200_000, "other": 300_000}
    out_stations, out_links = [], []
    for (st, owner, shinkansen) in sorted(rows, key=lambda k: (k[0], k[1], k[2])):
        s = by_code[st]
        kind = "shinkansen" if shinkansen else "jr" if company_type.get(owner) == "1" else "other"
        counters[kind] += 1
        s_id = counters[kind]
        lat, lng = offset(f"{s['id']}:{owner}:{shinkansen}", float(s["lat"]), float(s["lng"]))
        pref = int(s["prefecture"])
        address = value(s["address"]) or ""
        if address.startswith(PREFECTURES[pref - 1]):
            address = address[len(PREFECTURES[pref - 1]):]
        on = rows[(st, owner, shinkansen)]
        enabled = s["closed"] != "1" and any(o for _, _, o, _ in on)
        out_stations.append({"s_id": s_id, "station": s["original_name"] if s["original_name"].endswith("駅") else s["original_name"] + "駅", "yomi": value(s["name_kana"]) or "", "wiki": "",
                             "pref": pref, "address": ascii_digits(address), "lat": lat, "lng": lng, "o_id": o_id[owner],
                             "enabled": 1 if enabled else 0})
        for l_id, sort, _, _ in on:
            out_links.append({"l_id": l_id, "s_id": s_id, "s_sort": sort})
        keys = sorted({f"station_database:station:{s['id']}:{u}" + (":shinkansen" if shinkansen else "") for _, _, _, u in on})
        truth.append({"kind": "station", "id": s_id, "keys": "|".join(keys)})

    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "operators.csv"), ["o_id", "operator", "type", "enabled"], operators)
    write(os.path.join(out, "lines.csv"), ["l_id", "line", "o_id", "enabled", "l_type"], out_lines)
    write(os.path.join(out, "stations.csv"), ["s_id", "station", "yomi", "wiki", "pref", "address", "lat", "lng", "o_id", "enabled"],
          out_stations)
    write(os.path.join(out, "stations_lines.csv"), ["l_id", "s_id", "s_sort"], sorted(out_links, key=lambda r: (r["l_id"], r["s_sort"], r["s_id"])))
    write(truth_path, ["kind", "id", "keys"], truth)


def write(path, columns, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, columns, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    main(*sys.argv[1:])
