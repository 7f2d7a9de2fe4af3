#!/usr/bin/env python3
"""Times stationdb's stages against their baselines and writes bench/results.md.

Run by bench/run, which installs the baselines, builds release and makes the
inputs under bench/work/ (see there). Standard library only.

Every command is run as a child process. Wall time is the median of the runs;
peak memory is the child's ru_maxrss from wait4 (for `make`, the largest of
make and the processes it waited for). A stage and its baseline are run
alternately (ours, theirs, ours, theirs, ...) so that noise on this shared
machine hits both alike.
"""
import argparse
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone

A = None  # parsed arguments
ROWS = []  # the results table
NOTES = []  # lines printed under the table
TARGETS = []  # (text, met: bool|None, detail)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run_once(cmd, cwd=None, ok=(0,)):
    """One run: (wall seconds, peak RSS in MB, CPU seconds user + system).
    The disk is synced first, untimed: what earlier runs wrote or deleted (a 100x
    build writes 320 MB, and each fresh dist deletes the last; the root file system
    is mounted with `discard`) is otherwise flushed during the next run, whose
    fsyncs then wait for it."""
    os.sync()
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # wait4 gives this child's own rusage; read stderr first so a chatty child cannot block.
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in ok:
        raise RuntimeError(f"{' '.join(map(str, cmd))} exited {p.returncode}:\n{err.decode(errors='replace')[-2000:]}")
    return wall, usage.ru_maxrss / 1024.0, usage.ru_utime + usage.ru_stime


class Timing:
    def __init__(self):
        self.walls, self.peaks, self.cpus = [], [], []

    def add(self, wall, peak, cpu):
        self.walls.append(wall)
        self.peaks.append(peak)
        self.cpus.append(cpu)

    @property
    def cpu(self):
        return statistics.median(self.cpus)

    @property
    def median(self):
        return statistics.median(self.walls)

    @property
    def peak(self):
        return max(self.peaks)


def measure(ours, theirs=None, runs=5, prep=None, ok=(0,), theirs_ok=(0,), cwd=None):
    """Runs ours (and theirs, alternately) `runs` times; prep() before each run of ours."""
    a, b = Timing(), Timing() if theirs else None
    for _ in range(runs):
        if prep:
            prep()
        a.add(*run_once(ours, cwd=cwd, ok=ok))
        if theirs:
            b.add(*run_once(theirs(), cwd=cwd, ok=theirs_ok) if callable(theirs) else run_once(theirs, cwd=cwd, ok=theirs_ok))
    return a, b


def measure_stage(scale, command, runs, cwd=None):
    """Runs `command(scale)` (a command and what to do before each run, or None)
    `runs` times. At a scale above 1, A.beside national runs of the same stage are
    made around each (half before, half after): the growth ratio compares these
    two, made under the same host conditions, since the host's speed swings by a
    third within minutes and national runs made minutes earlier would carry that
    swing into the ratio. Returns (runs at the scale, national runs beside or None)."""
    cmd, prep = command(scale)
    if scale == 1:
        return measure(cmd, runs=runs, prep=prep, cwd=cwd)[0], None
    national, national_prep = command(1)
    t, n = Timing(), Timing()
    before = A.beside // 2

    def national_run():
        if national_prep:
            national_prep()
        n.add(*run_once(national, cwd=cwd))
    for _ in range(runs):
        for _ in range(before):
            national_run()
        if prep:
            prep()
        t.add(*run_once(cmd, cwd=cwd))
        for _ in range(A.beside - before):
            national_run()
    return t, n


def mb(path):
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path)
                   if f.endswith(".csv") and f not in ("registry.csv", "weights.csv")) / 1e6
    return os.path.getsize(path) / 1e6


def count_stations(staging):
    """The stations row count from a staging file's header (StagingFile.swift):
    magic, format byte, then zigzag varint counts of meta, operators, lines, stations."""
    with open(staging, "rb") as f:
        head = f.read(64)
    magic = b"stationdb staging\n"
    if not head.startswith(magic) or head[len(magic)] != 1:
        sys.exit(f"bench: {staging} is not a staging file of format 1")
    pos, counts = len(magic) + 1, []
    while len(counts) < 4:
        z, shift = 0, 0
        while True:
            b = head[pos]; pos += 1
            z |= (b & 0x7F) << shift; shift += 7
            if b < 0x80:
                break
        counts.append((z >> 1) ^ -(z & 1))
    return counts[3]


