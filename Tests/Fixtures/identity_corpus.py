#!/usr/bin/env python3
"""Writes the labeled corpus of station identity transitions (issue 42).

Each transition is a short sequence of raw folders (steps/1, steps/2, ...), as
`stationdb ingest --raw` reads them, and labels.csv: for every station involved,
what must become of its s_id from one step to another:

  same      the station under from_key is the one under to_key: it keeps its s_id
            (kept, renamed, moved, passed to another operator);
  merged    from's station lives on as to's, which is another s_id's station:
            from's s_id retires naming to's as its survivor;
  retired   from's station is gone at to_step (to_key empty);
  new       to_key's station was never seen before (from_key empty);
  ambiguous the evidence cannot tell: either outcome, or a refusal, is right
            (to_key may be empty).

A `new` label's from_step is the step before its to_step. Stations no edit
touches are labeled `same` from each step to the next.

A station is named by its source key as the readers build it:
station_database:station:<id>:company:<code>[:shinkansen] (":line-operator:<line
id>" for a line without company) for the upstream, s:<s_id> for a native master.
Upstream transitions are regional slices of a release (the stations of a few
prefectures, their register rows, the lines having any of them and those lines'
companies), so that every run stays fast; native ones are slices of the master
Tests/Fixtures/apps_master.py writes from v20260227. The script checks that
every key it labels exists at its step and that every station of a step is
accounted for.

usage: identity_corpus.py OUT_FOLDER [--national]
"""
import copy
import math
import csv
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
V0227 = os.path.join(HERE, "station_database", "v20260227")
V0529 = os.path.join(ROOT, "raw", "station_database")
UPSTREAM_FILES = ["company.csv", "line.csv", "station.csv", "register.csv"]
NATIVE_FILES = ["operators.csv", "lines.csv", "stations.csv", "stations_lines.csv"]
SD = "station_database:"
LABEL_COLUMNS = ["from_step", "from_key", "to_step", "to_key", "expect", "note"]


# ---------------------------------------------------------------- tables

def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        r = csv.DictReader(f)
        return {"columns": list(r.fieldnames), "rows": list(r)}


def write_csv(path, table):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, table["columns"], lineterminator="\n")
        w.writeheader()
        w.writerows(table["rows"])


def read_folder(folder, files):
    return {name: read_csv(os.path.join(folder, name)) for name in files}


def rows(data, name):
    return data[name]["rows"]


def natural(key):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", key)]


# ---------------------------------------------------------------- upstream

def upstream_keys(rel):
    """Key -> station row, as StationDatabaseReader groups a station by (operator of its line, Shinkansen)
    (a register row of a line line.csv does not list is the upstream's extra dataset: not read)."""
    lines = {l["code"]: l for l in rows(rel, "line.csv")}
    registered = {}
    for r in rows(rel, "register.csv"):
        if r["line_code"] in lines:
            registered.setdefault(r["station_code"], []).append(lines[r["line_code"]])
    keys, live = {}, set()
    for s in rows(rel, "station.csv"):
        for l in registered.get(s["code"], []):
            op = f"company:{l['company_code']}" if l["company_code"] != "NULL" else f"line-operator:{l['id']}"
            k = f"{SD}station:{s['id']}:{op}" + (":shinkansen" if "新幹線" in l["name"] else "")
            keys[k] = s
            if s["closed"] == "0" and l["closed"] == "0":
                live.add(k)
    LIVE[id(rel)] = live
    return keys


# The keys each release publishes live (a station open on an open line of the key's operator), by id() of the release.
LIVE = {}


def keys_of(rel, station_id):
    return sorted(k for k in upstream_keys(rel) if k.split(":")[2] == str(station_id))


def slice_release(rel, prefs):
    """The stations of the prefectures, their register rows, the lines having any, those lines' companies."""
    out = copy.deepcopy(rel)
    rows(out, "station.csv")[:] = [s for s in rows(rel, "station.csv") if int(s["prefecture"]) in prefs]
    codes = {s["code"] for s in rows(out, "station.csv")}
    listed = {l["code"] for l in rows(rel, "line.csv")}
    rows(out, "register.csv")[:] = [r for r in rows(rel, "register.csv") if r["station_code"] in codes and r["line_code"] in listed]
    line_codes = {r["line_code"] for r in rows(out, "register.csv")}
    rows(out, "line.csv")[:] = [l for l in rows(rel, "line.csv") if l["code"] in line_codes]
    companies = {l["company_code"] for l in rows(out, "line.csv")}
    rows(out, "company.csv")[:] = [c for c in rows(rel, "company.csv") if c["code"] in companies]
    return out


def station(rel, station_id):
    return next(s for s in rows(rel, "station.csv") if s["id"] == str(station_id))


def drop_station(rel, station_id):
    s = station(rel, station_id)
    rows(rel, "station.csv").remove(s)
    rows(rel, "register.csv")[:] = [r for r in rows(rel, "register.csv") if r["station_code"] != s["code"]]


def swap_company_codes(rel, a, b):
    flip = {a: b, b: a}
    for c in rows(rel, "company.csv"):
        c["code"] = flip.get(c["code"], c["code"])
    for l in rows(rel, "line.csv"):
        l["company_code"] = flip.get(l["company_code"], l["company_code"])


