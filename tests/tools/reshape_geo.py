#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/reshape_geo.py - reshape_rows.py for any raid4/5/6 layout and leg count:
# a range of an LV's sectors laid out in one geometry (md's placement and P/Q, from
# tests/tools/parity_check.py, docs/dm-formats.md §5.2), written into or checked on
# whole-rimage files.  A reshape caught mid-way is two calls: one side of the position
# in A (its chunk, data offset and legs), the other in B.  Independent of lvx's code.
#   reshape_geo.py plant  DATA LO HI LAYOUT CHUNK OFF IMG...   LV sectors [LO, HI) of
#                         DATA (whole stripes) with their P (and Q) written into the
#                         images (one per leg of the geometry), the rest left as it is
#   reshape_geo.py verify DATA LO HI LAYOUT CHUNK OFF IMG...   the same checked; exit 1
#                         naming the first difference
# LAYOUT as parity_check.py (raid5_ls, raid6_zr, ...); sizes in sectors.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parity_check import gmul, place  # noqa: E402

S = 512
MUL = {}


def qmul(chunk, leg):
    g = 1
    for _ in range(leg):
        g = gmul(g, 2)
    if g not in MUL:
        MUL[g] = bytes(gmul(v, g) for v in range(256))
    return chunk.translate(MUL[g])


def xor(a, b):
    return (int.from_bytes(a, "little") ^ int.from_bytes(b, "little")).to_bytes(len(a), "little")


def rows(data, lo, hi, layout, chunk, off, imgs, write):
    n = len(imgs)
    six = layout.startswith("raid6")
    d = n - (2 if six else 1)
    ddf = layout in ("raid6_zr", "raid6_nr", "raid6_nc")
    sw = chunk * d
    cb = chunk * S
    if lo % sw or hi % sw:
        return "range [%d, %d) not on %d-sector stripes" % (lo, hi, sw)
    for st in range(lo // sw, hi // sw):
        par = bytes(cb)
        q = bytes(cb)
        at = (off + st * chunk) * S
        for k in range(d):
            p, qi, leg = place(layout, n, st, k)
            s0 = (st * d + k) * cb
            c = data[s0:s0 + cb]
            par = xor(par, c)
            if six:
                q = xor(q, qmul(c, leg if ddf else leg - (leg > p) - (leg > qi)))
            if write:
                imgs[leg][at:at + cb] = c
            elif imgs[leg][at:at + cb] != c:
                return "stripe %d data %d (leg %d at %d)" % (st, k, leg, at // S)
        for name, leg, v in (("P", p, par), ("Q", qi, q)):
            if leg is None:
                continue
            if write:
                imgs[leg][at:at + cb] = v
            elif imgs[leg][at:at + cb] != v:
                return "stripe %d %s (leg %d at %d)" % (st, name, leg, at // S)
    return None


def main():
    mode, dataf, lo, hi, layout, chunk, off = sys.argv[1:8]
    lo, hi, chunk, off = (int(x) for x in (lo, hi, chunk, off))
    paths = sys.argv[8:]
    data = open(dataf, "rb").read()
    imgs = [bytearray(open(p, "rb").read()) for p in paths]
    bad = rows(data, lo, hi, layout, chunk, off, imgs, mode == "plant")
    if bad:
        print("differs: " + bad if mode == "verify" else bad)
        return 1
    if mode == "plant":
        for p, b in zip(paths, imgs):
            open(p, "wb").write(bytes(b))
    return 0


sys.exit(main())
