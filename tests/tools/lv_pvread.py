#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""lv_pvread.py - read an LV's bytes directly from its PVs (not through the LV).

  lv_pvread.py SEGS.json PVS.json VGS.json OFFSET LENGTH OUT
      write the bytes [OFFSET, OFFSET+LENGTH) of the LV (multiples of 512) to OUT,
      each sector read with O_DIRECT from the PV where LVM2's report places it.
      SEGS.json: `lvs --segments -o lv_name,seg_start,seg_size,stripes,stripe_size,
      seg_pe_ranges --units s --nosuffix --reportformat json VG/LV`; PVS.json:
      `pvs -o pv_name,pe_start --units s --nosuffix --reportformat json`; VGS.json:
      `vgs -o vg_extent_size --units s --nosuffix --reportformat json VG`.
      Prints one line per PV read: "DEV SECTOR COUNT".
The arithmetic is the format's (as tests/tools/lv_placement.py: linear pe_start +
pe * extent_size + offset; striped chunk c to stripe c % k, row c // k), computed
here independently of lvx, so a test can check what the PVs hold after faults.
"""
import json
import mmap
import os
import sys

SECTOR = 512
MAX_RUN = (1 << 20) // SECTOR


def rows(path, key):
    with open(path) as f:
        return json.load(f)["report"][0][key]


def read_direct(path, offset, length):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, max(length, mmap.PAGESIZE))
    got = os.preadv(fd, [memoryview(buf)[:length]], offset)
    os.close(fd)
    if got != length:
        raise OSError("short read of %s at %d" % (path, offset))
    return bytes(buf[:length])


def segments(segs_json):
    out = []
    for seg in rows(segs_json, "seg"):
        start, size, k = int(seg["seg_start"]), int(seg["seg_size"]), int(seg["stripes"])
        ss = int(seg["stripe_size"]) if k > 1 else size
        areas = []
        for r in seg["seg_pe_ranges"].split():
            dev, rng = r.rsplit(":", 1)
            areas.append((dev, int(rng.split("-")[0])))
        out.append((start, size, k, ss, areas))
    return out


def locate(segs, pe_start, ext, sector):
    """(dev, pv_sector, sectors that follow contiguously) of LV sector."""
    for start, size, k, ss, areas in segs:
        if start <= sector < start + size:
            o = sector - start
            chunk, within = divmod(o, ss)
            dev, pe = areas[chunk % k]
            run = min(ss - within, size - o)
            return dev, pe_start[dev] + pe * ext + (chunk // k) * ss + within, run
    raise ValueError("LV sector %d is beyond the LV" % sector)


def main():
    if len(sys.argv) != 7:
        print(__doc__, file=sys.stderr)
        return 2
    segs_json, pvs_json, vgs_json, off, length, out = sys.argv[1:]
    off, length = int(off), int(length)
    if off % SECTOR or length % SECTOR:
        print("OFFSET and LENGTH must be multiples of 512", file=sys.stderr)
        return 2
    ext = int(rows(vgs_json, "vg")[0]["vg_extent_size"])
    pe_start = {p["pv_name"]: int(p["pe_start"]) for p in rows(pvs_json, "pv")}
    segs = segments(segs_json)
    sector, end = off // SECTOR, (off + length) // SECTOR
    with open(out, "wb") as f:
        while sector < end:
            dev, pv_sector, run = locate(segs, pe_start, ext, sector)
            run = min(run, end - sector, MAX_RUN)
            f.write(read_direct(dev, pv_sector * SECTOR, run * SECTOR))
            print("%s %d %d" % (dev, pv_sector, run))
            sector += run
    return 0


if __name__ == "__main__":
    sys.exit(main())
