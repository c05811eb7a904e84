/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/dm_watch.c - watch entries: the monitored thin pools, COW snapshots, mirrors
 * and RAID LVs that the kernel's device-mapper runs (the `dm` backend asks,
 * activate/dm_watch.c), which monitor.c looks at as it looks at the LVs this worker
 * serves (dmeventd's registered devices).  An entry names the LV (VG, LV: what
 * `lvextend --use-policies` or `lvconvert --repair --use-policies` is run on), its
 * kind, the dm device whose status tells the usage or the legs' health (a pool's
 * -tpool device, the others' own), that device's dm UUID (a device of that name with
 * another UUID is not the LV's: the entry goes) and the client's DM_DEV_DIR.  The
 * status is read with DM_TABLE_STATUS (dev/dm_ioctl.c) and turned into the words the
 * daemon's own targets give (" thin-pool TID MU/MT DU/DT ...", " snapshot VALID USED
 * TOTAL META", " raid HEALTH DONE/TOTAL ACTION", " mirror IN/REGIONS HEALTH" followed
 * by the disk log's letter and the legs' major:minor, which dmeventd's mirror lines
 * name); a device that is gone ends its entry.  dm-mirror and dm-raid raise an event
 * when a leg fails (the mirror then holds its writes until the repair reloads it).  A status is read only when there is cause (dmeventd
 * waits for the device's events): the entry is new; the kernel raised an event on the
 * device since its last read (its event_nr moved: dm_events.c asks after each
 * device-mapper event, lvxd_dm_watch_events(): a pool past its low water mark, out of
 * space or metadata, a snapshot invalidated; or the device went); or, at a poll tick
 * of the monitor, the device's underlying devices (sysfs slaves: a pool's tmeta and
 * tdata, a snapshot's origin and COW, a mirror's or RAID LV's legs) wrote or discarded since the last read, so an
 * idle device costs no status read (a snapshot filling raises no event: the tick is
 * what sees it, as dmeventd's timeout; a pool whose policy failed is read at every
 * tick, for dmeventd's back-off: the VG may have been given room meanwhile, while the
 * full pool holds its writes).  Each read is logged with its cause.
 * Entries are kept in the daemon's state file ("watch VG LV pool|snapshot|mirror|raid
 * DMNAME DMUUID DEVDIR" lines, restore.c), so a worker or daemon that starts again watches
 * them again (an entry whose device went meanwhile ends at the first look).  The list
 * is guarded by its mutex (the control loop adds and drops, the monitor thread looks,
 * the event thread compares event numbers); the state file is written without it held.
 *
 * Entry points: lvxd_dm_watch_add(), lvxd_dm_watch_drop(), lvxd_dm_watched(),
 * lvxd_dm_watch_scan(), lvxd_dm_watch_events(), lvxd_dm_watch_update(),
 * lvxd_dm_watch_save(), lvxd_dm_watch_load_line().
 */
#include "daemon/daemon_int.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/dm_ioctl.h"
#include "util/buf.h"

struct entry {
    char vg[128], lv[128], name[128], uuid[129], dev_dir[256];
    enum lvxd_watch_kind kind;
    struct lvxd_watch watch;
    bool looked;                 /* its status was read once (its numbers below hold) */
    bool event;                  /* its event_nr moved since (dm_events.c) */
    uint32_t event_nr, major, minor;
    uint64_t io;                 /* its slaves' writes and discards at the last read */
    struct entry *next;
};

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static struct entry *entries;

static struct entry **find(const char *vg, const char *lv)
{
    struct entry **p = &entries;
    while (*p && !(strcmp((*p)->vg, vg) == 0 && strcmp((*p)->lv, lv) == 0))
        p = &(*p)->next;
    return p;
}

/* save: write the state file when the entry is new (not while it is being read) */
static int add(struct lvx_ctx *ctx, const char *vg, const char *lv, enum lvxd_watch_kind kind,
               const char *dm_name, const char *dm_uuid, const char *dev_dir, bool save)
{
    if (strlen(vg) >= sizeof(entries->vg) || strlen(lv) >= sizeof(entries->lv) ||
        strlen(dm_name) >= sizeof(entries->name) || strlen(dm_uuid) >= sizeof(entries->uuid) ||
        strlen(dev_dir) >= sizeof(entries->dev_dir))
        return lvx_error(ctx, ENAMETOOLONG, "The name of %s/%s is too long.", vg, lv);
    pthread_mutex_lock(&mutex);
    struct entry *e = *find(vg, lv);
    bool fresh = !e || strcmp(e->name, dm_name) != 0 || strcmp(e->uuid, dm_uuid) != 0 ||
                 e->kind != kind;
    if (!e) {
        e = lvx_xcalloc(1, sizeof(*e));
        e->next = entries;
        entries = e;
    }
    if (fresh) {
        snprintf(e->vg, sizeof(e->vg), "%s", vg);
        snprintf(e->lv, sizeof(e->lv), "%s", lv);
        snprintf(e->name, sizeof(e->name), "%s", dm_name);
        snprintf(e->uuid, sizeof(e->uuid), "%s", dm_uuid);
        memset(&e->watch, 0, sizeof(e->watch));
        e->looked = e->event = false;
    }
    snprintf(e->dev_dir, sizeof(e->dev_dir), "%s", dev_dir);
    e->kind = kind;
    pthread_mutex_unlock(&mutex);
    if (fresh) {
        lvxd_monitor_log_change(kind, dm_name, true);
        if (save)
            lvxd_state_save();
    }
    lvxd_dm_events_wake();
    lvxd_monitor_kick();
    return 0;
}

int lvxd_dm_watch_add(struct lvx_ctx *ctx, const char *vg, const char *lv,
                      enum lvxd_watch_kind k, const char *dm_name, const char *dm_uuid,
                      const char *dev_dir)
{
    return add(ctx, vg, lv, k, dm_name, dm_uuid, dev_dir, true);
}

bool lvxd_dm_watch_drop(const char *vg, const char *lv)
{
    pthread_mutex_lock(&mutex);
    struct entry **p = find(vg, lv), *e = *p;
    if (e)
        *p = e->next;
    pthread_mutex_unlock(&mutex);
    if (e) {
        lvxd_monitor_log_change(e->kind, e->name, false);
        lvxd_state_save();
        lvxd_dm_events_wake();         /* the event thread re-reads its watch list (none
                                        * left: the control device closed at once) */
    }
    free(e);
    return e != NULL;
}

bool lvxd_dm_watched(const char *vg, const char *lv)
{
    pthread_mutex_lock(&mutex);
    bool on = *find(vg, lv) != NULL;
    pthread_mutex_unlock(&mutex);
    return on;
}

/* The writes and discards done by the devices under major:minor (its sysfs slaves:
 * /proc/diskstats' fields 5 and 12); UINT64_MAX when they cannot be read (every tick
 * reads the status then). */
static uint64_t slaves_io(uint32_t major, uint32_t minor)
{
    char dir[96];
    snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/slaves", major, minor);
    DIR *d = opendir(dir);
    if (!d)
        return UINT64_MAX;
    uint64_t sum = 0;
    unsigned n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[400];
        snprintf(path, sizeof(path), "%s/%s/stat", dir, de->d_name);
        FILE *f = fopen(path, "re");
        uint64_t v[15] = { 0 };
        int got = f ? fscanf(f, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                             " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                             " %" SCNu64 " %" SCNu64, &v[0], &v[1], &v[2], &v[3], &v[4],
                             &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11]) : 0;
        if (f)
            fclose(f);
        if (got < 7) {
            closedir(d);
            return UINT64_MAX;
        }
        sum += v[4] + v[6] + (got >= 12 ? v[11] : 0);   /* writes, their sectors, discards */
        n++;
    }
    closedir(d);
    return n ? sum : UINT64_MAX;
}

