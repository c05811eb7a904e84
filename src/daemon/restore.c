/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/restore.c - the state file (<run dir>/state, 0600: it names devices)
 * and what a restarted daemon does with it.  One line per served LV:
 *   <node id> <vg> <lv> <lv uuid> <flags> <loop dev|-> <file name the loop device
 *   was attached with|-> <dev dir of its links> <device>...
 * and one per device-mapper device the dm backend asked to watch (dm_watch.c):
 *   watch <vg> <lv> pool|snapshot|mirror|raid <dm name> <dm uuid> <dev dir>
 * A worker that replaces a dead one serves the same LVs on the same FUSE
 * connection: their loop devices still work.  A new daemon (the whole daemon
 * died, its mount with it) serves them as files of a new mount.  A loop device
 * still bound to the dead daemon's file (the kernel now shows that backing file
 * as "/<name>", its mount being detached) is re-bound (read-only ones:
 * LOOP_CHANGE_FD) or released (LOOP_CLR_FD: at once, or at its last close when
 * held open) and a new one is attached; a device bound to any other file is
 * never touched, whatever its number.  The LV's /dev links are removed before a
 * device is let go and made again only to the device whose backing file is the
 * LV's file, so no link ever points at a device that someone else on the machine
 * could attach next.
 *
 * Entry points: lvxd_state_save(), lvxd_state_load(), lvxd_state_settle().
 */
#include "daemon/daemon.h"
#include "daemon/daemon_int.h"
#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "model/snapshot.h"
#include "model/thin.h"
#include "nodes/user_nodes.h"

/* A state line whose LV could not be served again: its links and device go. */
struct unrestored {
    char vg[128], lv[128], loop[32], loop_name[260], dev_dir[256];
    struct unrestored *next;
};

static struct unrestored *unrestored;