def fresh_id_and_code(national):
    """An id and a code no station of the national release has."""
    ss = rows(national, "station.csv")
    return str(max(int(s["id"]) for s in ss) + 1), str(max(int(s["code"]) for s in ss) + 1)


def write_upstream(folder, rel, release_folder=None):
    with open(os.path.join(ROOT, "raw", "sources.json"), encoding="utf-8") as f:
        sources = f.read()
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "sources.json"), "w", encoding="utf-8") as f:
        f.write(sources)
    shutil.copyfile(os.path.join(ROOT, "raw", "CREDITS.md"), os.path.join(folder, "CREDITS.md"))
    for name in UPSTREAM_FILES:
        write_csv(os.path.join(folder, "station_database", name), rel[name])
    shutil.copyfile(os.path.join(V0529, "LICENSE.md"), os.path.join(folder, "station_database", "LICENSE.md"))
    if release_folder:
        shutil.copyfile(os.path.join(release_folder, "latest_info.json"), os.path.join(folder, "station_database", "latest_info.json"))
    else:
        with open(os.path.join(folder, "station_database", "latest_info.json"), "wb") as f:
            f.write(rel["latest_info.json"])


# ---------------------------------------------------------------- native master

def apps_master(tmp):
    out, truth = os.path.join(tmp, "master"), os.path.join(tmp, "truth.csv")
    subprocess.run([sys.executable, os.path.join(HERE, "apps_master.py"), V0227, out, truth], check=True)
    master = read_folder(out, NATIVE_FILES)
    by_key = {}
    for t in read_csv(truth)["rows"]:
        for k in t["keys"].split("|"):
            by_key.setdefault((t["kind"], k), []).append(t["id"])
    return master, read_csv(truth)["rows"], by_key


def slice_master(m, prefs):
    out = copy.deepcopy(m)
    rows(out, "stations.csv")[:] = [s for s in rows(m, "stations.csv") if int(s["pref"]) in prefs]
    ids = {s["s_id"] for s in rows(out, "stations.csv")}
    rows(out, "stations_lines.csv")[:] = [r for r in rows(m, "stations_lines.csv") if r["s_id"] in ids]
    l_ids = {r["l_id"] for r in rows(out, "stations_lines.csv")}
    rows(out, "lines.csv")[:] = [l for l in rows(m, "lines.csv") if l["l_id"] in l_ids]
    o_ids = {l["o_id"] for l in rows(out, "lines.csv")} | {s["o_id"] for s in rows(out, "stations.csv")}
    rows(out, "operators.csv")[:] = [o for o in rows(m, "operators.csv") if o["o_id"] in o_ids]
    return out


def native_keys(m):
    return {f"s:{s['s_id']}": s for s in rows(m, "stations.csv")}


def members(m, l_id):
    return [r["s_id"] for r in sorted(rows(m, "stations_lines.csv"), key=lambda r: int(r["s_sort"])) if r["l_id"] == l_id]


def next_id(table_rows, column):
    return str(max(int(r[column]) for r in table_rows) + 1)


def write_native(folder, m):
    for name in NATIVE_FILES:
        write_csv(os.path.join(folder, name), m[name])


# ---------------------------------------------------------------- labels

class Transition:
    def __init__(self, name, description):
        self.name, self.description, self.steps, self.labels = name, description, [], []

    def step(self, keys):
        self.steps.append(keys)
        return len(self.steps)

    def label(self, a, ka, b, kb, expect, note):
        assert not ka or ka in self.steps[a - 1], (self.name, a, ka)
        assert not kb or kb in self.steps[b - 1], (self.name, b, kb)
        self.labels.append([a, ka, b, kb, expect, note])

    def link(self, a, b, translate=lambda k: k, special=None, note="kept", new_note=None, arrivals=None):
        """Labels every key of step a: special[key] = [(to_key, expect, note)], else `same` to translate(key).
        Every key of step b must be reached: by a label, by arrivals[key] = (expect, note) (None: labeled
        elsewhere), or as `new` when new_note says why."""
        special, arrivals = special or {}, arrivals or {}
        reached = set()
        for k in sorted(self.steps[a - 1], key=natural):
            for kb, expect, why in special.get(k, [(translate(k), "same", note)]):
                assert kb is None or kb == "" or kb in self.steps[b - 1], (self.name, k, kb)
                self.label(a, k, b, kb or "", expect, why)
                reached.add(kb)
        for kb in sorted(set(self.steps[b - 1]) - reached, key=natural):
            if kb in arrivals:
                if arrivals[kb]:
                    self.label(a, "", b, kb, *arrivals[kb])
                continue
            assert new_note, (self.name, "unlabeled", kb)
            self.label(a, "", b, kb, "new", new_note)


def write_transition(out, t, folders):
    for i, write in enumerate(folders, start=1):
        write(os.path.join(out, t.name, "steps", str(i)))
    write_csv(os.path.join(out, t.name, "labels.csv"), {"columns": LABEL_COLUMNS,
              "rows": [dict(zip(LABEL_COLUMNS, r)) for r in t.labels]})
    counts = {}
    for r in t.labels:
        counts[r[4]] = counts.get(r[4], 0) + 1
    print(f"{t.name}: {len(folders)} steps, {len(t.labels)} labels (" +
          ", ".join(f"{e} {counts[e]}" for e in sorted(counts)) + ")")


