#!/usr/bin/env python3
"""Times `ibdscope rows --format tsv` and `ibdscope records` beside `cat` and
the server's own `SELECT ... INTO OUTFILE` of the same table, interleaved in
rounds (called by benches/run-rows; standard library only; see
benches/README.md).

Every tool writes where the server writes: a file in OUTDIR (the page cache),
deleted after each run; `cat` reads the tablespace to /dev/null.  Before any
timing the server's dump and `rows --format tsv` are compared byte for byte
(and `records` must list one record per row).  Each round runs every case
once, in the same order; a case's time is its wall time, its CPU the user and
system time of its process (for the server: of mariadbd, read from
/proc/PID/stat before and after).  The report gives the median of each case
and the median of the same-round ratios, with the load average before and
after: the machine is shared, read the ratios.
"""

import argparse
import hashlib
import os
import resource
import statistics
import subprocess
import sys
import time


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                return h.hexdigest(), f.tell()
            h.update(b)


def loadavg():
    with open("/proc/loadavg") as f:
        return " / ".join(f.read().split()[:3])


def proc_cpu(pid):
    """User + system seconds of process PID (all its threads)."""
    with open(f"/proc/{pid}/stat") as f:
        rest = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(rest[11]) + int(rest[12])) / tick


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class Case:
    def __init__(self, name, run):
        self.name = name
        self.run = run  # () -> (wall, cpu)
        self.wall = []
        self.cpu = []


