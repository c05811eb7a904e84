/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/user_freeze.h - what a device-mapper suspend with lockfs does for the
 * `user` backend, around a reload that takes a snapshot of a served origin: the
 * filesystem mounted on the LV's loop device is frozen (its dirty data written, new
 * writes held) and thawed after; without one, the loop device's own cache is flushed.
 */
#ifndef LVX_ACTIVATE_USER_FREEZE_H
#define LVX_ACTIVATE_USER_FREEZE_H

struct lvx_user_freeze {
    int fd;                 /* the frozen filesystem's mount point, or -1 */
};

/* Freeze (or flush) what is on block device major:minor.  Never fails: a filesystem
 * that cannot be frozen gets the flush (syncfs) instead, as LVM2 goes on when lockfs
 * is refused. */
void lvx_user_freeze(struct lvx_user_freeze *f, int major, int minor);
void lvx_user_thaw(struct lvx_user_freeze *f);

#endif