def row(stage, scale, ours, base=None, stations=None, size_mb=None, target="", met=None, runs=None):
    r = dict(stage=stage, scale=scale, ours=ours.median, base=base.median if base else None,
             ratio=ours.median / base.median if base else None,
             sps=stations / ours.median if stations else None,
             mbs=size_mb / ours.median if size_mb else None,
             peak=ours.peak, cpu=ours.cpu, base_cpu=base.cpu if base else None, base_peak=base.peak if base else None, target=target, met=met,
             runs=runs or len(ours.walls))
    ROWS.append(r)
    ratio = f" = {r['ratio']:.2f}x baseline {r['base']*1000:.1f} ms" if base else ""
    log(f"bench: {stage} {scale}: {ours.median*1000:.1f} ms{ratio}, peak {ours.peak:.0f} MB"
        + (f" [{target}: {'met' if met else 'NOT met'}]" if target and met is not None else ""))
    return r


def target(text, met, detail):
    TARGETS.append((text, met, detail))


def rm(*paths):
    for p in paths:
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)


def W(*parts):
    return os.path.join(A.work, *parts)


# ---------------------------------------------------------------------------

def sqlite_import_script(native, db):
    """The sqlite3 CLI baseline: the bundle's tables from `stationdb synth schema`,
    each CSV .import-ed into a scratch table, converted into the bundle table
    (micro-degree integers, NULL l_type, weight 0) in one transaction, then the
    bundle's indexes. The same work as our path minus validation, IDs and weights."""
    tables = subprocess.run([A.bin, "synth", "schema", "--tables-only"], check=True, capture_output=True, text=True).stdout
    indexes = subprocess.run([A.bin, "synth", "schema", "--indexes-only"], check=True, capture_output=True, text=True).stdout
    f = lambda name: os.path.join(native, name)
    script = f"""
.bail on
BEGIN;
{tables}
.mode csv
.import {f('operators.csv')} csv_operators
.import {f('lines.csv')} csv_lines
.import {f('stations.csv')} csv_stations
.import {f('stations_lines.csv')} csv_stations_lines
INSERT INTO operators SELECT o_id, operator, type, enabled FROM csv_operators;
INSERT INTO lines SELECT l_id, line, o_id, enabled, NULLIF(l_type, '') FROM csv_lines;
INSERT INTO stations SELECT s_id, station, yomi, wiki, pref, address, CAST(round(lat * 1000000) AS INTEGER), CAST(round(lng * 1000000) AS INTEGER), o_id, enabled, 0 FROM csv_stations;
INSERT INTO stations_lines SELECT l_id, s_id, s_sort FROM csv_stations_lines;
DROP TABLE csv_operators; DROP TABLE csv_lines; DROP TABLE csv_stations; DROP TABLE csv_stations_lines;
{indexes}
COMMIT;
"""
    path = db + ".sql"
    with open(path, "w") as out:
        out.write(script)
    return path


def sqlite_import_cmd(native, db):
    script = sqlite_import_script(native, db)

    def cmd():
        rm(db)
        return ["sh", "-c", f'exec sqlite3 "$1" < "$2"', "sh", db, script]
    return cmd


# Each stage command at a scale, with what to do before each run (None: nothing).
def ingest_cmd(scale):
    return [A.bin, "ingest", "--raw", W(f"x{scale}"), "--registry", W("out", f"x{scale}.registry.csv"),
            "--out", W("out", f"x{scale}.staging.bin")], None


def stage_ingest_native(scale, runs):
    """Returns (timing, stations, national runs made beside the scaled ones or None)."""
    native = W(f"x{scale}")
    run_once(ingest_cmd(scale)[0])  # warm-up; also writes the registry the timed runs read, as a nightly run would
    t, beside = measure_stage(scale, ingest_cmd, runs)
    n = count_stations(W("out", f"x{scale}.staging.bin"))
    row("ingest native CSV", f"{scale}x", t, stations=n, size_mb=mb(native),
        target="<= 50 ms (all national runs, below)" if scale == 1 else "")
    return t, n, beside


