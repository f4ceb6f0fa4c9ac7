#!/usr/bin/env python3
"""Before/after harness of benches/run-regress (standard library only).

Runs two ibdscope binaries (BEFORE, AFTER) on the same cases, interleaved:
every round runs every case at every --threads value once with each binary,
back to back (the order of the two swapped each round), so load from
elsewhere falls on both alike and the per-round ratio after/before is read
between runs seconds apart.  Each run's stdout (and a file a case writes) is
hashed as it streams; exit codes and hashes must match between the two.
Wall time from a monotonic clock, CPU (user + system) from the child's
rusage (os.wait4: the kernel's total is exact, its split into user and
system is sampled at the tick and swings a short run's user time by 2×),
peak RSS from /usr/bin/time.  The report is Markdown on stdout and --out.

    regress.py --before BIN --after BIN --cases CASES.tsv [--rounds 7]
               [--threads 1,2] [--note TEXT]... [--out FILE] [--diffs DIR]

CASES.tsv: one case a line, tab-separated: name, input label, then the
arguments after `ibdscope --threads N` (`{out}` is replaced by a scratch
path the case writes; that file's bytes are hashed with stdout).
"""

import argparse
import hashlib
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

TIMEOUT = 1800  # seconds: a run that takes longer is killed (never hang)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run_once(binary, threads, args, scratch, keep=None):
    """One run: (exit code, wall s, user s, sys s, peak RSS KiB, stdout sha256,
    stderr sha256, stdout bytes).  keep: a path stdout is also written to."""
    out_path = os.path.join(scratch, "written")
    if os.path.exists(out_path):
        os.remove(out_path)
    rss_path = os.path.join(scratch, "rss")
    # peak RSS through /usr/bin/time: a child of this process starts with
    # Python's high-water mark (Linux keeps it across exec), a child of time
    # with time's own (about 2 MiB)
    argv = ["/usr/bin/time", "-f", "%M", "-o", rss_path, binary, "--threads", str(threads)]
    argv += [a.replace("{out}", out_path) for a in args]
    h_out, h_err = hashlib.sha256(), hashlib.sha256()
    size = 0
    sink = open(keep, "wb") if keep else None
    err_file = tempfile.TemporaryFile(dir=scratch)
    start = time.monotonic()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err_file)
    timer = threading.Timer(TIMEOUT, lambda: os.kill(p.pid, signal.SIGKILL))
    timer.start()
    while True:
        chunk = p.stdout.read(1 << 20)
        if not chunk:
            break
        size += len(chunk)
        h_out.update(chunk)
        if sink:
            sink.write(chunk)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)
    p.stdout.close()
    if sink:
        sink.close()
    if os.path.exists(out_path):
        with open(out_path, "rb") as f:
            while True:
                chunk = f.read(1 << 20)
                if not chunk:
                    break
                h_out.update(chunk)
    with open(rss_path) as f:
        rss = int(f.read().split()[-1])
    err_file.seek(0)
    err = err_file.read()
    err_file.close()
    h_err.update(err)
    return {
        "rc": p.returncode,
        "wall": wall,
        "user": ru.ru_utime,
        "sys": ru.ru_stime,
        "rss": rss,
        "out": h_out.hexdigest(),
        "err": h_err.hexdigest(),
        "bytes": size,
        "stderr": err,
    }


