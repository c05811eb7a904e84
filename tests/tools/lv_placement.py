#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""lv_placement.py - where the bytes of an active LV land on its PVs.

  lv_placement.py write DEV TAG BYTES
      fill DEV (an active LV) with a pattern: every 512-byte sector holds
      "TAG:<sector>:" repeated, written with O_DIRECT, then fsync.
  lv_placement.py check TAG SEGS.json PVS.json VGS.json
      read the PVs (O_DIRECT) where LVM2's own report says each LV sector lives
      and compare with the pattern.  SEGS.json: `lvs --segments -o lv_name,
      seg_start,seg_size,stripes,stripe_size,seg_pe_ranges --units s --nosuffix
      --reportformat json LV`; PVS.json: `pvs -o pv_name,pe_start ...`; VGS.json:
      `vgs -o vg_extent_size ...`.  Prints one line per segment, exits 1 on a
      mismatch.
The arithmetic is the format's (linear: pe_start + pe * extent_size + offset;
striped: chunk c of the segment goes to stripe c % k, row c // k), computed here
independently of lvx.
"""
import json
import mmap
import os
import sys

SECTOR = 512
CHUNK_IO = 1 << 20


def pattern(tag, first_sector, count):
    out = bytearray()
    for s in range(first_sector, first_sector + count):
        unit = ("%s:%d:" % (tag, s)).encode()
        out += (unit * (SECTOR // len(unit) + 1))[:SECTOR]
    return bytes(out)


def write(dev, tag, size):
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, CHUNK_IO)
    off = 0
    while off < size:
        n = min(CHUNK_IO, size - off)
        buf.seek(0)
        buf.write(pattern(tag, off // SECTOR, n // SECTOR))
        os.pwritev(fd, [memoryview(buf)[:n]], off)
        off += n
    os.fsync(fd)
    os.close(fd)


def read_direct(path, offset, length):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, max(length, mmap.PAGESIZE))
    got = os.preadv(fd, [memoryview(buf)[:length]], offset)
    os.close(fd)
    return bytes(buf[:got])


def report_rows(path, key):
    with open(path) as f:
        return json.load(f)["report"][0][key]


def check(tag, segs_json, pvs_json, vgs_json):
    ext = int(report_rows(vgs_json, "vg")[0]["vg_extent_size"])
    pe_start = {p["pv_name"]: int(p["pe_start"]) for p in report_rows(pvs_json, "pv")}
    bad = 0
    for seg in report_rows(segs_json, "seg"):
        start, size = int(seg["seg_start"]), int(seg["seg_size"])
        k = int(seg["stripes"])
        ss = int(seg["stripe_size"]) if k > 1 else size
        areas = []
        for r in seg["seg_pe_ranges"].split():
            dev, rng = r.rsplit(":", 1)
            areas.append((dev, int(rng.split("-")[0])))
        o, checked = 0, 0
        while o < size:
            chunk, within = divmod(o, ss)
            stripe, row = chunk % k, chunk // k
            run = min(ss - within, size - o, CHUNK_IO // SECTOR)
            dev, pe = areas[stripe]
            pv_sector = pe_start[dev] + pe * ext + row * ss + within
            got = read_direct(dev, pv_sector * SECTOR, run * SECTOR)
            if got != pattern(tag, start + o, run):
                bad += 1
                if bad <= 3:
                    print("mismatch: LV sector %d expected on %s sector %d" % (start + o, dev,
                                                                               pv_sector))
            o += run
            checked += 1
        print("segment at sector %d: %d sectors, %d stripe(s) of %d sectors: %d runs checked"
              % (start, size, k, ss, checked))
    return 1 if bad else 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return 0
    if len(sys.argv) == 6 and sys.argv[1] == "check":
        return check(*sys.argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