def upstream_transition(name, description, releases, release_folder=V0529):
    """A transition over upstream states; returns it with its steps' keys registered."""
    t = Transition(name, description)
    for rel in releases:
        t.step(upstream_keys(rel))
    folders = [lambda f, rel=rel: write_upstream(f, rel, release_folder) for rel in releases]
    return t, folders


# ---------------------------------------------------------------- transitions

def upstream_release(out, old, new):
    t = Transition("upstream_release", "v20260227 to v20260529, national: the upstream's id is the truth")
    t.step(upstream_keys(old))
    t.step(upstream_keys(new))
    ids_a = {k.split(":")[2] for k in t.steps[0]}
    special = {}
    for k in t.steps[0]:
        if k in t.steps[1]:
            a, b = t.steps[0][k], t.steps[1][k]
            if a["closed"] != b["closed"]:
                special[k] = [(k, "same", "closed " + b["closed_date"] if b["closed"] == "1" else "reopened")]
        else:
            sid, op = k.split(":")[2], ":".join(k.split(":")[3:5])
            same_op = [kb for kb in t.steps[1] if kb.split(":")[2] == sid and ":".join(kb.split(":")[3:5]) == op]
            gone = not any(kb.split(":")[2] == sid for kb in t.steps[1])
            special[k] = [("", "retired", "id gone")] if gone else \
                [(same_op[0], "same", "same id, operator's key changed")] if len(same_op) == 1 else []
    # A key whose id stays but whose operator's key changed in no unique way is left unlabeled.
    t.link(1, 2, special=special, new_note="new id",
           arrivals={kb: None for kb in t.steps[1] if kb not in t.steps[0] and kb.split(":")[2] in ids_a})
    write_transition(out, t, [lambda f: write_upstream(f, old, V0227), lambda f: write_upstream(f, new, V0529)])
    return t


def apps_master_switch(out, master, truth, new):
    t = Transition("apps_master_switch", "apps_master.py's master of v20260227 switched to the upstream v20260529, national")
    t.step(native_keys(master))
    t.step(upstream_keys(new))
    operator_of = {r["id"]: r["keys"][len(SD):] for r in truth if r["kind"] == "operator"}
    rows_of_key = {}
    for r in truth:
        if r["kind"] == "station":
            for k in r["keys"].split("|"):
                rows_of_key.setdefault(k, []).append(r["id"])
    stations = {s["s_id"]: s for s in rows(master, "stations.csv")}
    special = {}
    for r in truth:
        if r["kind"] != "station":
            continue
        s = stations[r["id"]]
        own = operator_of[s["o_id"]]
        present = [k for k in r["keys"].split("|") if k in t.steps[1]]
        labels = []
        for k in present:
            mine = ":".join(k.split(":")[3:5]) == own
            if len(rows_of_key[k]) > 1:
                other = [i for i in rows_of_key[k] if i != r["id"]]
                labels.append((k, "same", "boundary row of the key's operator") if mine else
                              (k, "merged", f"boundary row: one upstream row with s:{other[0]}"))
            elif len(present) > 1:
                labels.append((k, "same", "kept; the upstream splits this row by operator") if mine else
                              (k, "ambiguous", "split off the master's one row: new or kept"))
            else:
                labels.append((k, "same", "kept" if s["enabled"] == "1" else "kept (disabled)"))
        special[f"s:{r['id']}"] = labels or [("", "retired", "its upstream rows are gone")]
    t.link(1, 2, special=special, new_note="upstream station the master lacks")
    write_transition(out, t, [lambda f: write_native(f, master), lambda f: write_upstream(f, new, V0529)])
    return t


def company_codes_swapped(out, name, national, prefs, a, b, who):
    base = slice_release(national, prefs)
    swapped = copy.deepcopy(base)
    swap_company_codes(swapped, a, b)
    t, folders = upstream_transition(name, f"codes of {who} swapped in company.csv and line.csv, nothing real changed", [base, swapped])
    flip = {f":company:{a}": f":company:{b}", f":company:{b}": f":company:{a}"}
    t.link(1, 2, translate=lambda k: re.sub(r":company:\d+", lambda m: flip.get(m.group(0), m.group(0)), k),
           note="kept; key carries the swapped code")
    write_transition(out, t, folders)
    return t


def line_renamed_shinkansen(out, national):
    base = slice_release(national, {4, 6, 7})
    renamed = copy.deepcopy(base)
    line = next(l for l in rows(renamed, "line.csv") if l["id"] == "35")
    line["name"], line["name_kana"] = "山形新幹線", "やまがたしんかんせん"
    t, folders = upstream_transition("line_renamed_shinkansen", "line 35 JR奥羽本線(山形線) renamed 山形新幹線: its stations' keys gain :shinkansen",
                                     [base, renamed])
    special = {k: [(k + ":shinkansen", "ambiguous", "careless flip: refuse or name the orphan")]
               for k in t.steps[0] if k not in t.steps[1]}
    split = {kb: ("ambiguous", "careless flip: a Shinkansen row splits off a kept station")
             for kb in t.steps[1] if kb not in t.steps[0] and kb not in {s[0][0] for s in special.values()}}
    t.link(1, 2, special=special, arrivals=split)
    write_transition(out, t, folders)
    return t


