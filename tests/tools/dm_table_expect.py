#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""dm_table_expect.py SEGS PVS EXTENT_SIZE DEVNUMS LV: print the device-mapper table
LV should get (lvm2-format.md §15), built only from LVM2's own reports:
  SEGS: `lvs --segments --noheadings --separator : --units s --nosuffix
         -o lv_name,seg_start,seg_size,stripes,stripe_size,seg_pe_ranges`
  PVS:  `pvs --noheadings --separator : --units s --nosuffix -o pv_name,pe_start`
  EXTENT_SIZE: the VG's extent size in sectors
  DEVNUMS: lines "DEVICE MAJ:MIN" (from stat)"""
import sys


def main():
    segs_file, pvs_file, extent, devnums_file, lv = sys.argv[1:6]
    e = int(extent)
    pe_start = {}
    for line in open(pvs_file):
        if line.strip():
            name, start = line.strip().split(":")
            pe_start[name] = int(start)
    devnum = dict(l.split() for l in open(devnums_file) if l.strip())
    rows = []
    for line in open(segs_file):
        f = line.strip().split(":", 5)
        if len(f) < 6 or f[0] != lv:
            continue
        name, start, size, stripes, stripe_size, ranges = f
        rows.append((int(start), int(size), int(stripes), int(stripe_size), ranges))
    for start, size, stripes, stripe_size, ranges in sorted(rows):
        areas = []
        # ranges: "/dev/loop1:0-9 /dev/loop2:0-9" (spaces, the separator is ':')
        for r in ranges.split():
            dev, span = r.rsplit(":", 1)
            first = int(span.split("-")[0])
            areas.append(f"{devnum[dev]} {pe_start[dev] + first * e}")
        if stripes == 1:
            print(f"{start} {size} linear {areas[0]}")
        else:
            print(f"{start} {size} striped {stripes} {stripe_size} " + " ".join(areas))


if __name__ == "__main__":
    main()
