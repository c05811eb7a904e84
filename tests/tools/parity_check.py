#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""parity_check.py - where md's raid4/5 layouts put data and parity, checked on images.

  parity_check.py LAYOUT CHUNK_BYTES DATA IMG0 IMG1 ...
      LAYOUT: raid5_ls|raid5_la|raid5_rs|raid5_ra|raid5_n|raid4|raid6_zr|raid6_nr|raid6_nc|raid6_n_6|raid6_ls_6|raid6_la_6|raid6_rs_6|raid6_ra_6.  DATA: the LV's
      bytes; IMGi: rimage i's bytes (read from the PVs).  Checks each data chunk is on
      the rimage and row the layout puts it, and the parity chunk of every stripe is
      the XOR of its data chunks.  Prints "data_bad N parity_bad M stripes S"; exit 1
      on any mismatch.
The layout arithmetic follows docs/dm-formats.md §5.2 (md's raid5_compute_sector),
written here independently of lvx's daemon.
"""
import sys


def place6(layout, n, stripe, k):
    if layout == "raid6_nc":                # Q just before P, data from P + 1 on
        p = n - 1 - stripe % n
        return p, (p + n - 1) % n, (p + 1 + k) % n
    if layout == "raid6_n_6":               # P and Q on the last two legs
        return n - 2, n - 1, k
    if layout.endswith("_6"):               # raid5's layout on legs 0..n-2, Q last
        p, _, dd = place("raid5_" + layout[6:8], n - 1, stripe, k)
        return p, n - 1, dd
    if layout == "raid6_zr":
        p = stripe % n
    else:                                   # raid6_nr
        p = n - 1 - (stripe + 1) % n
    q = 0 if p == n - 1 else p + 1
    if p == n - 1:
        dd = k + 1
    elif k >= p:
        dd = k + 2
    else:
        dd = k
    return p, q, dd


def gmul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= 0x11D
        b >>= 1
    return r


def place(layout, n, stripe, k):
    if layout.startswith("raid6"):
        return place6(layout, n, stripe, k)
    d = n - 1
    if layout in ("raid5_la", "raid5_ls"):
        p = d - stripe % n
    elif layout in ("raid5_ra", "raid5_rs"):
        p = stripe % n
    elif layout == "raid4":
        p = 0
    else:                                   # raid5_n
        p = d
    if layout in ("raid5_la", "raid5_ra"):
        dd = k + 1 if k >= p else k
    elif layout in ("raid5_ls", "raid5_rs"):
        dd = (p + 1 + k) % n
    elif layout == "raid4":
        dd = k + 1
    else:
        dd = k
    return p, None, dd


def main():
    layout, chunk = sys.argv[1], int(sys.argv[2])
    data = open(sys.argv[3], "rb").read()
    imgs = [open(p, "rb").read() for p in sys.argv[4:]]
    n = len(imgs)
    d = n - (2 if layout.startswith("raid6") else 1)
    stripes = len(data) // (chunk * d)
    data_bad = parity_bad = 0
    mul = {}
    for s in range(stripes):
        acc = bytearray(chunk)
        qacc = bytearray(chunk) if d == n - 2 else None
        p = q = None
        for k in range(d):
            p, q, dd = place(layout, n, s, k)
            want = data[(s * d + k) * chunk:(s * d + k + 1) * chunk]
            if imgs[dd][s * chunk:(s + 1) * chunk] != want:
                data_bad += 1
            x = int.from_bytes(acc, "little") ^ int.from_bytes(want, "little")
            acc = bytearray(x.to_bytes(chunk, "little"))
            if qacc is not None:
                # md numbers the legs for Q: every leg in its DDF layouts (zr, nr,
                # nc), the data legs only (in leg order) in the others
                ddf = layout in ("raid6_zr", "raid6_nr", "raid6_nc")
                j = dd if ddf else dd - (dd > p) - (dd > q)
                g = 1
                for _ in range(j):
                    g = gmul(g, 2)
                if g not in mul:
                    mul[g] = bytes(gmul(v, g) for v in range(256))
                t = bytes(want).translate(mul[g])
                x = int.from_bytes(qacc, "little") ^ int.from_bytes(t, "little")
                qacc = bytearray(x.to_bytes(chunk, "little"))
        if imgs[p][s * chunk:(s + 1) * chunk] != bytes(acc):
            parity_bad += 1
        if qacc is not None and imgs[q][s * chunk:(s + 1) * chunk] != bytes(qacc):
            parity_bad += 1
    print("data_bad", data_bad, "parity_bad", parity_bad, "stripes", stripes)
    return 1 if data_bad or parity_bad or not stripes else 0


if __name__ == "__main__":
    sys.exit(main())