def timed(argv, out_path=None):
    c0 = children_cpu()
    t0 = time.perf_counter()
    if out_path is None:
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    else:
        with open(out_path, "wb") as out:
            subprocess.run(argv, stdout=out, check=True)
    wall = time.perf_counter() - t0
    cpu = children_cpu() - c0
    if out_path is not None:
        os.unlink(out_path)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ibd", required=True)
    ap.add_argument("--ibdscope", required=True)
    ap.add_argument("--before", help="another ibdscope binary timed beside (one thread)")
    ap.add_argument("--socket", required=True, help="the server's socket")
    ap.add_argument("--database", default="fx")
    ap.add_argument("--table", default="bench")
    ap.add_argument("--server-pid", type=int, required=True)
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--note", action="append", default=[])
    ap.add_argument("--out")
    a = ap.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    size = os.path.getsize(a.ibd)
    load_before = loadavg()

    def outfile(tag):
        return os.path.join(a.outdir, f"{tag}.tsv")

    client = ["mariadb", "--no-defaults", f"--socket={a.socket}", "-uroot", a.database]

    def server_dump(path, keep=False):
        sql = f"SELECT * FROM {a.table} INTO OUTFILE '{path}'"
        c0 = proc_cpu(a.server_pid)
        t0 = time.perf_counter()
        subprocess.run(client + ["-e", sql], check=True)
        wall = time.perf_counter() - t0
        cpu = proc_cpu(a.server_pid) - c0
        if not keep:
            os.unlink(path)
        return wall, cpu

    # The check: the server's dump (its first also warms its buffer pool)
    # and ours, byte for byte.
    log = lambda m: print(f"[bench-rows {time.strftime('%H:%M:%S')}] {m}", file=sys.stderr)
    log("check: the server's dump against rows --format tsv")
    server_dump(outfile("check-server"), keep=True)
    ours = outfile("check-ours")
    with open(ours, "wb") as out:
        subprocess.run([a.ibdscope, "rows", "--format", "tsv", a.ibd], stdout=out, check=True)
    s_hash, s_len = sha(outfile("check-server"))
    o_hash, o_len = sha(ours)
    with open(outfile("check-server"), "rb") as f:
        n_rows = sum(b.count(b"\n") for b in iter(lambda: f.read(1 << 20), b""))
    os.unlink(outfile("check-server"))
    os.unlink(ours)
    if (s_hash, s_len) != (o_hash, o_len):
        sys.exit(f"rows --format tsv ({o_len} bytes) differs from the server's dump ({s_len} bytes)")
    recs = subprocess.run(
        f"{a.ibdscope} records --index PRIMARY {a.ibd} | grep -c ' leaf_chain '",
        shell=True, capture_output=True, text=True, check=False).stdout.strip()
    if recs != str(n_rows):
        sys.exit(f"records lists {recs} leaf-chain records, the server dumped {n_rows} rows")
    log(f"identical: {s_len} bytes, {n_rows} rows; records lists {recs}")

    cases = [Case("cat", lambda: timed(["cat", a.ibd]))]
    for t in threads:
        cases.append(Case(f"rows --format tsv -t{t}", lambda t=t: timed(
            [a.ibdscope, "--threads", str(t), "rows", "--format", "tsv", a.ibd],
            outfile("ours"))))
    for t in threads:
        cases.append(Case(f"records -t{t}", lambda t=t: timed(
            [a.ibdscope, "--threads", str(t), "records", "--index", "PRIMARY", a.ibd],
            outfile("ours"))))
    if a.before:
        cases.append(Case("before: rows --format tsv -t1", lambda: timed(
            [a.before, "--threads", "1", "rows", "--format", "tsv", a.ibd], outfile("ours"))))
        cases.append(Case("before: records -t1", lambda: timed(
            [a.before, "--threads", "1", "records", "--index", "PRIMARY", a.ibd],
            outfile("ours"))))
    cases.append(Case("server SELECT … INTO OUTFILE", lambda: server_dump(outfile("server"))))
    for c in cases:  # warm every tool once
        c.run()
    for r in range(a.rounds):
        log(f"round {r + 1}/{a.rounds} (load {loadavg()})")
        for c in cases:
            w, cpu = c.run()
            c.wall.append(w)
            c.cpu.append(cpu)
    load_after = loadavg()

    by = {c.name: c for c in cases}
    server = by["server SELECT … INTO OUTFILE"]
    cat = by["cat"]

    def ratio(x, y, key="wall"):
        xs, ys = getattr(x, key), getattr(y, key)
        return statistics.median(p / q for p, q in zip(xs, ys) if q > 0)

    mib = size / (1 << 20)
    lines = [f"# rows and records beside the server's own dump ({time.strftime('%Y-%m-%d')})", ""]
    lines += [f"- {n}" for n in a.note]
    lines += [
        f"- input: `{os.path.basename(a.ibd)}`, {size:,} bytes ({mib:,.0f} MiB), {n_rows:,} rows; "
        f"the server's dump and `rows --format tsv` identical ({s_len:,} bytes)",
        f"- {a.rounds} rounds, interleaved; load average {load_before} before, {load_after} after "
        f"({os.cpu_count()} CPUs)",
        "- wall: median seconds; CPU: user + system seconds of the tool's process (the server's: "
        "mariadbd's, while it dumped); ratios: medians of the same-round ratios",
        "",
        "| case | wall s | CPU s | MiB/s | × cat | × server dump | CPU × server's |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c in cases:
        w = statistics.median(c.wall)
        lines.append(
            f"| {c.name} | {w:.2f} | {statistics.median(c.cpu):.2f} | {mib / w:,.0f} | "
            f"{ratio(c, cat):.2f} | {ratio(c, server):.2f} | {ratio(c, server, 'cpu'):.2f} |")
    lines += ["", "| target | measured | met |", "|---|---:|---|"]
    best = min((by[f"rows --format tsv -t{t}"] for t in threads), key=lambda c: statistics.median(c.wall))
    for t in threads:
        rc = by[f"rows --format tsv -t{t}"]
        v = ratio(rc, server)
        lines.append(f"| rows --format tsv -t{t} ≤ 0.5 × server dump | {v:.2f} | {'yes' if v <= 0.5 else 'no'} |")
        v = ratio(rc, cat)
        lines.append(f"| rows --format tsv -t{t} ≤ 6 × cat | {v:.2f} | {'yes' if v <= 6 else 'no'} |")
        v = ratio(by[f"records -t{t}"], rc)
        lines.append(f"| records -t{t} ≤ rows -t{t} | {v:.2f} | {'yes' if v <= 1 else 'no'} |")
    lines.append("")
    lines.append(f"Fastest rows case: `{best.name}`.")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