def gone_and_back_variant(out, national):
    base = slice_release(national, {42})
    k = keys_of(base, 8948)
    gone = copy.deepcopy(base)
    drop_station(gone, 8948)
    back = copy.deepcopy(base)
    s = station(back, 8948)
    new_id, new_code = fresh_id_and_code(national)
    for r in rows(back, "register.csv"):
        if r["station_code"] == s["code"]:
            r["station_code"] = new_code
    s.update(id=new_id, code=new_code, name="観光通り", original_name="観光通り")
    t, folders = upstream_transition("gone_and_back_variant", "観光通 deleted, then back under a new id and code as 観光通り",
                                     [base, gone, back])
    back_keys = [kb.replace(":8948:", f":{new_id}:") for kb in k]
    t.link(1, 2, special={kb: [("", "retired", "deleted")] for kb in k})
    t.link(2, 3, arrivals={kb: None for kb in back_keys})
    for ka, kb in zip(k, back_keys):
        t.label(1, ka, 3, kb, "same", "back after a gap as a name variant, new id")
    write_transition(out, t, folders)
    return t


def stops_renamed_and_moved(out, national):
    """Three neighbouring tram stops of 長崎電気軌道 (100 to 170 m apart) each renamed (口 added)
    and moved 120 m east, under new ids and codes: each is its own stop, never a neighbour's."""
    base = slice_release(national, {42})
    moved = copy.deepcopy(base)
    ids = [8946, 8947, 8948]
    olds = {i: keys_of(base, i) for i in ids}
    news = {}
    for i in ids:
        s = station(moved, i)
        new_id, new_code = fresh_id_and_code(national)
        new_id = str(int(new_id) + i)
        new_code = str(int(new_code) + i)
        for r in rows(moved, "register.csv"):
            if r["station_code"] == s["code"]:
                r["station_code"] = new_code
        lat = float(s["lat"])
        s.update(id=new_id, code=new_code, name=s["name"] + "口", original_name=s["original_name"] + "口",
                 lng="%.6f" % (float(s["lng"]) + 120 / (111_320 * math.cos(lat * math.pi / 180))))
        news[i] = [k.replace(f":{i}:", f":{new_id}:") for k in olds[i]]
    t, folders = upstream_transition("stops_renamed_and_moved", "新地中華街, 西浜町 and 観光通 renamed (口 added) and moved 120 m, under new ids",
                                     [base, moved])
    t.link(1, 2, special={ka: [(kb, "same", "renamed and moved 120 m, a new id: its own stop, not a neighbour")]
                          for i in ids for ka, kb in zip(olds[i], news[i])},
           arrivals={kb: None for i in ids for kb in news[i]})
    write_transition(out, t, folders)
    return t


def duplicate_then_original_deleted(out, national):
    base = slice_release(national, {42})
    dup = copy.deepcopy(base)
    s = station(dup, 8948)
    new_id, new_code = fresh_id_and_code(national)
    ss = rows(dup, "station.csv")
    ss.insert(ss.index(s) + 1, dict(s, id=new_id, code=new_code))
    reg = rows(dup, "register.csv")
    at = {r["line_code"]: int(r["index"]) for r in reg if r["station_code"] == s["code"]}
    for r in reg:
        if r["line_code"] in at and int(r["index"]) > at[r["line_code"]]:
            r["index"] = str(int(r["index"]) + 1)
    for r in [r for r in reg if r["station_code"] == s["code"]]:
        reg.insert(reg.index(r) + 1, dict(r, station_code=new_code, index=str(int(r["index"]) + 1)))
    deleted = copy.deepcopy(dup)
    drop_station(deleted, 8948)
    t, folders = upstream_transition("duplicate_then_original_deleted", "a duplicate row of 観光通 added, then the original deleted",
                                     [base, dup, deleted])
    orig, copies = keys_of(base, 8948), keys_of(dup, new_id)
    t.link(1, 2, arrivals={kb: ("ambiguous", "a duplicate of 観光通: new s_id or refused") for kb in copies})
    t.link(2, 3, special={ka: [(kb, "same", "original deleted: its duplicate survives")] for ka, kb in zip(orig, copies)}
           | {kb: [(kb, "ambiguous", "duplicate's own s_id, if any, may merge into the original's")] for kb in copies})
    for ka, kb in zip(orig, copies):
        t.label(1, ka, 3, kb, "same", "the duplicate's survivor keeps the original's s_id")
    write_transition(out, t, folders)
    return t


def tokyo_edit(national, name, description, edit, special_for):
    base = slice_release(national, {13})
    steps = [base]
    for e in edit:
        steps.append(copy.deepcopy(steps[-1]))
        e(steps[-1])
    t, folders = upstream_transition(name, description, steps)
    for a in range(1, len(steps)):
        t.link(a, a + 1, special=special_for(a, t))
    return t, folders


