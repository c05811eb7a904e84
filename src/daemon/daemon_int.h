/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/daemon_int.h - what the daemon's files share (not used outside
 * src/daemon/): the served LVs (volumes.c), the datapath (datapath.c), the FUSE
 * protocol threads (fuse.c), loop devices (loopdev.c), the control server
 * (control.c), process set-up (proc.c), the log (log.c).
 */
#ifndef LVX_DAEMON_DAEMON_INT_H
#define LVX_DAEMON_DAEMON_INT_H

#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "meta/scan.h"
#include "model/model.h"
#include "util/ctx.h"

#define LVXD_MAX_IO (1u << 20)          /* FUSE max_read / max_write */
#define LVXD_RING_ENTRIES 256
#define LVXD_MAX_PIECES 512             /* pieces of one request (4 KiB stripes: 256) */

/* --- log.c ---------------------------------------------------------------- */
void lvxd_log_open(void);
void lvxd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* ctx log callback writing to the log */
void lvxd_log_cb(void *arg, int level, const char *msg);

/* --- volumes.c: the served LVs -------------------------------------------- */
struct lvxd_pv {
    int fd;                      /* O_DIRECT, -1 for a missing PV */
    bool is_blk;
    uint32_t max_piece;          /* sectors: queue limits of the PV */
    uint32_t lbs;                /* logical block size, bytes */
    const char *path;
};

struct lvxd_lv {
    uint64_t ino;                /* FUSE node id, also the fh; stable across restarts */
    char name[260];              /* the file name: dm name "<vg>-<lv>" */
    char vg[128], lv[128], uuid[LVX_UUID_LEN + 1];
    char *devices;               /* the device list, space separated (heap) */
    bool read_only;
    uint64_t size;               /* bytes */
    uint32_t lbs;                /* largest PV logical block size */
    uint64_t io_min, io_opt;     /* bytes (stripe geometry) */
    /* the model, read from the devices; swapped by reload (write lock) */
    pthread_rwlock_t lock;
    struct lvx_scan *scan;
    struct lvx_vgset *set;
    const struct lvx_lv *model;
    struct lvxd_pv *pvs;         /* by pv->index */
    unsigned pv_count;
    atomic_uint_fast64_t dirty;  /* bit i: pvs[i % 64] written since the last flush */
    atomic_int opens;            /* FUSE opens */
    bool dying;                  /* deactivated while open: freed at the last release */
    char loop[32];               /* "/dev/loopN" or "" */
    int loop_major, loop_minor;
    bool loop_stale;             /* still bound to a dead daemon's file (in use) */
    struct lvxd_lv *next;
};

/* All served LVs; the mutex guards the list (not the LVs' data paths). */
extern pthread_mutex_t lvxd_lvs_mutex;
extern struct lvxd_lv *lvxd_lvs;

/* Read the VG from devs (space separated), open the LV's PVs, add it as a file.
 * ino 0: a new node id.  *out the LV (already served: the existing one). */
int lvxd_volume_add(struct lvx_ctx *ctx, const char *vg, const char *lv, const char *uuid,
                    bool ro, const char *devs, uint64_t ino, struct lvxd_lv **out);
/* Re-read the metadata (resize): the new size and mapping become live. */
int lvxd_volume_reload(struct lvx_ctx *ctx, struct lvxd_lv *v, const char *devs);
/* Remove from the list; freed now, or at the last release when open. */
void lvxd_volume_remove(struct lvxd_lv *v);
struct lvxd_lv *lvxd_volume_find(const char *vg, const char *lv);
/* By node id, taking an open reference (NULL when unknown or dying). */
struct lvxd_lv *lvxd_volume_get(uint64_t ino, bool open);
void lvxd_volume_put(struct lvxd_lv *v);
/* Fill the file name of vg/lv (dm name).  -ENAMETOOLONG. */
int lvxd_volume_name(char *out, size_t n, const char *vg, const char *lv);
/* Write the state file (every served LV). */
void lvxd_state_save(void);
/* Serve the LVs of the state file again (daemon or worker start), before the
 * FUSE threads run: requests the kernel resends find them.  Count restored. */
unsigned lvxd_state_load(struct lvx_ctx *ctx);
/* A new daemon (new FUSE mount): bind the restored LVs' loop devices to the new
 * files (re-bind, re-attach, or mark stale when in use).  Then saves the state. */