def stage_ingest_ekidata(runs):
    raw = W("ekidata-raw")
    staging = W("out", "ekidata.staging.bin")
    cmd = [A.bin, "ingest", "--raw", raw, "--registry", W("out", "ekidata.registry.csv"), "--out", staging]
    run_once(cmd)
    t, _ = measure(cmd, runs=runs)
    n = count_stations(staging)
    row("ingest ekidata CSV", "1x", t, stations=n, size_mb=mb(os.path.join(A.data, "ekidata")))


def stage_n02(scale, xml, runs, stations):
    xmllint = ["xmllint", "--stream", "--noout", xml]
    have_xmllint = shutil.which("xmllint") is not None
    reader = [A.bin, "synth", "read", "--kind", "n02", xml]
    if stations is None:
        # The reader says what it read: "n02: ... operators, ... lines, N stations, ..."
        said = subprocess.run(reader, capture_output=True, text=True, check=True).stdout
        found = re.search(r"(\d+) stations", said)
        stations = int(found.group(1)) if found else None
    t, b = measure(reader, xmllint if have_xmllint else None, runs=runs)
    met = t.median <= 1.5 * b.median if b else None
    row("N02 XML reader alone", f"{scale}x", t, b, stations=stations, size_mb=mb(xml),
        target="<= 1.5x xmllint", met=met)
    if scale == 1:
        target("N02 XML reader <= 1.5x xmllint --stream (national)", met,
               f"{t.median*1000:.1f} ms vs {b.median*1000:.1f} ms = {t.median/b.median:.2f}x" if b else "xmllint missing")
    return t, b


def stage_n02_ingest(runs):
    """The whole ingest with the N02 file first and ekidata second (N02 carries no prefectures)."""
    raw = W("n02-raw")
    xml = os.path.join(raw, "N02-stations.xml")
    cmd = [A.bin, "ingest", "--raw", raw, "--registry", W("out", "n02.registry.csv"), "--out", W("out", "n02.staging.bin")]
    run_once(cmd)
    theirs = ["xmllint", "--stream", "--noout", xml] if shutil.which("xmllint") else None
    t, b = measure(cmd, theirs, runs=runs)
    n = count_stations(W("out", "n02.staging.bin"))
    row("ingest N02 + ekidata (merge)", "1x", t, b, stations=n, size_mb=mb(xml) + mb(os.path.join(A.data, "ekidata")),
        target="<= 1.5x xmllint", met=t.median <= 1.5 * b.median if b else None)
    target("whole ingest of N02 + ekidata <= 1.5x xmllint on the XML (stricter than asked: includes merge, IDs, staging write)",
           t.median <= 1.5 * b.median if b else None,
           f"{t.median*1000:.1f} ms vs {b.median*1000:.1f} ms = {t.median/b.median:.2f}x" if b else "xmllint missing")


def priority_cmd(scale):
    return [A.bin, "priority", "--staging", W("out", f"x{scale}.staging.bin"), "--no-hand", "--out", W("out", f"x{scale}.weights.csv")], None


def stage_priority(scale, runs, stations):
    t, beside = measure_stage(scale, priority_cmd, runs, cwd=W())  # cwd without raw/weights.csv: no hand weights
    row("priority", f"{scale}x", t, stations=stations, target="<= 20 ms (all national runs, below)" if scale == 1 else "")
    return t, beside


def build_cmd(scale):
    """The build into a fresh dist, and what clears it before each run."""
    dist = W("out", f"x{scale}.dist")
    cmd = [A.bin, "build", "--staging", W("out", f"x{scale}.staging.bin"), "--weights", W("out", f"x{scale}.weights.csv"), "--dist", dist]
    return cmd, lambda: rm(dist)


def stage_build(scale, runs, stations):
    t, beside = measure_stage(scale, build_cmd, runs, cwd=W())
    row("build (fresh dist)", f"{scale}x", t, stations=stations, target="<= 100 ms (all national runs, below)" if scale == 1 else "")
    return t, beside