/* dm-mirror's status after the target name ("2 253:1 253:2 IN/REGIONS 1 AD 3 disk
 * 253:0 A", "... 1 core") as the daemon's mirror target words it, the log's letter and
 * the devices after: " mirror IN/REGIONS HEALTH[ log L] devs D0 D1[ LOGDEV]". */
static void mirror_words(const char *p, char *st, size_t n)
{
    char devs[8][16], health[17], log_type[16], log_dev[16] = "", log_health[2] = "";
    unsigned count, i, args;
    unsigned long long in, regions;
    int off = 0;
    if (sscanf(p, "%u %n", &count, &off) != 1 || count == 0 || count > 8)
        return;
    p += off;
    for (i = 0; i < count; i++, p += off)
        if (sscanf(p, "%15s %n", devs[i], &off) != 1)
            return;
    if (sscanf(p, "%llu/%llu 1 %16s %u %15s %n", &in, &regions, health, &args, log_type,
               &off) != 5 || strlen(health) != count)
        return;
    if (args >= 3 && strcmp(log_type, "disk") == 0 &&
        sscanf(p + off, "%15s %1s", log_dev, log_health) != 2)
        return;
    size_t w = (size_t)snprintf(st, n, " mirror %llu/%llu %s", in, regions, health);
    if (log_health[0] && w < n)
        w += (size_t)snprintf(st + w, n - w, " log %s", log_health);
    if (w < n)
        w += (size_t)snprintf(st + w, n - w, " devs");
    for (i = 0; i < count && w < n; i++)
        w += (size_t)snprintf(st + w, n - w, " %s", devs[i]);
    if (log_dev[0] && w < n)
        snprintf(st + w, n - w, " %s", log_dev);
}