def rename_then_move(out, national):
    def rename(rel):
        station(rel, 5200).update(name="稲荷町(東京)", original_name="稲荷町", name_kana="いなりちょう")

    def move(rel):
        real = station(rel, 5201)
        station(rel, 5200).update(lat=real["lat"], lng=real["lng"])

    k = keys_of(slice_release(national, {13}), 5200)
    t, folders = tokyo_edit(national, "rename_then_move", "田原町 renamed 稲荷町 where it stands, then moved 764 m onto 稲荷町",
                            [rename, move], lambda a, t: {kb: [(kb, "ambiguous", "renamed 稲荷町, the name of its neighbour on its line, where it stands: "
                                                                  "refusing is right")] for kb in k} if a == 1 else
                            {kb: [(kb, "ambiguous", "now duplicates the real 稲荷町: refuse, never link to it")] for kb in k})
    for kb in keys_of(slice_release(national, {13}), 5201):
        t.label(1, kb, 3, kb, "same", "the real 稲荷町 stays")
    for kb in k:
        t.label(1, kb, 3, kb, "ambiguous", "田原町's s_id must never name the real 稲荷町")
    write_transition(out, t, folders)
    return t


def ids_swapped(out, national):
    def swap(rel):
        station(rel, 1302)["id"], station(rel, 1259)["id"] = "1259", "1302"

    def special(a, t):
        flip = {"1259": "1302", "1302": "1259"}
        return {k: [(re.sub(r":(\d+):", lambda m: f":{flip[m.group(1)]}:", k, count=1), "same",
                     "same station by name and place; the id moved")] for k in t.steps[0] if k.split(":")[2] in flip}

    t, folders = tokyo_edit(national, "ids_swapped", "the ids of 有楽町 (1302) and 新橋 (1259) swapped in station.csv", [swap], special)
    write_transition(out, t, folders)
    return t


def id_reused(out, national):
    def reuse(rel):
        drop_station(rel, 1259)
        station(rel, 1304)["id"] = "1259"

    def special(a, t):
        return {k: [("", "retired", "新橋 deleted")] if k.split(":")[2] == "1259" else
                [(k.replace(":1304:", ":1259:"), "same", "田町 under 新橋's old id")]
                for k in t.steps[0] if k.split(":")[2] in ("1259", "1304")}

    t, folders = tokyo_edit(national, "id_reused", "新橋 (1259) deleted and its id given to 田町 (1304)", [reuse], special)
    write_transition(out, t, folders)
    return t


def native_transition(out, name, description, steps, special, new_note=None):
    t = Transition(name, description)
    for m in steps:
        t.step(native_keys(m))
    t.link(1, 2, special=special, note="untouched", new_note=new_note)
    write_transition(out, t, [lambda f, m=m: write_native(f, m) for m in steps])
    return t


# The apps' own history, on the whole master: each edit makes `before` the earlier version
# (and `after` the later one, where the later one is not apps_master.py's master as written),
# and returns its labels; one national transition of the two keeps the nightly's guards
# meaningful (a slice would trip their percentages).

def history_yamada(before, after, by_key):
    s_id = lambda station_id, company: by_key[("station", f"{SD}station:{station_id}:company:{company}")][0]
    jr_east = by_key[("operator", f"{SD}company:2")][0]
    rias = by_key[("line", f"{SD}line:627")][0]
    names = {s["s_id"]: s for s in rows(before, "stations.csv")}
    line = members(before, rias)
    miyako, kamaishi = s_id(773, 109), s_id(699, 109)
    section = line[line.index(kamaishi) + 1:line.index(miyako)][::-1]                  # 磯鶏 ... 両石
    opened = [i for i in section if names[i]["station"] in ("払川駅", "八木沢・宮古短大駅")]  # 三陸鉄道's own, 2019
    closed = [i for i in section if i not in opened]
    assert len(closed) == 11, closed
    rows(before, "stations.csv")[:] = [s for s in rows(before, "stations.csv") if s["s_id"] not in opened]
    for s in rows(before, "stations.csv"):
        if s["s_id"] in closed:
            s.update(o_id=jr_east, enabled="0")
    l_id = next_id(rows(before, "lines.csv") + rows(after, "lines.csv"), "l_id")
    rows(before, "lines.csv").append({"l_id": l_id, "line": "山田線(宮古～釜石)", "o_id": jr_east, "enabled": "0", "l_type": "2"})
    sl = [r for r in rows(before, "stations_lines.csv") if not (r["l_id"] == rias and r["s_id"] in section) and r["s_id"] not in opened]
    path = [s_id(773, 2)] + closed + [s_id(699, 2)]
    sl += [{"l_id": l_id, "s_id": i, "s_sort": str(n)} for n, i in enumerate(path, start=1)]
    rows(before, "stations_lines.csv")[:] = sl
    return {f"s:{i}": [(f"s:{i}", "same", "JR山田線 宮古-釜石 closed under 東日本旅客鉄道, reopened under 三陸鉄道")] for i in closed}, \
        {f"s:{i}": ("new", "opened by 三陸鉄道 in 2019") for i in opened}