def stage_pipeline_vs_sqlite(scale, runs, stations, ingest, priority, build):
    """At 10x and 100x: our three stages' medians summed, against sqlite3 .import measured now."""
    db = W("out", f"x{scale}.sqlite3-import.sqlite")
    cmd = sqlite_import_cmd(W(f"x{scale}"), db)
    b = Timing()
    for _ in range(runs):
        b.add(*run_once(cmd()))
    total = ingest.median + priority.median + build.median
    t = Timing()
    t.walls = [total]
    t.peaks = [max(ingest.peak, priority.peak, build.peak)]
    t.cpus = [ingest.cpu + priority.cpu + build.cpu]
    r = row("ingest + priority + build (sum of medians)", f"{scale}x", t, b, stations=stations, size_mb=mb(W(f"x{scale}")),
            target="<= 2x sqlite3", met=total <= 2 * b.median, runs=runs)
    return r


def stage_make(runs, stations):
    raw, build, dist = W("make-raw"), W("out", "make-build"), W("out", "make-dist")
    cmd = ["make", "--no-print-directory", "-s", "-f", os.path.join(A.root, "Makefile"), f"RAW={raw}", f"BUILD={build}", f"DIST={dist}"]
    rm(build, dist)
    run_once(cmd)  # warm-up: the registry in RAW, the release binary up to date
    db = W("out", "x1.sqlite3-import.sqlite")
    theirs = sqlite_import_cmd(raw, db)
    t, b = measure(cmd, theirs, runs=runs, prep=lambda: rm(build, dist))
    met = t.median <= 2 * b.median
    row("whole make (ingest to publish)", "1x", t, b, stations=stations, size_mb=mb(raw), target="<= 2x sqlite3", met=met)
    target("whole make <= 2x sqlite3 .import of the same CSVs (same schema and indexes)", met,
           f"{t.median*1000:.1f} ms vs {b.median*1000:.1f} ms = {t.median/b.median:.2f}x")
    return dist


def stage_diff(runs, stations):
    probe = subprocess.run([A.bin, "diff", "--help"], capture_output=True, text=True)
    help_text = probe.stdout + probe.stderr
    if probe.returncode != 0 or "not yet written" in help_text:
        NOTES.append("diff: skipped: stationdb diff not available in this build.")
        target("diff <= sqldiff and <= 100 ms national", None, "skipped: stationdb diff not available")
        log("bench: diff skipped: stationdb diff not available")
        return
    old = W("out", "diff-dist", "1", "stations.sqlite")
    new = W("out", "diff-dist", "2", "stations.sqlite")
    cmd = [A.bin, "diff", old, new]
    try:
        run_once(cmd, ok=(0, 1))
    except RuntimeError as e:
        NOTES.append(f"diff: skipped: stationdb diff failed on the pair: {str(e).splitlines()[0]}")
        target("diff <= sqldiff and <= 100 ms national", None, "skipped: stationdb diff failed")
        return
    theirs = ["sqldiff", old, new] if shutil.which("sqldiff") else None
    t, b = measure(cmd, theirs, runs=runs, ok=(0, 1))
    met = t.median <= 0.100 and (b is None or t.median <= b.median)
    row("diff of two bundles", "1x", t, b, stations=stations, size_mb=mb(old) + mb(new), target="<= sqldiff, <= 100 ms", met=met)
    target("diff of two national bundles <= 100 ms and <= sqldiff", met,
           f"{t.median*1000:.1f} ms vs sqldiff {b.median*1000:.1f} ms" if b else f"{t.median*1000:.1f} ms; sqldiff missing")


def stage_ogr2ogr(runs):
    if not shutil.which("ogr2ogr"):
        NOTES.append("ogr2ogr: skipped (gdal-bin not installed).")
        return
    # Through a link in bench/work: GDAL writes a .gfs beside the file it reads,
    # and ../shared is not ours to write in.
    os.makedirs(W("ogr"), exist_ok=True)
    xml = W("ogr", "N02-stations.xml")
    if not os.path.lexists(xml):
        os.symlink(os.path.join(A.data, "ksj", "N02-stations.xml"), xml)
    out = W("out", "ogr.sqlite")
    cmd = ["ogr2ogr", "-f", "SQLite", out, xml]
    reader = [A.bin, "synth", "read", "--kind", "n02", xml]
    try:
        rm(out)
        run_once(cmd)
        # GDAL's GML driver needs the application schema (or a .gfs) to find KSJ's features;
        # without it, it "succeeds" and writes an empty database. Timing that would mean nothing.
        with sqlite3.connect(out) as db:
            names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            features = sum(db.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names
                           if not n.startswith(("sqlite_", "geometry_columns", "spatial_ref_sys", "spatialite", "views_", "virts_")))
        if features == 0:
            NOTES.append("ogr2ogr: skipped: GDAL's GML driver found no feature layers in the N02 file (it needs the KSJ"
                         " application schema or a .gfs, which are not at hand) and wrote an empty database.")
            log("bench: ogr2ogr skipped: it reads no features from the N02 file")
            return
        t, b = measure(reader, lambda: (rm(out), cmd)[1], runs=runs)
    except (RuntimeError, sqlite3.Error) as e:
        NOTES.append(f"ogr2ogr: skipped: it failed on the N02 file: {str(e).splitlines()[0]}")
        return
    row("N02 reader vs ogr2ogr GML->SQLite", "1x", t, b, size_mb=mb(xml))