def fmt_ratio(med, lo, hi):
    return f"{med:.2f} ({lo:.2f}–{hi:.2f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--before-label", default="before")
    ap.add_argument("--after-label", default="after")
    ap.add_argument("--cases", required=True)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--note", action="append", default=[])
    ap.add_argument("--out")
    ap.add_argument("--diffs", help="directory for the outputs of cases that differ")
    a = ap.parse_args()

    threads = [int(t) for t in a.threads.split(",")]
    cases = []
    with open(a.cases) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            name, label, *args = line.split("\t")
            cases.append((name, label, args))
    bins = {"before": a.before, "after": a.after}
    scratch = tempfile.mkdtemp(prefix="ibdregress.")
    load_start = loadavg()
    t_start = time.strftime("%H:%M:%S")
    results = {}  # (case index, threads) -> {"before": [runs], "after": [runs]}
    log = lambda m: print(f"[regress {time.strftime('%H:%M:%S')}] {m}", file=sys.stderr, flush=True)
    loads = []

    def report(done, final):
        """The report of the rounds done so far: to --out after every round
        (a run cut short keeps what it measured), to stdout at the end."""
        load_end = loadavg()
        t_end = time.strftime("%H:%M:%S")

        # Differences: exit code or stdout (with the case's written file) between
        # before and after, or between rounds of one binary (nondeterminism).
        diffs = []
        for (ci, t), slot in sorted(results.items()):
            name, label, args = cases[ci]
            b, f = slot["before"], slot["after"]
            rcs_b, rcs_a = {x["rc"] for x in b}, {x["rc"] for x in f}
            outs_b, outs_a = {x["out"] for x in b}, {x["out"] for x in f}
            errs_b, errs_a = {x["err"] for x in b}, {x["err"] for x in f}
            what = []
            if len(outs_b) > 1 or len(outs_a) > 1:
                what.append("output varies between rounds")
            if rcs_b != rcs_a:
                what.append(f"exit {sorted(rcs_b)} → {sorted(rcs_a)}")
            if outs_b != outs_a:
                what.append(f"stdout differs ({b[0]['bytes']} → {f[0]['bytes']} bytes)")
            if errs_b != errs_a:
                what.append("stderr differs")
            if what:
                diffs.append((name, label, t, args, what, b[0]["stderr"], f[0]["stderr"]))

        # Outputs of the cases that differ, kept for reading (once, threads 1).
        excerpts = {}
        if a.diffs and final:
            os.makedirs(a.diffs, exist_ok=True)
            seen = set()
            for name, label, t, args, what, _, _ in diffs:
                if name in seen:
                    continue
                seen.add(name)
                sdir = tempfile.mkdtemp(prefix="ibdregress.")
                paths = {}
                for which in ("before", "after"):
                    p = os.path.join(a.diffs, f"{name}.{which}")
                    run_once(bins[which], t, args, sdir, keep=p)
                    paths[which] = p
                shutil.rmtree(sdir, ignore_errors=True)
                d = subprocess.run(["diff", paths["before"], paths["after"]], capture_output=True)
                excerpts[name] = d.stdout.decode("utf-8", "replace").splitlines()[:12]

        lines = []
        w = lines.append
        w("## Before/after, per command\n")
        for n in a.note:
            w(f"- {n}")
        w(f"- {done} rounds{'' if final else f' of {a.rounds} (written after round {done}: the run had not finished)'}, interleaved: in each round every case runs at each `--threads` value "
          "with both binaries back to back (order swapped every round); the page cache warm")
        w(f"- load average (1, 5, 15 min): at start ({t_start}) {load_start}, at end ({t_end}) {load_end}; "
          f"at the start of each round: {'; '.join(loads)}")
        w("- ratio = after / before: of the medians, and in brackets the min–max of the per-round ratios "
          "(each round's after run over its before run); below 1 is faster after")
        w("")
        w("| command | input | threads | exit | wall before (s) | wall after (s) | wall ratio | "
          "CPU before (s) | CPU after (s) | CPU ratio | peak RSS before → after (MiB) | same output |")
        w("|---|---|---:|---:|---:|---:|---|---:|---:|---|---|---|")
        slower = []
        slight = []  # every round slower, median above 1.05, by under 5 ms
        for (ci, t), slot in sorted(results.items()):
            name, label, args = cases[ci]
            b, f = slot["before"], slot["after"]
            mw_b = statistics.median(x["wall"] for x in b)
            mw_a = statistics.median(x["wall"] for x in f)
            mu_b = statistics.median(x["user"] + x["sys"] for x in b)
            mu_a = statistics.median(x["user"] + x["sys"] for x in f)
            rw = [y["wall"] / x["wall"] for x, y in zip(b, f) if x["wall"] > 0]
            ru = [(y["user"] + y["sys"]) / (x["user"] + x["sys"]) for x, y in zip(b, f) if x["user"] + x["sys"] > 0]
            rss_b = max(x["rss"] for x in b) / 1024
            rss_a = max(x["rss"] for x in f) / 1024
            same = "yes" if not any(d[0] == name and d[2] == t for d in diffs) else "**no**"
            rc = sorted({x["rc"] for x in b} | {x["rc"] for x in f})
            wr = fmt_ratio(mw_a / mw_b, min(rw), max(rw)) if rw and mw_b > 0 else "–"
            ur = fmt_ratio(mu_a / mu_b, min(ru), max(ru)) if ru and mu_b > 0 else "–"
            w(f"| `{name}` | {label} | {t} | {','.join(map(str, rc))} | {mw_b:.3f} | {mw_a:.3f} | {wr} | "
              f"{mu_b:.3f} | {mu_a:.3f} | {ur} | {rss_b:.1f} → {rss_a:.1f} | {same} |")
            # slower beyond the noise: every round slower and the median more
            # than 5 %; by 5 ms or more, or (listed apart) by less
            for kind, rs, med_b, med_a in (("wall", rw, mw_b, mw_a), ("CPU", ru, mu_b, mu_a)):
                if rs and med_b > 0 and min(rs) > 1.0 and med_a / med_b > 1.05:
                    line = (f"`{name}` on {label}, threads {t}: {kind} {fmt_ratio(med_a / med_b, min(rs), max(rs))}, "
                            f"{(med_a - med_b) * 1000:+.1f} ms")
                    (slower if med_a - med_b > 0.005 else slight).append(line)
        w("")
        w("### Slower after, beyond the noise (every round slower and the median ratio above 1.05)\n")
        if slower:
            for s in slower:
                w(f"- {s}")
        else:
            w("- none")
        w("")
        w("### Slower after in every round, by less than 5 ms (median ratio above 1.05)\n")
        if slight:
            for s in slight:
                w(f"- {s}")
        else:
            w("- none")
        w("")
        w("### Outputs that differ\n")
        if not diffs:
            w("- none: every case exited with the same code and wrote the same bytes before and after, at every thread count")
        for name, label, t, args, what, err_b, err_a in diffs:
            w(f"- `{name}` on {label}, threads {t}: {'; '.join(what)}")
            if "stderr differs" in what:
                eb = err_b.decode("utf-8", "replace").strip().splitlines()[:3]
                ea = err_a.decode("utf-8", "replace").strip().splitlines()[:3]
                w(f"  - stderr before: `{' / '.join(eb)[:300]}`")
                w(f"  - stderr after: `{' / '.join(ea)[:300]}`")
        for name, ex in excerpts.items():
            w(f"\n`{name}`, `diff before after` (first lines):\n")
            w("```")
            lines.extend(l[:200] for l in ex)
            w("```")
        text = "\n".join(lines) + "\n"
        if final:
            sys.stdout.write(text)
        if a.out:
            with open(a.out, "w") as f:
                f.write(text)


    try:
        for r in range(a.rounds):
            order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
            loads.append(loadavg())
            log(f"round {r + 1}/{a.rounds} (load {loads[-1]})")
            for ci, (name, label, args) in enumerate(cases):
                for t in threads:
                    slot = results.setdefault((ci, t), {"before": [], "after": []})
                    for which in order:
                        slot[which].append(run_once(bins[which], t, args, scratch))
            if r + 1 < a.rounds:
                report(r + 1, False)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report(a.rounds, True)


if __name__ == "__main__":
    main()