def history_sapporo_tram(before, after, by_key):
    tram = by_key[("line", f"{SD}line:361")][0]
    kotsu = by_key[("operator", f"{SD}company:101")][0]
    subway_susukino = by_key[("station", f"{SD}station:6290:company:101")][0]
    # The upstream's すすきの is one row for the tram and the subway: the apps' master keeps a tram stop of its own.
    tram_susukino = next_id(rows(before, "stations.csv") + rows(after, "stations.csv"), "s_id")
    for m in (before, after):
        ss = rows(m, "stations.csv")
        row = next(s for s in ss if s["s_id"] == subway_susukino)
        ss.insert(ss.index(row) + 1, dict(row, s_id=tram_susukino, lat=f"{float(row['lat']) + 0.0004:.6f}"))
        for r in rows(m, "stations_lines.csv"):
            if r["l_id"] == tram and r["s_id"] == subway_susukino:
                r["s_id"] = tram_susukino
    stops = members(after, tram)
    o_id = next_id(rows(before, "operators.csv") + rows(after, "operators.csv"), "o_id")
    rows(after, "operators.csv").append({"o_id": o_id, "operator": "札幌市交通事業振興公社", "type": "5", "enabled": "1"})
    for l in rows(after, "lines.csv"):
        if l["l_id"] == tram:
            l["o_id"] = o_id
    for s in rows(after, "stations.csv"):
        if s["s_id"] in stops:
            assert s["o_id"] == kotsu
            s["o_id"] = o_id
    special = {f"s:{i}": [(f"s:{i}", "same", "札幌市電's stop passed to 札幌市交通事業振興公社")] for i in stops}
    special[f"s:{subway_susukino}"] = [(f"s:{subway_susukino}", "same", "subway stays with 札幌市交通局")]
    return special, {}


def history_toyama_hokushin(before, after, by_key):
    special = {}
    o_id = int(next_id(rows(before, "operators.csv") + rows(after, "operators.csv"), "o_id"))
    for n, (operator, line_id, shared, why) in enumerate([
            ("富山ライトレール", 435, [by_key[("station", f"{SD}station:9185:company:160")][0]], "passed 富山ライトレール→富山地方鉄道"),
            ("北神急行電鉄", 508, [by_key[("station", f"{SD}station:8196:company:211")][0]], "passed 北神急行電鉄→神戸市交通局")]):
        new_o = str(o_id + n)
        rows(before, "operators.csv").append({"o_id": new_o, "operator": operator, "type": "5", "enabled": "1"})
        l_id = by_key[("line", f"{SD}line:{line_id}")][0]
        next(l for l in rows(before, "lines.csv") if l["l_id"] == l_id)["o_id"] = new_o
        moved = [i for i in members(before, l_id) if i not in shared]
        for s in rows(before, "stations.csv"):
            if s["s_id"] in moved:
                s["o_id"] = new_o
        special.update({f"s:{i}": [(f"s:{i}", "same", why)] for i in moved})
        if line_id == 435:  # before 2020 富山港線 ended at 富山駅北, off 富山駅's tram stop
            rows(before, "stations_lines.csv")[:] = [r for r in rows(before, "stations_lines.csv")
                                                   if not (r["l_id"] == l_id and r["s_id"] in shared)]
    return special, {}


def apps_history(out, master, by_key):
    before, after = copy.deepcopy(master), copy.deepcopy(master)
    special, arrivals = {}, {}
    for edit in (history_yamada, history_sapporo_tram, history_toyama_hokushin):
        s, a = edit(before, after, by_key)
        special.update(s)
        arrivals.update(a)
    t = Transition("apps_history", "the apps' master, national, a version before: 山田線 宮古-釜石 closed under JR東日本, 札幌市電 "
                   "under 札幌市交通局, 富山港線 and 北神線 under their own companies; then as they are, under the same s_ids")
    t.step(native_keys(before))
    t.step(native_keys(after))
    t.link(1, 2, special=special, note="untouched", arrivals=arrivals)
    write_transition(out, t, [lambda f: write_native(f, before), lambda f: write_native(f, after)])
    return t


def boundary_rows_merged(out, master, by_key):
    # 長野 and 岐阜 too: each boundary station's line continues on both sides of it.
    before = slice_master(master, {15, 16, 20, 21})
    after = copy.deepcopy(before)
    special = {}
    for key, keep_company in [(f"{SD}station:2023:company:2:shinkansen", "4"), (f"{SD}station:2436:company:3", "3")]:
        ids = by_key[("station", key)]
        o_keep = by_key[("operator", f"{SD}company:{keep_company}")][0]
        keep = next(s["s_id"] for s in rows(after, "stations.csv") if s["s_id"] in ids and s["o_id"] == o_keep)
        drop = next(i for i in ids if i != keep)
        name = next(s["station"] for s in rows(after, "stations.csv") if s["s_id"] == keep)
        rows(after, "stations.csv")[:] = [s for s in rows(after, "stations.csv") if s["s_id"] != drop]
        for r in rows(after, "stations_lines.csv"):
            if r["s_id"] == drop:
                r["s_id"] = keep
        special[f"s:{keep}"] = [(f"s:{keep}", "same", f"{name}: the row kept")]
        special[f"s:{drop}"] = [(f"s:{keep}", "merged", f"{name}: the boundary's two rows made one")]
    return native_transition(out, "boundary_rows_merged", "the master's two rows of 上越妙高 and of 猪谷 made one each",
                             [before, after], special)


# ---------------------------------------------------------------- the upstream's own history

HISTORY = os.path.join(HERE, "station_database", "history.tar.xz")
EVENTS = os.path.join(HERE, "station_database", "history-events.csv")