/* The device's status as the daemon's targets word it into st; *sectors its length,
 * raid_type a RAID LV's type word.  -ENODEV: the device is gone (or is another LV's);
 * -EMEDIUMTYPE: a mirror's or RAID LV's device runs another target now (a repair
 * left one leg: linear). */
static int look(struct lvx_ctx *ctx, struct lvx_dm *dm, struct entry *e, char *st,
                size_t n, uint64_t *sectors, char raid_type[32])
{
    struct lvx_dm_info info;
    struct lvx_buf b = LVX_BUF_INIT;
    int rc = lvx_dm_info(ctx, dm, e->name, &info);
    if (rc == 0 && (!info.exists || strcmp(info.uuid, e->uuid) != 0))
        rc = -ENODEV;
    if (rc == 0) {                 /* before the status: a later event moves it */
        e->event_nr = info.event_nr;
        e->major = info.major;
        e->minor = info.minor;
        e->io = slaves_io(info.major, info.minor);
        e->looked = true;
        e->event = false;
        rc = lvx_dm_table(ctx, dm, e->name, true, &b);
    }
    unsigned long long start, len, used, total, meta;
    char target[32], health[257], sync[48], action[16];
    int off = 0;
    st[0] = 0;
    raid_type[0] = 0;
    if (rc == 0 && sscanf(lvx_buf_str(&b), "%llu %llu %31s %n", &start, &len, target, &off) == 3) {
        const char *p = lvx_buf_str(&b) + off;
        bool snap = e->kind == LVXD_WATCH_SNAPSHOT && strcmp(target, "snapshot") == 0;
        *sectors = len;
        if (e->kind == LVXD_WATCH_POOL && strcmp(target, "thin-pool") == 0)
            snprintf(st, n, " thin-pool %.*s", (int)strcspn(p, "\n"), p);
        else if (snap && sscanf(p, "%llu/%llu %llu", &used, &total, &meta) == 3)
            snprintf(st, n, " snapshot 1 %llu %llu %llu", used, total, meta);
        else if (snap)                                          /* Invalid, Overflow */
            snprintf(st, n, " snapshot 0 0 0 0");
        else if (e->kind == LVXD_WATCH_MIRROR && strcmp(target, "mirror") == 0)
            mirror_words(p, st, n);
        else if (e->kind == LVXD_WATCH_RAID && strcmp(target, "raid") == 0 &&
                 sscanf(p, "%31s %*u %256s %47s %15s", raid_type, health, sync, action) == 4)
            snprintf(st, n, " raid %s %s %s", health, sync, action);
        else if ((e->kind == LVXD_WATCH_MIRROR && strcmp(target, "mirror") != 0) ||
                 (e->kind == LVXD_WATCH_RAID && strcmp(target, "raid") != 0))
            rc = -EMEDIUMTYPE;
    }
    lvx_buf_free(&b);
    return rc;
}

/* Why e's status is to be read now (NULL: not). */
static const char *cause(const struct entry *e, bool tick)
{
    if (!e->looked)
        return "new";
    if (e->event)
        return "event";
    if (tick && e->watch.fails)          /* a failed policy is retried at the ticks */
        return "retry";
    if (tick) {
        uint64_t io = slaves_io(e->major, e->minor);
        if (io == UINT64_MAX || io != e->io)
            return "poll";
    }
    return NULL;
}

