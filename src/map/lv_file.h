/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/lv_file.h - an LV's extents (linear/striped segments, e.g. a thin pool's _tmeta)
 * seen as one device behind the I/O seam: its runs are copied at open and its PVs
 * opened through the caller's seam, so the handle outlives the model it was made
 * from.  The handle's ctx (io = the handle's own ops) and fd are what a module that
 * does its I/O through lvx_io(ctx) on one fd takes (map/thin_meta.h); reads and writes
 * go through an aligned bounce buffer (the PVs are opened O_DIRECT when they can be),
 * flush fdatasyncs every PV.  Also the thin pool's metadata opened over its _tmeta
 * (formatted when the first block is zeroed, as the kernel does at first activation).
 */
#ifndef LVX_MAP_LV_FILE_H
#define LVX_MAP_LV_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "map/thin_meta.h"
#include "model/model.h"
#include "util/ctx.h"
#include "util/pool.h"

struct lvx_lv_file;

/* Open lv's areas (every PV present) through lvx_io(ctx); a raid1 LV opened read-only
 * is read from its first whole image on present PVs that its rmeta's dm-raid superblock
 * says is in sync (a pool's raid1 _tmeta for the thin tools).  0 or -errno (message). */
int lvx_lv_file_open(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool rw,
                     struct lvx_lv_file **out);
void lvx_lv_file_close(struct lvx_lv_file *f);
/* lv grown (lvextend appends: what f covered stays where it was): f now covers lv's
 * areas as they are, its ctx and fd unchanged.  0 or -errno (message in ctx; f as
 * it was). */
int lvx_lv_file_grow(struct lvx_ctx *ctx, struct lvx_lv_file *f, const struct lvx_lv *lv, bool rw);
/* The ctx to hand to the module doing I/O on the file (its errors land there), the fd
 * to pass it, the size. */
struct lvx_ctx *lvx_lv_file_ctx(struct lvx_lv_file *f);
int lvx_lv_file_fd(const struct lvx_lv_file *f);
uint64_t lvx_lv_file_bytes(const struct lvx_lv_file *f);
/* fdatasync every PV of the file: 0 or the first -errno. */
int lvx_lv_file_flush(struct lvx_lv_file *f);
/* f's bytes saved into the regular file fd (made f's size; pieces of f that are all
 * zero left as holes, so a mostly empty thin metadata LV costs little space).  0 or
 * -errno. */
int lvx_lv_file_save(struct lvx_lv_file *f, int fd);
/* The first bytes of the regular file fd (at most f's size) written into f, 4 KiB block
 * by block, leaving f's blocks as they were where the file's are all zero (what a tool
 * such as thin_repair did not write); then flushed.  0 or -errno. */
int lvx_lv_file_load(struct lvx_lv_file *f, int fd, uint64_t bytes);

/* The metadata of thin pool pool_lv: its _tmeta opened (*file), read and checked, or
 * formatted empty when its first 4 KiB are zero (rw only); the data space grown to
 * what _tdata holds now.  Memory in mem.  Errors copied to ctx. */
int lvx_thin_pool_meta_open(struct lvx_ctx *ctx, struct lvx_pool *mem, const struct lvx_lv *pool_lv,
                            bool rw, struct lvx_lv_file **file, struct lvx_thin_meta **tm);

#endif