def history_releases(tags):
    """The releases of history.tar.xz (every tag since v20211026), as read_folder gives a folder."""
    out = {}
    with tarfile.open(HISTORY) as tar:
        for tag in tags:
            rel = {}
            for name in UPSTREAM_FILES:
                text = tar.extractfile(f"history/{tag}/{name}").read().decode("utf-8")
                r = csv.DictReader(io.StringIO(text, newline=""))
                rel[name] = {"columns": list(r.fieldnames), "rows": list(r)}
            rel["latest_info.json"] = tar.extractfile(f"history/{tag}/latest_info.json").read()
            out[tag] = rel
    return out


def history_tags():
    with tarfile.open(HISTORY) as tar:
        return [line.split()[0] for line in tar.extractfile("history/TAGS").read().decode().splitlines() if line.strip()]


def renumbering(a, b):
    """old id -> new id, and old line id -> new line id, where release b renumbered a's ids (v20250430:
    every id, hex to integer): a station by its exact name and place, a line by its name."""
    ids_b = {s["id"] for s in rows(b, "station.csv")}
    if sum(s["id"] in ids_b for s in rows(a, "station.csv")) * 2 > len(rows(a, "station.csv")):
        return {}, {}
    place = {(s["name"], float(s["lat"]), float(s["lng"])): s["id"] for s in rows(b, "station.csv")}
    stations = {s["id"]: place[(s["name"], float(s["lat"]), float(s["lng"]))] for s in rows(a, "station.csv")
                if (s["name"], float(s["lat"]), float(s["lng"])) in place}
    by_name = {}
    for l in rows(b, "line.csv"):
        by_name.setdefault(l["name"], l["id"])
    return stations, {l["id"]: by_name[l["name"]] for l in rows(a, "line.csv") if l["name"] in by_name}


def history_transition(out, name, description, tags, releases, prefs=None):
    """Consecutive releases of the history, sliced to `prefs` (national without), labeled by the
    upstream's own id (renumbered ids bridged by name and place): a key still there is the same
    station; a key gone whose place (id and kind) another row holds lives on as that row (`same`
    for a row new in this release, the line passed on; `merged` into a row that was there); a key
    whose place is gone retired. Then the hand labels of history-events.csv for the real events."""
    steps = [slice_release(releases[tag], prefs) if prefs else releases[tag] for tag in tags]
    t = Transition(name, description)
    for rel in steps:
        t.step(upstream_keys(rel))
    for a in range(1, len(steps)):
        stations, lines = renumbering(steps[a - 1], steps[a])

        def bridged(k, stations=stations, lines=lines):
            p = k.split(":")
            p[2] = stations.get(p[2], p[2])
            if p[3] == "line-operator":
                p[4] = lines.get(p[4], p[4])
            return ":".join(p)
        before, after, live = t.steps[a - 1], t.steps[a], LIVE[id(steps[a - 1])]
        seen = {bridged(k) for k in before}
        places = {}
        for kb in after:
            places.setdefault((kb.split(":")[2], kb.endswith(":shinkansen")), []).append(kb)
        special = {}
        for k in before:
            kb = bridged(k)
            if kb in after:
                special[k] = [(kb, "same", "closed" if after[kb]["closed"] != before[k]["closed"] and after[kb]["closed"] == "1"
                               else "reopened" if after[kb]["closed"] != before[k]["closed"] else "renumbered id" if kb != k else "kept")]
                continue
            heirs = places.get((kb.split(":")[2], kb.endswith(":shinkansen")), []) if k in live else []
            fresh = [h for h in heirs if h not in seen]
            special[k] = ([(h, "same", "its row gone, its place's new row carries it on (a line passed on)") for h in fresh] if len(fresh) == 1
                          else [(h, "ambiguous", "its place has several new rows") for h in fresh] if fresh
                          else [(h, "merged", "its row gone: its place lives on as this row") for h in heirs] if heirs
                          else [("", "retired", "its place is gone" if k in live else "a closed row gone")])
        t.link(a, a + 1, special=special, new_note="a new place")
    # Hand labels replace what the id says of the same station (a station given twice lives on as both rows).
    hand = set()
    for e in read_csv(EVENTS)["rows"]:
        if e["tag"] not in tags[1:] or (prefs and not any(e[c] and find(t, steps, tags.index(e["tag"]) + c.startswith("to"), e, c) for c in ("from_company", "to_company"))):
            continue
        b = tags.index(e["tag"]) + 1
        ka = find(t, steps, b - 1, e, "from_company") if e["from_company"] else ""
        kb = find(t, steps, b, e, "to_company") if e["to_company"] else ""
        t.labels = [l for l in t.labels if (l[0], l[1], l[2], l[3]) in hand or not ((ka and l[0] == b - 1 and l[1] == ka) or (not l[1] and l[2] == b and l[3] == kb))]
        t.label(b - 1, ka, b, kb, e["expect"], "hand: " + e["note"])
        hand.add((b - 1, ka, b, kb))
    write_transition(out, t, [lambda f, rel=rel: write_upstream(f, rel) for rel in steps])
    return t


