#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/ack_writes.py - concurrent 4 KiB random writes with a log of the
# acknowledged ones, then a check that the device holds every one of them (for tests
# that kill a daemon mid-write):
#   ack_writes.py write DEV BYTES THREADS LOG SEED [SLOW_AFTER]
#       THREADS threads write each 4 KiB block of the first BYTES of DEV once, in a
#       random order (O_DIRECT), block i holding a pattern of (SEED, i); each write that
#       returned (acknowledged) is appended to LOG (its block number) at once; a thread
#       stops at its first failed write.  Prints "issued=N acked=N failed=N".
#       With SLOW_AFTER (optional), once that many writes are acknowledged each thread
#       waits 50 ms before each further write: a test that kills the daemon after
#       seeing that count then still finds writes left, however late it looks.
#   ack_writes.py check DEV LOG SEED
#       every block in LOG holds its pattern.  Prints "checked=N bad=N"; exit 1 when
#       one does not.
import hashlib
import mmap
import os
import random
import sys
import threading
import time

BS = 4096


def pattern(seed, i):
    h = hashlib.sha256(b"%s:%d" % (seed.encode(), i)).digest()
    return (h * (BS // len(h)))[:BS]


def write(dev, nbytes, nthreads, log, seed, slow_after=None):
    blocks = list(range(nbytes // BS))
    random.Random(seed).shuffle(blocks)
    lock = threading.Lock()
    state = {"next": 0, "issued": 0, "acked": 0, "failed": 0}
    logf = open(log, "w", buffering=1)

    def run():
        fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, BS)
        try:
            while True:
                if slow_after is not None and state["acked"] >= slow_after:
                    time.sleep(0.05)
                with lock:
                    if state["next"] >= len(blocks):
                        return
                    i = blocks[state["next"]]
                    state["next"] += 1
                    state["issued"] += 1
                buf.seek(0)
                buf.write(pattern(seed, i))
                try:
                    os.pwrite(fd, buf, i * BS)
                except OSError:
                    with lock:
                        state["failed"] += 1
                    return
                with lock:
                    state["acked"] += 1
                    logf.write("%d\n" % i)
        finally:
            os.close(fd)

    threads = [threading.Thread(target=run) for _ in range(nthreads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    logf.close()
    print("issued=%d acked=%d failed=%d" % (state["issued"], state["acked"], state["failed"]))


def check(dev, log, seed):
    bad = n = 0
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, BS)
    with open(log) as f:
        for line in f:
            i = int(line)
            got = os.preadv(fd, [buf], i * BS)
            n += 1
            if got != BS or buf[:BS] != pattern(seed, i):
                bad += 1
    os.close(fd)
    print("checked=%d bad=%d" % (n, bad))
    return 1 if bad or n == 0 else 0


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) in (6, 7) and a[0] == "write":
        write(a[1], int(a[2]), int(a[3]), a[4], a[5], int(a[6]) if len(a) == 7 else None)
    elif len(a) == 4 and a[0] == "check":
        sys.exit(check(a[1], a[2], a[3]))
    else:
        sys.exit("usage: ack_writes.py write DEV BYTES THREADS LOG SEED [SLOW_AFTER] | check DEV LOG SEED")
