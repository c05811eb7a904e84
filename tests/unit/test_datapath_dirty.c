/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_datapath_dirty.c - the daemon's record of PVs written since the last
 * flush (daemon/datapath.c: lvxd_io_mark_written, lvxd_io_run, lvxd_io_flush_pvs) when
 * a flush runs while a write is in flight: the flush syncs what completed before it,
 * and the write that completes after it must leave its PV for the next flush (an fsync
 * after that write's reply must sync the PV).  The race is made deterministic by an
 * I/O seam whose submit runs another thread's flush just before it does a write.
 */
#include "daemon/daemon_int.h"
#include "dev/io.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/lvx-test-dirty-XXXXXX";
static struct lvxd_lv lv;
static struct lvxd_io flusher;      /* the other FUSE thread's */
static int racing_flushes, datasyncs;

/* the seam: the default submit, after a racing flush when the batch writes */
static int racing_submit(void *arg, struct lvx_io_queue *q, struct lvx_io_op *ops, unsigned n)
{
    const struct lvx_dev_ops *d = lvx_dev_ops_default();
    bool writes = false;
    for (unsigned i = 0; i < n; i++) {
        writes |= ops[i].kind == LVX_IO_WRITE;
        datasyncs += ops[i].kind == LVX_IO_DATASYNC;
    }
    if (writes && racing_flushes > 0) {
        racing_flushes--;
        if (lvxd_io_flush_pvs(&flusher, &lv) < 0)
            return -EIO;
    }
    return d->submit(d->arg, q, ops, n);
}

static struct lvx_dev_ops seam;

int main(void)
{
    if (!mkdtemp(dir)) {
        ok(0, "temp dir");
        return tap_done();
    }
    seam = *lvx_dev_ops_default();
    seam.submit = racing_submit;
    lvxd_use_ops(&seam);

    char path[300];
    snprintf(path, sizeof(path), "%s/pv0.img", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    ok(fd >= 0 && ftruncate(fd, 1 << 20) == 0, "a 1 MiB PV file");
    struct lvxd_pv pv = { .fd = fd, .max_piece = 2048, .lbs = 512, .path = path };
    lv.pvs = &pv;
    lv.pv_count = 1;

    struct lvxd_io io;
    is_int(lvxd_io_init(&io), 0, "the writer's queue");
    is_int(lvxd_io_init(&flusher), 0, "the flusher's queue");
    uint8_t *buf = aligned_alloc(4096, 4096);
    memset(buf, 0x5a, 4096);

    /* a write with no flush racing: marked, then synced by a flush */
    io.pieces[0] = (struct lvx_io_op){ .fd = fd, .kind = LVX_IO_WRITE, .dev = 0, .off = 0,
                                       .len = 4096, .buf = buf };
    lvxd_io_mark_written(&io, &lv, 0);
    is_int(lvxd_io_run(&io, 1), 0, "a write");
    ok(atomic_load(&lv.dirty) & 1, "... its PV marked written");
    datasyncs = 0;
    is_int(lvxd_io_flush_pvs(&flusher, &lv), 0, "a flush");
    is_int(datasyncs, 1, "... synced the PV");
    is_int((int)atomic_load(&lv.dirty), 0, "... and cleared the mark");

    /* a flush that runs while the write is queued but not yet done */
    io.written_lv = NULL;           /* a new request, as new_request() starts one */
    io.written = 0;
    io.pieces[0] = (struct lvx_io_op){ .fd = fd, .kind = LVX_IO_WRITE, .dev = 0, .off = 4096,
                                       .len = 4096, .buf = buf };
    lvxd_io_mark_written(&io, &lv, 0);
    racing_flushes = 1;
    datasyncs = 0;
    is_int(lvxd_io_run(&io, 1), 0, "a write with a flush racing it");
    is_int(racing_flushes, 0, "... the flush ran before the write was submitted");
    is_int(datasyncs, 1, "... and synced the PV (the mark set at queueing)");
    ok(atomic_load(&lv.dirty) & 1, "... the write's PV marked again when it completed");
    datasyncs = 0;
    is_int(lvxd_io_flush_pvs(&flusher, &lv), 0, "the next flush (an fsync after the reply)");
    is_int(datasyncs, 1, "... syncs the PV the write went to");
    datasyncs = 0;
    is_int(lvxd_io_flush_pvs(&flusher, &lv), 0, "one more flush");
    is_int(datasyncs, 0, "... has nothing to sync");

    free(buf);
    lvxd_io_exit(&io);
    lvxd_io_exit(&flusher);
    close(fd);
    unlink(path);
    rmdir(dir);
    return tap_done();
}