void lvxd_state_fix_loops(struct lvx_ctx *ctx, const char *mount_dir);
/* (Re)attach the loop device of v to its file; nr: wanted loop number or -1. */
int lvxd_volume_attach(struct lvx_ctx *ctx, struct lvxd_lv *v, const char *mount_dir, int nr);

/* --- datapath.c: one per FUSE thread --------------------------------------- */
struct lvxd_piece {
    int fd;
    uint64_t off;                /* bytes on the PV */
    uint32_t len;                /* bytes */
    uint32_t buf_off;            /* bytes into the request buffer */
    unsigned pv;                 /* index */
};

struct lvxd_io {
    struct io_uring ring;
    struct lvx_ctx ctx;
    struct lvxd_piece *pieces;   /* LVXD_MAX_PIECES */
};

int lvxd_io_init(struct lvxd_io *io);
void lvxd_io_exit(struct lvxd_io *io);
/* Read/write len bytes at LV offset off (both multiples of the LV's block size)
 * from/to buf (aligned).  0 or -errno. */
int lvxd_io_rw(struct lvxd_io *io, struct lvxd_lv *v, bool write, uint64_t off, uint32_t len,
               uint8_t *buf);
/* fdatasync every PV written since the last flush (all at once). */
int lvxd_io_flush(struct lvxd_io *io, struct lvxd_lv *v);
/* Zero [off, off+len) of the LV: every PV range in parallel (block devices:
 * fallocate ZERO_RANGE = write-zeroes; files: PUNCH_HOLE). */
int lvxd_io_zero(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len);

/* --- fuse.c: the FUSE threads ------------------------------------------------ */
/* Mount a FUSE file system for /dev/fuse fd at dir.  0 or -errno. */
int lvxd_fuse_mount(int fd, const char *dir);
/* Start nthreads threads serving fd (all memory allocated here).  restarted:
 * the connection was initialised by a previous worker (resend in-flight requests). */
/* A new unix stream socket (close-on-exec) and the address of the daemon's control
 * socket in sa (its path in path, PATH_MAX bytes): the fd, or -errno. */
struct sockaddr_un;
int lvxd_control_socket(struct sockaddr_un *sa, char *path);

int lvxd_fuse_start(int fd, unsigned nthreads, bool restarted);
/* Stop serving: threads exit after the unmount. */
void lvxd_fuse_join(void);
/* Raise the read-ahead of the mount's bdi. */
void lvxd_fuse_tune_bdi(const char *dir);

/* --- loopdev.c --------------------------------------------------------------- */
/* Attach file (path) to a free loop device (direct I/O, block size lbs). */
int lvxd_loop_attach(struct lvx_ctx *ctx, const char *file, bool ro, uint32_t lbs,
                     int want_nr, char *dev, size_t devlen, int *major, int *minor);
/* Detach; -EBUSY when open and not force (force: detach at the last close). */
int lvxd_loop_detach(struct lvx_ctx *ctx, const char *dev, bool force);
/* Is the loop device held (mounted or opened exclusively)? */
bool lvxd_loop_busy(const char *dev);
/* The loop device dev is attached (any file). */
bool lvxd_loop_attached(const char *dev);
/* Bind a read-only loop device to a new file (LOOP_CHANGE_FD). */
int lvxd_loop_change_fd(struct lvx_ctx *ctx, const char *dev, const char *file);
/* Set the read-ahead of a loop device (KiB). */
void lvxd_loop_read_ahead(const char *dev, unsigned kb);
/* stat(2) of one of our FUSE files (from a child process: the kernel then asks
 * the daemon for its attributes, e.g. the new size before LOOP_SET_CAPACITY). */
int lvxd_file_stat(struct lvx_ctx *ctx, const char *file);
/* Tell the loop device that the file size changed. */
int lvxd_loop_set_capacity(struct lvx_ctx *ctx, const char *dev);

/* --- proc.c: process set-up --------------------------------------------------- */
/* mlockall (unless sanitized or LVX_DAEMON_NO_MLOCK), oom_score_adj -1000,
 * PR_SET_IO_FLUSHER, move out of a memory-limited cgroup.  Warnings logged. */
void lvxd_proc_harden(void);
bool lvxd_proc_mlock(void);

/* --- control.c ----------------------------------------------------------------- */
/* Serve the control socket until a stop request; returns the exit code. */
int lvxd_control_loop(int listen_fd, const char *mount_dir);
extern pid_t lvxd_supervisor_pid;

#endif