void lvxd_dm_watch_scan(bool tick, void (*fn)(const struct lvxd_dm_look *look, void *arg),
                        void *arg)
{
    struct lvx_ctx ctx;
    struct lvx_dm dm;
    bool gone = false, open = false;
    lvx_ctx_init(&ctx);
    pthread_mutex_lock(&mutex);
    for (struct entry **p = &entries; *p;) {
        struct entry *e = *p;
        const char *why = cause(e, tick);
        if (!why) {
            p = &e->next;
            continue;
        }
        if (!open && lvx_dm_open(&ctx, &dm) < 0)
            break;
        open = true;
        char st[512], raid_type[32];
        uint64_t sectors = 0;
        int rc = look(&ctx, &dm, e, st, sizeof(st), &sectors, raid_type);
        lvx_error_clear(&ctx);
        if (rc == -ENODEV || rc == -EMEDIUMTYPE) {   /* deactivated behind our back */
            *p = e->next;
            lvxd_log(rc == -ENODEV ? "%s is gone." : "%s has no redundant legs any more.",
                     e->name);
            lvxd_monitor_log_change(e->kind, e->name, false);
            free(e);
            gone = true;
            continue;
        }
        lvxd_log("Status of %s read (%s, event %" PRIu32 ").", e->name, why, e->event_nr);
        if (rc == 0 && st[0]) {
            struct lvxd_dm_look l = { .vg = e->vg, .lv = e->lv, .name = e->name,
                                      .dev_dir = e->dev_dir, .kind = e->kind,
                                      .sectors = sectors, .status = st,
                                      .raid_type = raid_type, .watch = &e->watch };
            fn(&l, arg);
        }
        p = &e->next;
    }
    if (open)
        lvx_dm_close(&dm);
    lvx_error_clear(&ctx);
    pthread_mutex_unlock(&mutex);
    if (gone)
        lvxd_state_save();
}

int lvxd_dm_watch_events(struct lvx_ctx *ctx, struct lvx_dm *dm)
{
    int n = 0;
    pthread_mutex_lock(&mutex);
    if (!entries)
        n = -1;
    for (struct entry *e = dm ? entries : NULL; e; e = e->next) {
        struct lvx_dm_info info;
        if (!e->looked || e->event)
            continue;
        if (lvx_dm_info(ctx, dm, e->name, &info) < 0) {
            lvx_error_clear(ctx);
            continue;
        }
        if (info.exists && strcmp(info.uuid, e->uuid) == 0 && info.event_nr == e->event_nr)
            continue;
        if (info.exists)
            lvxd_log("Event %" PRIu32 " on %s.", info.event_nr, e->name);
        e->event = true;                 /* an event, or the device went */
        n++;
    }
    pthread_mutex_unlock(&mutex);
    return n;
}

void lvxd_dm_watch_update(const char *vg, const char *lv,
                          void (*fn)(struct lvxd_watch *w, void *arg), void *arg)
{
    pthread_mutex_lock(&mutex);
    struct entry *e = *find(vg, lv);
    if (e)
        fn(&e->watch, arg);
    pthread_mutex_unlock(&mutex);
}

void lvxd_dm_watch_save(FILE *f)
{
    pthread_mutex_lock(&mutex);
    for (struct entry *e = entries; e; e = e->next)
        fprintf(f, "watch %s %s %s %s %s %s\n", e->vg, e->lv, lvxd_watch_kind_word(e->kind),
                e->name, e->uuid, e->dev_dir);
    pthread_mutex_unlock(&mutex);
}

bool lvxd_dm_watch_load_line(struct lvx_ctx *ctx, const char *line)
{
    char vg[128], lv[128], kind[16], name[128], uuid[129], dev_dir[256];
    if (strncmp(line, "watch ", 6) != 0)
        return false;
    if (sscanf(line + 6, "%127s %127s %15s %127s %128s %255s", vg, lv, kind, name, uuid,
               dev_dir) != 6 || lvxd_watch_kind_of(kind) == LVXD_WATCH_NONE ||
        add(ctx, vg, lv, lvxd_watch_kind_of(kind), name, uuid, dev_dir, false) < 0) {
        lvxd_log("warning: not watching again: %s", line);
        lvx_error_clear(ctx);
    }
    return true;
}