void lvxd_state_save(void)
{
    char path[4096], tmp[4200];
    lvx_daemon_path(path, sizeof(path), LVX_DAEMON_STATE);
    snprintf(tmp, sizeof(tmp), "%s.new", path);
    int fd = lvxd_open_private(tmp, O_WRONLY | O_CREAT | O_TRUNC);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        lvxd_log("warning: cannot write %s: %s", tmp, strerror(fd < 0 ? -fd : errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    pthread_mutex_lock(&lvxd_lvs_mutex);
    for (struct lvxd_lv *v = lvxd_lvs; v; v = v->next)
        if (!v->dying)
            fprintf(f, "%" PRIu64 " %s %s %s %u %s %s %s %s\n", v->ino, v->vg, v->lv, v->uuid,
                    (v->read_only ? LVXD_FLAG_RO : 0) | (v->partial ? LVXD_FLAG_PARTIAL : 0) |
                        (v->lease_shared ? LVXD_FLAG_LOCK_SH : 0) |
                        (v->monitored ? LVXD_FLAG_MONITOR : 0),
                    v->loop[0] ? v->loop : "-",
                    v->loop[0] && v->loop_name[0] ? v->loop_name : "-", v->dev_dir, v->devices);
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    lvxd_dm_watch_save(f);       /* the dm backend's watched devices (dm_watch.c) */
    fflush(f);
    fsync(fileno(f));
    fclose(f);
    if (rename(tmp, path) < 0)
        lvxd_log("warning: cannot rename %s: %s", tmp, strerror(errno));
}

unsigned lvxd_state_load(struct lvx_ctx *ctx)
{
    char path[4096];
    lvx_daemon_path(path, sizeof(path), LVX_DAEMON_STATE);
    int fd = lvxd_open_private(path, O_RDONLY);
    if (fd < 0 && fd != -ENOENT)
        lvxd_log("warning: not reading %s: %s", path, strerror(-fd));
    /* the daemon's own file (checked by lvxd_open_private), read whole and bounded
     * (util/file.h) through its descriptor: lines of any length (VGs of many PVs) */
    struct lvx_buf text = LVX_BUF_INIT;
    if (fd >= 0) {
        char fdpath[64];
        snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
        if (lvx_buf_read_file(NULL, &text, fdpath, LVX_FILE_MAX_STATE) < 0)
            lvxd_log("warning: not reading %s: too large or unreadable", path);
        close(fd);
    }
    unsigned count = 0;
    char *end = text.data ? text.data + text.len : NULL;
    for (char *line = text.data, *next; line && line < end; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        else
            next = line + strlen(line);
        if (lvxd_dm_watch_load_line(ctx, line))
            continue;
        uint64_t ino;
        char vg[128], lv[128], uuid[64], loop[32], lname[260], ddir[256];
        int ro, pos = 0;
        if (sscanf(line, "%" SCNu64 " %127s %127s %63s %d %31s %259s %255s %n", &ino, vg, lv,
                   uuid, &ro, loop, lname, ddir, &pos) < 8 || !pos)
            continue;
        if (strcmp(lname, "-") == 0)
            lvxd_volume_name(lname, sizeof(lname), vg, lv);
        struct lvxd_lv *v;
        if (lvxd_volume_add(ctx, vg, lv, uuid, (unsigned)ro, line + pos, ino, &v) < 0) {
            lvxd_log("cannot restore %s/%s: %s", vg, lv, ctx->errmsg);
            lvx_error_clear(ctx);
            struct unrestored *u = calloc(1, sizeof(*u));
            snprintf(u->vg, sizeof(u->vg), "%s", vg);
            snprintf(u->lv, sizeof(u->lv), "%s", lv);
            snprintf(u->loop, sizeof(u->loop), "%s", strcmp(loop, "-") ? loop : "");
            snprintf(u->loop_name, sizeof(u->loop_name), "%s", lname);
            snprintf(u->dev_dir, sizeof(u->dev_dir), "%s", ddir);
            u->next = unrestored;
            unrestored = u;
            continue;
        }
        snprintf(v->dev_dir, sizeof(v->dev_dir), "%s", ddir);
        if ((unsigned)ro & LVXD_FLAG_MONITOR)
            lvxd_monitor_set(ctx, v, true);
        if (strcmp(loop, "-") != 0) {
            struct stat st;
            snprintf(v->loop, sizeof(v->loop), "%s", loop);
            snprintf(v->loop_name, sizeof(v->loop_name), "%s", lname);
            if (stat(loop, &st) == 0) {
                v->loop_major = (int)major(st.st_rdev);
                v->loop_minor = (int)minor(st.st_rdev);
            }
        }
        count++;
    }
    lvx_buf_free(&text);
    return count;
}

/* backing is <dir>/<name>, or that with " (deleted)" (the kernel dropped the name). */
static bool backing_is(const char *backing, const char *dir, const char *name)
{
    char file[4400];
    int n = snprintf(file, sizeof(file), "%s/%s", dir, name);
    return strncmp(backing, file, (size_t)n) == 0 &&
           (backing[n] == 0 || strcmp(backing + n, " (deleted)") == 0);
}

/* dev is bound to the file name of a daemon mount at mount_dir, live or dead
 * (a detached mount: "/<name>"). */
static bool bound_to_our_file(const char *dev, const char *mount_dir, const char *name,
                              char *backing, size_t n)
{
    backing[0] = 0;
    if (lvxd_loop_backing(dev, backing, n) < 0)
        return false;
    return backing_is(backing, mount_dir, name) || backing_is(backing, "", name);
}

/* A restored LV's loop device after a new mount (the links are gone already). */
static void fix_loop(struct lvx_ctx *ctx, struct lvxd_lv *v, const char *mount_dir)
{
    char old[32], file[4400], backing[4400];
    int nr = -1;
    snprintf(old, sizeof(old), "%s", v->loop);
    snprintf(file, sizeof(file), "%s/%s", mount_dir, v->name);
    sscanf(old, "/dev/loop%d", &nr);
    v->loop[0] = 0;
    if (bound_to_our_file(old, mount_dir, v->loop_name, backing, sizeof(backing))) {
        if (v->read_only && lvxd_loop_change_fd(ctx, old, file) == 0) {
            snprintf(v->loop, sizeof(v->loop), "%s", old);
            snprintf(v->loop_name, sizeof(v->loop_name), "%s", v->name);
            lvxd_log("%s/%s: %s re-bound to the new file", v->vg, v->lv, old);
            return;
        }
        if (v->read_only)
            lvxd_log("%s/%s: %s", v->vg, v->lv, ctx->errmsg);
        lvx_error_clear(ctx);
        if (lvxd_loop_detach(ctx, old, true) < 0) {
            lvxd_log("%s/%s: cannot release %s: %s", v->vg, v->lv, old, ctx->errmsg);
            lvx_error_clear(ctx);
            nr = -1;
        } else if (lvxd_loop_attached(old)) {
            lvxd_log("%s/%s: %s is held open: it is released at its last close", v->vg, v->lv,
                     old);
            nr = -1;
        }
    } else if (backing[0]) {
        lvxd_log("%s/%s: %s is bound to %s, not to this LV: left alone", v->vg, v->lv, old,
                 backing);
        nr = -1;
    }
    if (lvxd_volume_attach(ctx, v, mount_dir, nr) < 0) {
        lvxd_log("%s/%s: cannot attach a loop device: %s", v->vg, v->lv, ctx->errmsg);
        v->loop[0] = 0;
        return;
    }
    lvxd_log("%s/%s: attached again as %s", v->vg, v->lv, v->loop);
}

/* The links of v point at its loop device when that is bound to v's file, else
 * they are removed. */
static void sync_links(struct lvx_ctx *ctx, struct lvxd_lv *v, const char *mount_dir)
{
    if (lvxd_volume_loop_ours(v, mount_dir)) {
        bool vg_link = !v->model || (!lvx_lv_thin_pool_private(v->model) &&
                                     !lvx_lv_is_virtual_origin(v->model));   /* LVM2's */
        if (lvx_user_nodes_add(ctx, v->dev_dir, v->vg, v->lv, v->loop, vg_link) < 0)
            lvxd_log("%s/%s: %s", v->vg, v->lv, ctx->errmsg);
        return;
    }
    if (v->loop[0])
        lvxd_log("%s/%s: %s is not bound to its file: links removed", v->vg, v->lv, v->loop);
    v->loop[0] = 0;
    lvx_user_nodes_remove(v->dev_dir, v->vg, v->lv);
}

void lvxd_state_settle(struct lvx_ctx *ctx, const char *mount_dir, bool new_mount)
{
    char backing[4400];
    while (unrestored) {
        struct unrestored *u = unrestored;
        unrestored = u->next;
        lvx_user_nodes_remove(u->dev_dir, u->vg, u->lv);
        if (u->loop[0] &&
            bound_to_our_file(u->loop, mount_dir, u->loop_name, backing, sizeof(backing))) {
            lvxd_log("%s/%s not served: releasing %s", u->vg, u->lv, u->loop);
            if (lvxd_loop_detach(ctx, u->loop, true) < 0)
                lvx_error_clear(ctx);
        }
        free(u);
    }
    struct lvxd_lv *list[1024];
    unsigned n = 0;
    pthread_mutex_lock(&lvxd_lvs_mutex);
    for (struct lvxd_lv *v = lvxd_lvs; v && n < 1024; v = v->next)
        list[n++] = v;
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    for (unsigned i = 0; i < n; i++) {
        struct lvxd_lv *v = list[i];
        if (new_mount && v->loop[0]) {
            /* no link may point at a device about to be let go */
            lvx_user_nodes_remove(v->dev_dir, v->vg, v->lv);
            fix_loop(ctx, v, mount_dir);
        }
        sync_links(ctx, v, mount_dir);
        lvx_error_clear(ctx);
    }
    lvxd_state_save();
}
