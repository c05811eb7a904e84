#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench/scale.py - helpers of bench/scale (stdlib only, matplotlib for the chart).

  scale.py regex LO HI          an LVM2-regex alternation matching exactly the numbers
                                LO..HI (LVM2's regex engine has no {n} repetition)
  scale.py wipe DEV...          zero the first 64 KiB of each device (threads)
  scale.py rmloops DEV...       delete the (detached) loop devices DEV... (LOOP_CTL_REMOVE)
  scale.py addlvs IN OUT COUNT  add COUNT one-extent linear LVs to the VG backup file IN
                                (spread over its PVs, from extent 0 up), write OUT
  scale.py table TSV            median per (N, op, tool) and lvx/LVM2 ratios as a table
  scale.py chart TSV PNG        time against N, log-log, one panel per operation
  scale.py phases TSV OP TOOL   phase times of OP by TOOL (lvx, lvx0), median per phase
The TSV has one line per timed command: N, op, tool, run, seconds, exit status.  N is
a number or "Nx2", the many-devices case (the chart leaves it out).
"""
import os
import re
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor

OPS = ["pvcreate", "vgcreate", "vgextend", "vgreduce", "pvremove", "lvcreate", "lvcreate-i16",
       "lvextend", "lvremove", "vgs", "pvs", "lvs", "lvs-1000LV", "lvcreate-1001", "vgcreate-new"]
TOOLS = ["lvx", "lvx0", "lvm2"]     # lvx0: a second lvx (bench/scale LVX_BEFORE)


# ---- regex -------------------------------------------------------------------------

def _cls(a, b):
    return a if a == b else "[%s-%s]" % (a, b)


def _range_same_len(a, b):
    """Patterns matching the digit strings a..b (same length, a <= b)."""
    if not a:
        return [""]
    if a[0] == b[0]:
        return [a[0] + p for p in _range_same_len(a[1:], b[1:])]
    n = len(a) - 1
    out, tail = [], []
    lo_digit, hi_digit = a[0], b[0]
    if a[1:] != "0" * n:
        out += [a[0] + p for p in _range_same_len(a[1:], "9" * n)]
        lo_digit = chr(ord(a[0]) + 1)
    if b[1:] != "9" * n:
        tail = [b[0] + p for p in _range_same_len("0" * n, b[1:])]
        hi_digit = chr(ord(b[0]) - 1)
    if lo_digit <= hi_digit:
        out.append(_cls(lo_digit, hi_digit) + "[0-9]" * n)
    return out + tail


def range_regex(lo, hi):
    parts = []
    while lo <= hi:
        top = 10 ** len(str(lo)) - 1          # largest number with lo's digit count
        end = min(hi, top)
        parts += _range_same_len(str(lo), str(end))
        lo = end + 1
    return "(" + "|".join(parts) + ")"


def _self_test_regex():
    for lo, hi in [(0, 0), (7, 13), (7000, 8000), (99, 1234), (5000, 5010), (10, 999)]:
        rx = re.compile("^" + range_regex(lo, hi) + "$")
        for v in range(max(0, lo - 50), hi + 50):
            assert bool(rx.match(str(v))) == (lo <= v <= hi), (lo, hi, v)


# ---- wipe -----------------------------------------------------------------------------

def wipe(devs):
    zero = bytes(65536)

    def one(path):
        fd = os.open(path, os.O_WRONLY)
        try:
            os.pwrite(fd, zero, 0)
        finally:
            os.close(fd)
    with ThreadPoolExecutor(16) as ex:
        list(ex.map(one, devs))


# ---- removing the loop devices the bench created -----------------------------------------

def remove_loops(devs):
    """Delete unattached /dev/loopN devices (LOOP_CTL_REMOVE), so that a thousand empty
    loop devices do not stay behind for every later scan of /dev."""
    import fcntl
    fd = os.open("/dev/loop-control", os.O_RDWR)
    try:
        for d in devs:
            n = int(d.rsplit("loop", 1)[1])
            if os.path.exists("/sys/block/loop%d/loop/backing_file" % n):
                continue                    # attached again by someone else: leave it
            try:
                fcntl.ioctl(fd, 0x4C81, n)  # LOOP_CTL_REMOVE
            except OSError:
                pass
    finally:
        os.close(fd)


# ---- one-extent LVs in a backup file --------------------------------------------------

def _new_uuid():
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    chars = "".join(alphabet[b % 62] for b in os.urandom(32))
    cut = [6, 4, 4, 4, 4, 4, 6]
    out, pos = [], 0
    for c in cut:
        out.append(chars[pos:pos + c])
        pos += c
    return "-".join(out)


def addlvs(src, dst, count):
    text = open(src).read()
    if "logical_volumes" in text:
        sys.exit("scale.py addlvs: %s already has logical volumes" % src)
    pvs = re.findall(r"^\s*(pv\d+) \{", text, re.M)
    pe = {m[0]: int(m[1]) for m in re.findall(r"^\s*(pv\d+) \{[^}]*?pe_count = (\d+)", text, re.M | re.S)}
    if not pvs:
        sys.exit("scale.py addlvs: no PVs in %s" % src)
    lines = ["\n\tlogical_volumes {\n"]
    for i in range(count):
        pv = pvs[i % len(pvs)]
        ext = i // len(pvs)
        if ext >= pe.get(pv, 0):
            sys.exit("scale.py addlvs: not enough extents for %d LVs" % count)
        lines.append(
            "\n\t\tlv%d {\n\t\t\tid = \"%s\"\n\t\t\tstatus = [\"READ\", \"WRITE\", \"VISIBLE\"]\n"
            "\t\t\tflags = []\n\t\t\tcreation_time = 1700000000\n\t\t\tcreation_host = \"bench\"\n"
            "\t\t\tsegment_count = 1\n\n\t\t\tsegment1 {\n\t\t\t\tstart_extent = 0\n"
            "\t\t\t\textent_count = 1\n\n\t\t\t\ttype = \"striped\"\n\t\t\t\tstripe_count = 1\n\n"
            "\t\t\t\tstripes = [\n\t\t\t\t\t\"%s\", %d\n\t\t\t\t]\n\t\t\t}\n\t\t}\n"
            % (i + 1, _new_uuid(), pv, ext))
    lines.append("\t}\n")
    # the VG section is closed by the last line holding only "}"
    idx = text.rstrip().rfind("\n}")
    if idx < 0:
        sys.exit("scale.py addlvs: cannot find the end of the VG section")
    out = text[:idx + 1] + "".join(lines) + text[idx + 1:]
    open(dst, "w").write(out)


# ---- table and chart -------------------------------------------------------------------

def load(tsv):
    data = {}
    failed = set()
    for line in open(tsv):
        f = line.split()
        if len(f) < 6 or f[0] == "N":
            continue
        n, op, tool, _run, secs, status = f[0], f[1], f[2], f[3], float(f[4]), int(f[5])
        data.setdefault((n, op, tool), []).append(secs)
        if status != 0:
            failed.add((n, op, tool))
    med = {k: statistics.median(v) for k, v in data.items()}
    return med, failed, sorted({k[0] for k in data}, key=n_key)


def n_key(label):
    """Sort key of an N label: 10 < 100 < 1000 < 1000x2."""
    return (int(label[:-2]) if label.endswith("x2") else int(label), label)


def fmt_ms(v, bad):
    if v is None:
        return "-"
    s = "%.1f" % (v * 1000) if v < 10 else "%.0f" % (v * 1000)
    return s + ("!" if bad else "")


def table(tsv):
    med, failed, ns = load(tsv)
    before = any(k[2] == "lvx0" for k in med)
    head = ["operation"]
    for n in ns:
        head += ["lvx N=%s" % n] + (["lvx0 N=%s" % n] if before else []) + \
                ["LVM2 N=%s" % n, "LVM2/lvx"] + (["LVM2/lvx0"] if before else [])
    rows = [head]
    for op in OPS:
        row = [op]
        for n in ns:
            a, z, b = med.get((n, op, "lvx")), med.get((n, op, "lvx0")), med.get((n, op, "lvm2"))
            row += [fmt_ms(a, (n, op, "lvx") in failed)]
            if before:
                row += [fmt_ms(z, (n, op, "lvx0") in failed)]
            row += [fmt_ms(b, (n, op, "lvm2") in failed), "%.1fx" % (b / a) if a and b else "-"]
            if before:
                row += ["%.1fx" % (b / z) if z and b else "-"]
        rows.append(row)
    if len(ns) > 1:
        rows.append([])
        lo, hi = ns[0], ns[-1]
        row = ["lvx N=%s / N=%s" % (hi, lo)]
        for op in OPS:
            a, b = med.get((lo, op, "lvx")), med.get((hi, op, "lvx"))
            row.append("%s %.2f" % (op, b / a) if a and b else "%s -" % op)
        rows.append(row)
    widths = {}
    for r in rows[:len(OPS) + 1]:
        for i, c in enumerate(r):
            widths[i] = max(widths.get(i, 0), len(c))
    print("times in milliseconds (median of the runs); '!' = the command failed in a run")
    for r in rows[:len(OPS) + 1]:
        print("  ".join(c.rjust(widths[i]) if i else c.ljust(widths[i]) for i, c in enumerate(r)))
    if len(ns) > 1:
        print()
        print("lvx time at N=%s divided by its time at N=%s:" % (ns[-1], ns[0]))
        print("  " + ", ".join(rows[-1][1:]))


def chart(tsv, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("scale.py chart: python3-matplotlib is not installed; no chart")
        return
    med, _failed, ns = load(tsv)
    ns = [n for n in ns if not n.endswith("x2")]
    med = {(int(k[0]), k[1], k[2]): v for k, v in med.items() if not k[0].endswith("x2")}
    ns = [int(n) for n in ns]
    cols = 4
    rows = (len(OPS) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows), squeeze=False)
    for i, op in enumerate(OPS):
        ax = axes[i // cols][i % cols]
        for tool, style in (("lvx", "o-"), ("lvm2", "s--")):
            xs = [n for n in ns if (n, op, tool) in med]
            ys = [med[(n, op, tool)] for n in xs]
            if xs:
                ax.plot(xs, ys, style, label="lvx" if tool == "lvx" else "LVM2")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(op)
        ax.set_xlabel("N (PVs)")
        ax.set_ylabel("seconds")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    for j in range(len(OPS), rows * cols):
        axes[j // cols][j % cols].axis("off")
    fig.suptitle("lvx and LVM2: time per command against the number of PVs (median)")
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    print("chart: %s" % png)


def phases(tsv, op, tool):
    """Median ms of each phase of TOOL's OP per N, phases in first-seen order."""
    data, order = {}, []
    for line in open(tsv):
        f = line.rstrip("\n").split("\t")
        if len(f) < 7 or f[0] == "N" or f[1] != op or f[6] != tool:
            continue
        n, name, ms = f[0], f[3], float(f[4])
        data.setdefault((n, name), []).append(ms)
        if name not in order:
            order.append(name)
    ns = sorted({k[0] for k in data}, key=n_key)
    if not ns:
        return
    print()
    print("%s %s: milliseconds per phase, median of the runs ('total': the whole command; "
          "'index.scan' holds the listing and reading of a narrowed scan; a phase with a count "
          "above 1 in phases.tsv ran several times, on helper threads they overlap)" % (tool, op))
    head = ["phase"] + ["N=%s" % n for n in ns]
    rows = [head]
    for name in order:
        rows.append([name] + ["%.2f" % statistics.median(data[(n, name)]) if (n, name) in data
                              else "-" for n in ns])
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    for r in rows:
        print("  ".join(c.rjust(widths[i]) if i else c.ljust(widths[i]) for i, c in enumerate(r)))


def main(argv):
    if len(argv) >= 4 and argv[1] == "regex":
        print(range_regex(int(argv[2]), int(argv[3])))
    elif len(argv) >= 3 and argv[1] == "wipe":
        wipe(argv[2:])
    elif len(argv) >= 3 and argv[1] == "rmloops":
        remove_loops(argv[2:])
    elif len(argv) == 5 and argv[1] == "addlvs":
        addlvs(argv[2], argv[3], int(argv[4]))
    elif len(argv) == 3 and argv[1] == "table":
        table(argv[2])
    elif len(argv) == 4 and argv[1] == "chart":
        chart(argv[2], argv[3])
    elif len(argv) == 5 and argv[1] == "phases":
        phases(argv[2], argv[3], argv[4])
    elif len(argv) == 2 and argv[1] == "selftest":
        _self_test_regex()
        print("ok")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
