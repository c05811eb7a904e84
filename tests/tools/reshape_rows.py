#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/reshape_rows.py - the rows of a raid5_ls LV caught in the middle of a
# same-count reshape, as md leaves them (docs/reshape-user.md §2.1): LV sectors below
# POS laid out in geometry B (chunk CB, at offset OB of each image), the rest in A
# (chunk CA, at OA); parity = XOR of the stripe's data.  Written by hand from md's
# placement (docs/dm-formats.md §5.2), independent of lvx's code.
#   reshape_rows.py plant  DATA POS CA OA CB OB IMG...   B's rows of LV [0, POS) written
#                                                      into the images (A's left as they are)
#   reshape_rows.py verify DATA POS CA OA CB OB IMG...   every chunk of DATA where its side
#                                                      puts it, every parity right; exit 1
#                                                      naming the first difference
# Sizes in sectors; IMG files are whole rimages.
import sys

S = 512


def ls_place(n, stripe, k):
    """raid5 left-symmetric: (parity leg, leg of data index k)."""
    p = n - 1 - stripe % n
    return p, (p + 1 + k) % n


def rows(data, lo, hi, chunk, off, n, imgs, write):
    d = n - 1
    sw = chunk * d
    bad = None
    for st in range(lo // sw, (hi + sw - 1) // sw):
        par = bytearray(chunk * S)
        for k in range(d):
            s0 = (st * sw + k * chunk) * S
            c = data[s0:s0 + chunk * S]
            for i in range(len(c)):
                par[i] ^= c[i]
            p, leg = ls_place(n, st, k)
            at = (off + st * chunk) * S
            if write:
                imgs[leg][at:at + chunk * S] = c
            elif imgs[leg][at:at + chunk * S] != c and bad is None:
                bad = "stripe %d data %d (leg %d at %d)" % (st, k, leg, at // S)
        p, _ = ls_place(n, st, 0)
        at = (off + st * chunk) * S
        if write:
            imgs[p][at:at + chunk * S] = par
        elif imgs[p][at:at + chunk * S] != par and bad is None:
            bad = "stripe %d parity (leg %d at %d)" % (st, p, at // S)
    return bad


def main():
    mode, dataf, pos, ca, oa, cb, ob = sys.argv[1:8]
    pos, ca, oa, cb, ob = (int(x) for x in (pos, ca, oa, cb, ob))
    paths = sys.argv[8:]
    data = open(dataf, "rb").read()
    imgs = [bytearray(open(p, "rb").read()) for p in paths]
    n = len(imgs)
    end = len(data) // S
    if mode == "plant":
        rows(data, 0, pos, cb, ob, n, imgs, True)
        for p, b in zip(paths, imgs):
            open(p, "wb").write(bytes(b))
        return 0
    bad = rows(data, 0, pos, cb, ob, n, imgs, False) or rows(data, pos, end, ca, oa, n, imgs, False)
    if bad:
        print("differs: " + bad)
        return 1
    return 0


sys.exit(main())