# ---------------------------------------------------------------------------

def fmt(v, spec, none="-"):
    return none if v is None else format(v, spec)


def table():
    head = ("| stage | scale | runs | ours (median s) | baseline (median s) | ratio | stations/s | MB/s | peak MB | target | met? "
            "| ours CPU s | baseline CPU s |")
    out = [head, "|" + "---|" * 13]
    for r in ROWS:
        met = "" if r["met"] is None else ("met" if r["met"] else "**not met**")
        out.append(f"| {r['stage']} | {r['scale']} | {r['runs']} | {r['ours']:.4f} | {fmt(r['base'], '.4f')} | {fmt(r['ratio'], '.2f')}"
                   f" | {fmt(r['sps'], ',.0f')} | {fmt(r['mbs'], '.1f')} | {r['peak']:.0f} | {r['target']} | {met}"
                   f" | {r['cpu']:.3f} | {fmt(r['base_cpu'], '.3f')} |")
    return "\n".join(out)


def main():
    global A
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bin", required=True)
    p.add_argument("--root", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--data", required=True, help="../shared/data: ekidata/ and ksj/N02-stations.xml")
    p.add_argument("--scales", default="1,10,100")
    p.add_argument("--runs", default="5,5,5", help="runs at 1x,10x,100x")
    p.add_argument("--beside", type=int, default=2, help="national runs of the same stage around each scaled run")
    p.add_argument("--out", required=True)
    p.add_argument("--note", action="append", default=[])
    A = p.parse_args()
    if A.beside < 1:
        p.error("--beside must be at least 1: the growth ratios are taken against those national runs")
    scales = [int(s) for s in A.scales.split(",")]
    runs = dict(zip([1, 10, 100], [int(r) for r in A.runs.split(",")]))
    os.makedirs(W("out"), exist_ok=True)
    started = time.time()
    load_before = os.getloadavg()

    per_scale = {}
    # Every national run of ingest, priority and build, for their absolute targets:
    # the stage's own runs and those made beside the scaled ones, spread over the
    # whole bench, so that one slow spell of the host does not decide a target.
    national = {stage: Timing() for stage in ("ingest", "priority", "build")}

    def pool(stage, timing):
        if timing:
            for w, pk, c in zip(timing.walls, timing.peaks, timing.cpus):
                national[stage].add(w, pk, c)
    for scale in scales:
        n = runs.get(scale, 1)
        ingest, stations, ingest_beside = stage_ingest_native(scale, n)
        if scale == 1:
            stage_ingest_ekidata(n)
            stage_n02(1, os.path.join(A.data, "ksj", "N02-stations.xml"), n, None)
            stage_n02_ingest(n)
        elif os.path.exists(W(f"x{scale}", "N02-stations.xml")):
            stage_n02(scale, W(f"x{scale}", "N02-stations.xml"), n, None)
        priority, priority_beside = stage_priority(scale, n, stations)
        build, build_beside = stage_build(scale, n, stations)
        per_scale[scale] = dict(ingest=ingest, priority=priority, build=build, stations=stations,
                                beside=dict(ingest=ingest_beside, priority=priority_beside, build=build_beside))
        if scale == 1:
            national_stations = stations
            pool("ingest", ingest), pool("priority", priority), pool("build", build)
        else:
            pool("ingest", ingest_beside), pool("priority", priority_beside), pool("build", build_beside)
        if scale == 1:
            stage_make(n, stations)
            stage_diff(n, stations)
            stage_ogr2ogr(n)
        else:
            stage_pipeline_vs_sqlite(scale, n, stations, ingest, priority, build)

    # The assignment alone, in process (no start-up, no staging read): `stationdb priority bench`.
    if 1 in per_scale:
        probe = subprocess.run([A.bin, "priority", "bench", "--staging", W("out", "x1.staging.bin"), "--scale", "1000000",
                                "--runs", "3"], capture_output=True, text=True, cwd=W())
        if probe.returncode == 0:
            NOTES.append("priority assignment alone, in process (`stationdb priority bench --scale 1000000 --runs 3`, best of runs): "
                         + "; ".join(l.strip() for l in probe.stdout.splitlines() if l.strip()))

    # The absolute national targets, on every national run of the stage.
    if 1 in per_scale:
        spread = "" if len(scales) == 1 else f", {runs[1]} of them in the stage's own turn, the rest beside the scaled runs"
        for stage, name, limit in (("ingest", "ingest native CSV", 0.050), ("priority", "priority", 0.020),
                                   ("build", "build (fresh dist)", 0.100)):
            t = national[stage]
            met = t.median <= limit
            row(name, "1x, all runs", t, stations=national_stations, size_mb=mb(W("x1")) if stage == "ingest" else None,
                target=f"<= {limit*1000:.0f} ms", met=met)
            what = dict(ingest="ingest native <= 50 ms national",
                        priority="priority <= 20 ms national (whole command: read staging, assign, write weights)",
                        build="build <= 100 ms national")[stage]
            target(what, met, f"{t.median*1000:.1f} ms (median of {len(t.walls)} runs{spread})")

    # Growth: 100x the data within 120x the time, and under 1 GiB at 100x; each
    # scaled stage against the national runs made beside it.
    top = max(scales)
    if top > 1:
        z = per_scale[top]
        factor = z["stations"] / count_stations(W("out", "x1.staging.bin"))
        budget = 1.2 * factor
        for stage in ("ingest", "priority", "build"):
            a = z["beside"][stage]
            ratio = z[stage].median / a.median
            target(f"{stage}: {top}x data ({factor:.0f}x stations) within {budget:.0f}x time", ratio <= budget,
                   f"{a.median*1000:.1f} ms (median of the {len(a.walls)} national runs beside) -> "
                   f"{z[stage].median*1000:.1f} ms = {ratio:.1f}x")
            target(f"{stage}: peak memory at {top}x under 1 GiB", z[stage].peak < 1024,
                   f"{a.peak:.0f} MB at 1x -> {z[stage].peak:.0f} MB at {top}x")

    elapsed = time.time() - started
    load_after = os.getloadavg()
    lines = [
        "# stationdb bench results",
        "",
        f"Run: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} on {os.cpu_count()} cores;"
        f" load average {load_before[0]:.2f} before, {load_after[0]:.2f} after; measuring took {elapsed:.0f} s.",
    ] + [f"{n}" for n in A.note] + [
        "",
        f"Runs per stage: {', '.join(f'{runs.get(s, 1)} at {s}x' for s in scales)} (median wall time; peak = largest ru_maxrss of the runs)."
        " Stage and baseline alternate run by run."
        + (f" Ingest, priority and build also run nationally {A.beside} times around each scaled run"
           f" ({A.beside // 2} before, {A.beside - A.beside // 2} after):"
           " each growth ratio is a scaled median over the median of the national runs beside it, and the national targets"
           " are judged on all national runs of the stage (rows \"1x, all runs\")." if len(scales) > 1 else "")
        + " Targets are judged on wall time; the CPU columns (user + system, median)"
        " show how much of the wall time was this process's own work on a loaded machine. Inputs: `stationdb synth --scale K` (see bench/run).",
        "",
        table(),
        "",
        "## Targets",
        "",
    ] + [f"- {'MET' if met else ('NOT MET' if met is not None else 'not measured')}: {text}: {detail}" for text, met, detail in TARGETS] + [
        "",
    ] + ([f"- {n}" for n in NOTES] + [""] if NOTES else [])
    text = "\n".join(lines)
    with open(A.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