def find(t, steps, step, e, column):
    """The key of the event's station at `step`: its name there, under the company (or, for a line of no
    company, the line) the event names; None when the step's slice does not hold it."""
    rel = steps[step - 1]
    companies = {c["code"]: c["name"] for c in rows(rel, "company.csv")}
    lines = {l["id"]: l["name"] for l in rows(rel, "line.csv")}
    station = e["from_station" if column.startswith("from") else "to_station"]
    keys = [k for k, s in t.steps[step - 1].items() if s["original_name"] == station and not k.endswith(":shinkansen")
            and (companies.get(k.split(":")[4]) if k.split(":")[3] == "company" else lines.get(k.split(":")[4])) == e[column]]
    assert len(keys) <= 1, (t.name, e, step, keys)
    return keys[0] if keys else None


def history(out, releases, tags):
    """The real events of the history, each on the prefectures it touched (fast), and with
    --national the whole history, every release one after the other, national."""
    return [
        history_transition(out, "history_closures_renames_2022", "v20220228 -> v20220402: 東風連 relocated as 名寄高校, JR北海道's closures, renames",
                           ["v20220228", "v20220331", "v20220402"], releases, {1, 5, 21, 23}),
        history_transition(out, "history_renames_2023", "v20221226 -> v20230131: 名古屋市交通局's and 長崎電気軌道's stops renamed (市役所 -> 名古屋城, 市民会館 -> 市役所)",
                           ["v20221226", "v20230131"], releases, {23, 42}),
        history_transition(out, "history_closures_2023", "v20230331 -> v20230428: 留萌本線 石狩沼田-留萌 closed; 茶山 renamed",
                           ["v20230331", "v20230428"], releases, {1, 26}),
        history_transition(out, "history_tokyu_yokohama_2022", "v20220602 -> v20220711: the rows of closed lines (東急 桜木町, 羽後交通) leave",
                           ["v20220602", "v20220711"], releases, {5, 14}),
        history_transition(out, "history_nishikyushu_2022", "v20220729 -> v20220930: 西九州新幹線 opens; 肥前山口 renamed 江北",
                           ["v20220729", "v20220831", "v20220930"], releases, {41, 42}),
        history_transition(out, "history_sotetsu_tokyu_2023", "v20230131 -> v20230228: 相鉄・東急新横浜線 opens",
                           ["v20230131", "v20230228"], releases, {14}),
        history_transition(out, "history_utsunomiya_lrt_2023", "v20230531 -> v20230731: 宇都宮ライトレール opens",
                           ["v20230531", "v20230731"], releases, {9}),
        history_transition(out, "history_hokuriku_2024", "v20240131 -> v20240430: 北陸新幹線 to 敦賀; 北陸本線 金沢-敦賀 passed to "
                           "IRいしかわ鉄道 and ハピラインふくい, their rows a release early", ["v20240131", "v20240229", "v20240321", "v20240329", "v20240430"],
                           releases, {16, 17, 18}),
        history_transition(out, "history_relocations_2024", "v20240628 -> v20240831: stations moved 50 m to 1.4 km (川原湯温泉, 淀, 大成, 高知's trams)",
                           ["v20240628", "v20240831"], releases, {1, 10, 26, 39}),
        history_transition(out, "history_renumbered_2025", "v20250331 -> v20250430: every id renumbered; 新京成電鉄 folded into 京成電鉄, "
                           "泉北高速鉄道 into 南海", ["v20250331", "v20250430"], releases, {12, 27}),
        history_transition(out, "history_hiroden_2025", "v20250731 -> v20260227: 広島電鉄's stops closed, one opened, two reopened; "
                           "長崎電気軌道's stops renamed back", ["v20250731", "v20250829", "v20251013", "v20251221", "v20260227"], releases, {34, 42}),
    ]


def main(out, national=False):
    old, new = read_folder(V0227, UPSTREAM_FILES), read_folder(V0529, UPSTREAM_FILES)
    with tempfile.TemporaryDirectory() as tmp:
        master, truth, by_key = apps_master(tmp)
    done = [upstream_release(out, old, new),
            apps_master_switch(out, master, truth, new),
            company_codes_swapped(out, "company_codes_swapped_kanto", new, {8, 9}, "132", "143", "関東鉄道 (132) and 真岡鐵道 (143)"),
            company_codes_swapped(out, "company_codes_swapped_tokyo", new, {13}, "18", "119", "東京メトロ (18) and 東京都交通局 (119)"),
            line_renamed_shinkansen(out, new),
            gone_and_back_variant(out, new),
            stops_renamed_and_moved(out, new),
            duplicate_then_original_deleted(out, new),
            rename_then_move(out, new),
            ids_swapped(out, new),
            id_reused(out, new),
            apps_history(out, master, by_key),
            boundary_rows_merged(out, master, by_key)]
    tags = history_tags()
    releases = history_releases(tags)
    done += history(out, releases, tags)
    if national:
        done.append(history_transition(out, "history_national", "every release v20211026 -> v20260529, national, one after the other",
                                       tags, releases))
    write_csv(os.path.join(out, "index.csv"), {"columns": ["transition", "steps", "description"], "rows": [
        {"transition": t.name, "steps": len(t.steps), "description": t.description} for t in done]})


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--national"]
    if len(args) != 1:
        sys.exit(__doc__.strip().splitlines()[-1])
    main(args[0], national="--national" in sys.argv[1:])
