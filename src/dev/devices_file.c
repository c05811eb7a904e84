/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/devices_file.c - LVM2's devices file: text, device IDs, matching (see
 * devices_file.h).
 */
#include "dev/devices_file.h"
#include "util/buf.h"
#include "util/file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DF_MAX_BYTES (64u << 20)   /* a devices file of a million devices is under this */

/* ---- text ----------------------------------------------------------------------------- */

/* The value of KEY= in a line of space-separated KEY=VALUE words, "." and empty as NULL. */
static const char *word_value(struct lvx_pool *pool, const char *line, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = line; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *end = p;
        while (*end && *end != ' ' && *end != '\t')
            end++;
        if ((size_t)(end - p) > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            const char *v = p + klen + 1;
            if (v == end || (end - v == 1 && *v == '.'))
                return NULL;
            return lvx_pool_strndup(pool, v, (size_t)(end - v));
        }
        p = end;
    }
    return NULL;
}

static void add_entry(struct lvx_pool *pool, struct lvx_devices_file *df, struct lvx_df_entry e)
{
    df->entries = lvx_pool_realloc(pool, df->entries, df->count * sizeof(*df->entries),
                                   (df->count + 1) * sizeof(*df->entries));
    df->entries[df->count++] = e;
}

int lvx_devices_file_read(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *path,
                          struct lvx_devices_file *df)
{
    memset(df, 0, sizeof(*df));
    df->path = lvx_pool_strdup(pool, path);
    struct stat st;
    if (stat(path, &st) < 0) {
        if (errno == ENOENT)
            return 0;
        return lvx_error(ctx, errno, "Cannot open devices file to read.");
    }
    size_t len = 0;
    char *text = lvx_pool_read_file(ctx, pool, path, DF_MAX_BYTES, &len);
    if (!text)
        return ctx && ctx->err ? ctx->err : -EIO;
    df->exists = true;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (line[0] == '#') {
            ;
        } else if (strncmp(line, "SYSTEMID", 8) == 0) {
            df->systemid = word_value(pool, line, "SYSTEMID");
        } else if (strncmp(line, "VERSION", 7) == 0) {
            const char *v = word_value(pool, line, "VERSION");
            snprintf(df->version, sizeof(df->version), "%s", v ? v : "");
        } else {
            struct lvx_df_entry e = { 0 };
            bool has_type = strstr(line, "IDTYPE=") != NULL, has_name = strstr(line, "IDNAME=");
            if (has_type && has_name) {      /* LVM2 needs both, ignores other lines */
                e.idtype = word_value(pool, line, "IDTYPE");
                e.idname = word_value(pool, line, "IDNAME");
                e.devname = word_value(pool, line, "DEVNAME");
                e.pvid = word_value(pool, line, "PVID");
                const char *part = word_value(pool, line, "PART");
                e.part = part ? atoi(part) : 0;
                add_entry(pool, df, e);
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    return 0;
}

static int make_dir_of(struct lvx_ctx *ctx, const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return lvx_error(ctx, errno, "Failed to create %s: %s", dir, strerror(errno));
    return 0;
}

int lvx_devices_file_touch(struct lvx_ctx *ctx, struct lvx_devices_file *df)
{
    int r = make_dir_of(ctx, df->path);
    if (r < 0)
        return r;
    int fd = open(df->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return lvx_error(ctx, errno, "Failed to create the devices file.");
    close(fd);
    df->exists = true;
    return 0;
}

int lvx_devices_file_write(struct lvx_ctx *ctx, struct lvx_devices_file *df,
                           const char *cmdname)
{
    unsigned major = 0, minor = 0, counter = 0;
    if (df->version[0]) {
        char extra;
        if (sscanf(df->version, "%u.%u.%u%c", &major, &minor, &counter, &extra) != 3) {
            lvx_warn(ctx, "WARNING: not updating devices file with unparsed version.");
            return lvx_error(ctx, EPERM, "devices file version %s not understood", df->version);
        }
        if (major > 1) {
            lvx_warn(ctx, "WARNING: not updating devices file with larger major version.");
            return lvx_error(ctx, EPERM, "devices file version %s is newer", df->version);
        }
    }
    int r = make_dir_of(ctx, df->path);
    if (r < 0)
        return r;

    struct lvx_buf b = LVX_BUF_INIT;
    time_t now = time(NULL);
    char when[64];
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);   /* as ctime() */
    lvx_buf_puts(&b, "# LVM uses devices listed in this file.\n");
    lvx_buf_printf(&b, "# Created by LVM command %s pid %d at %s\n", cmdname, (int)getpid(), when);
    if (df->systemid)
        lvx_buf_printf(&b, "SYSTEMID=%s\n", df->systemid);
    snprintf(df->version, sizeof(df->version), "1.1.%u", counter + 1);
    lvx_buf_printf(&b, "VERSION=%s\n", df->version);
    for (unsigned i = 0; i < df->count; i++) {
        const struct lvx_df_entry *e = &df->entries[i];
        const char *devname = e->dev ? e->dev->path : e->devname;
        if (!devname || devname[0] != '/')
            devname = ".";
        lvx_buf_printf(&b, "IDTYPE=%s IDNAME=%s DEVNAME=%s PVID=%s", e->idtype ? e->idtype : ".",
                       e->idname ? e->idname : ".", devname, e->pvid ? e->pvid : ".");
        if (e->part)
            lvx_buf_printf(&b, " PART=%d", e->part);
        lvx_buf_putc(&b, '\n');
    }

    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof(tmp), "%s_new", df->path);
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        lvx_buf_free(&b);
        return lvx_error(ctx, errno, "Cannot open tmp devices_file to write.");
    }
    size_t off = 0;
    while (off < b.len) {
        ssize_t w = write(fd, b.data + off, b.len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            unlink(tmp);
            lvx_buf_free(&b);
            return lvx_error(ctx, e, "Failed to write devices file: %s", strerror(e));
        }
        off += (size_t)w;
    }
    lvx_buf_free(&b);
    if (fsync(fd) < 0 || close(fd) < 0) {
        int e = errno;
        unlink(tmp);
        return lvx_error(ctx, e, "Failed to write devices file: %s", strerror(e));
    }
    if (rename(tmp, df->path) < 0) {
        int e = errno;
        unlink(tmp);
        return lvx_error(ctx, e, "Failed to replace devices file errno %d", e);
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", df->path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
    }
    df->exists = true;
    return 0;
}

/* ---- device IDs ----------------------------------------------------------------------- */

/* /sys/dev/block/MAJ:MIN/suffix of dev, or of the disk it is a partition of when the
 * partition has none (as LVM2 reads them); the value's first line, "" when absent. */
static void sys_value(const struct lvx_dev *dev, const char *suffix, char *out, size_t size)
{
    char path[PATH_MAX];
    out[0] = '\0';
    snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", dev->major, dev->minor, suffix);
    for (int tries = 0; tries < 2; tries++) {
        FILE *f = fopen(path, "re");
        if (f) {
            if (!fgets(out, (int)size, f))
                out[0] = '\0';
            fclose(f);
            out[strcspn(out, "\n")] = '\0';
            if (out[0])
                return;
        }
        /* a partition: the whole disk's directory is its parent */
        char part[PATH_MAX];
        snprintf(part, sizeof(part), "/sys/dev/block/%u:%u/partition", dev->major, dev->minor);
        if (tries || access(part, F_OK) != 0)
            return;
        snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../%s", dev->major, dev->minor, suffix);
    }
}

static bool has_prefix(const char *uuid, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(uuid, prefix, n) == 0)
        return true;
    const char *dash = strncmp(uuid, "part", 4) == 0 ? strchr(uuid, '-') : NULL;  /* kpartx */
    return dash && strncmp(dash + 1, prefix, n) == 0;
}

const char *lvx_dev_id_read(struct lvx_pool *pool, const struct lvx_dev *dev, const char *idtype)
{
    char v[PATH_MAX];
    v[0] = '\0';
    if (!idtype || dev->is_file)
        return NULL;
    if (strcmp(idtype, "devname") == 0)
        return lvx_pool_strdup(pool, dev->path);
    if (strcmp(idtype, "sys_wwid") == 0) {
        sys_value(dev, "device/wwid", v, sizeof(v));
        if (!v[0])
            sys_value(dev, "wwid", v, sizeof(v));
        if (strstr(v, "QEMU HARDDISK"))
            v[0] = '\0';
    } else if (strcmp(idtype, "sys_serial") == 0) {
        sys_value(dev, "device/serial", v, sizeof(v));
    } else if (strcmp(idtype, "mpath_uuid") == 0 || strcmp(idtype, "crypt_uuid") == 0 ||
               strcmp(idtype, "lvmlv_uuid") == 0) {
        sys_value(dev, "dm/uuid", v, sizeof(v));
    } else if (strcmp(idtype, "md_uuid") == 0) {
        sys_value(dev, "md/uuid", v, sizeof(v));
    } else if (strcmp(idtype, "loop_file") == 0) {
        sys_value(dev, "loop/backing_file", v, sizeof(v));
        if (strstr(v, "(deleted)"))
            v[0] = '\0';
    }
    for (char *p = v; *p; p++)
        if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p))
            *p = '_';
    return v[0] ? lvx_pool_strdup(pool, v) : NULL;
}

static bool sys_exists(const struct lvx_dev *dev, const char *suffix)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", dev->major, dev->minor, suffix);
    return access(path, F_OK) == 0;
}

void lvx_dev_id_choose(struct lvx_pool *pool, const struct lvx_dev *dev, const char **idtype,
                       const char **idname, int *part)
{
    char v[64];
    *part = 0;
    sys_value(dev, "partition", v, sizeof(v));
    if (v[0] && sys_exists(dev, "partition"))
        *part = atoi(v);
    const char *type = NULL, *name = NULL;
    if (sys_exists(dev, "dm")) {
        char uuid[PATH_MAX];
        sys_value(dev, "dm/uuid", uuid, sizeof(uuid));
        type = has_prefix(uuid, "mpath-") ? "mpath_uuid" : has_prefix(uuid, "CRYPT-") ? "crypt_uuid"
             : has_prefix(uuid, "LVM-") ? "lvmlv_uuid" : NULL;
        if (type)
            name = lvx_dev_id_read(pool, dev, type);
    }
    if (!name && sys_exists(dev, "loop"))
        name = lvx_dev_id_read(pool, dev, type = "loop_file");
    else if (!name && sys_exists(dev, "md"))
        name = lvx_dev_id_read(pool, dev, type = "md_uuid");
    if (!name)
        name = lvx_dev_id_read(pool, dev, type = "sys_wwid");
    if (!name)
        name = lvx_dev_id_read(pool, dev, type = "sys_serial");
    if (!name)
        name = lvx_dev_id_read(pool, dev, type = "devname");
    *idtype = type;
    *idname = name;
}

/* ---- entries and devices -------------------------------------------------------------- */

static bool entry_matches(struct lvx_pool *pool, const struct lvx_df_entry *e,
                          const struct lvx_dev *dev)
{
    if (!e->idtype || !e->idname || dev->is_file)
        return false;
    if (strcmp(e->idtype, "devname") == 0)
        return strcmp(e->idname, dev->path) == 0;
    const char *id = lvx_dev_id_read(pool, dev, e->idtype);
    if (!id || strcmp(id, e->idname) != 0)
        return false;
    char v[64];
    int part = 0;
    if (sys_exists(dev, "partition")) {
        sys_value(dev, "partition", v, sizeof(v));
        part = atoi(v);
    }
    return part == e->part;
}

static bool dev_taken(const struct lvx_devices_file *df, const struct lvx_dev *dev)
{
    for (unsigned i = 0; i < df->count; i++)
        if (df->entries[i].dev == dev)
            return true;
    return false;
}

void lvx_devices_file_match(struct lvx_pool *pool, struct lvx_devices_file *df,
                            const struct lvx_devlist *devs)
{
    for (unsigned i = 0; i < df->count; i++) {
        struct lvx_df_entry *e = &df->entries[i];
        e->dev = NULL;
        /* the device last seen first: the usual case costs one sysfs read */
        for (unsigned d = 0; d < devs->count && e->devname; d++) {
            if (strcmp(devs->devs[d]->path, e->devname) == 0 && !dev_taken(df, devs->devs[d]) &&
                entry_matches(pool, e, devs->devs[d])) {
                e->dev = devs->devs[d];
                break;
            }
        }
        for (unsigned d = 0; d < devs->count && !e->dev; d++)
            if (!dev_taken(df, devs->devs[d]) && entry_matches(pool, e, devs->devs[d]))
                e->dev = devs->devs[d];
    }
}

struct lvx_df_entry *lvx_devices_file_for_dev(struct lvx_devices_file *df,
                                              const struct lvx_dev *dev)
{
    for (unsigned i = 0; i < df->count; i++)
        if (df->entries[i].dev == dev)
            return &df->entries[i];
    return NULL;
}

struct lvx_df_entry *lvx_devices_file_for_pvid(struct lvx_devices_file *df, const char *pvid)
{
    for (unsigned i = 0; i < df->count; i++)
        if (df->entries[i].pvid && strncmp(df->entries[i].pvid, pvid, 32) == 0)
            return &df->entries[i];
    return NULL;
}

struct lvx_df_entry *lvx_devices_file_for_devname(struct lvx_devices_file *df,
                                                  const char *devname)
{
    for (unsigned i = 0; i < df->count; i++)
        if (df->entries[i].devname && strcmp(df->entries[i].devname, devname) == 0)
            return &df->entries[i];
    return NULL;
}

void lvx_devices_file_remove(struct lvx_devices_file *df, struct lvx_df_entry *e)
{
    size_t at = (size_t)(e - df->entries);
    memmove(&df->entries[at], &df->entries[at + 1], (df->count - at - 1) * sizeof(*e));
    df->count--;
}

static const char *const id_types[] = { "sys_wwid", "sys_serial", "devname", "mpath_uuid",
                                        "crypt_uuid", "lvmlv_uuid", "md_uuid", "loop_file" };

struct lvx_df_entry *lvx_devices_file_add(struct lvx_pool *pool, struct lvx_devices_file *df,
                                          struct lvx_dev *dev, const char *pvid,
                                          const char *idtype, const char **why)
{
    struct lvx_df_entry e = { .dev = dev, .devname = dev->path };
    lvx_dev_id_choose(pool, dev, &e.idtype, &e.idname, &e.part);
    *why = NULL;
    if (idtype) {
        bool known = false;
        for (size_t i = 0; i < sizeof(id_types) / sizeof(id_types[0]); i++)
            known |= strcmp(id_types[i], idtype) == 0;
        const char *name = known ? lvx_dev_id_read(pool, dev, idtype) : NULL;
        if (!known)
            *why = lvx_pool_printf(pool, "WARNING: ignoring unknown device_id type %s.", idtype);
        else if (!name)
            *why = lvx_pool_printf(pool, "WARNING: ignoring deviceidtype %s which is not "
                                   "available for device.", idtype);
        else {
            e.idtype = lvx_pool_strdup(pool, idtype);
            e.idname = name;
        }
    }
    e.pvid = pvid && pvid[0] ? lvx_pool_strndup(pool, pvid, 32) : NULL;
    struct lvx_df_entry *old = lvx_devices_file_for_dev(df, dev);
    for (unsigned i = 0; !old && i < df->count; i++) {
        const struct lvx_df_entry *o = &df->entries[i];
        if (o->idtype && o->idname && strcmp(o->idtype, e.idtype) == 0 &&
            strcmp(o->idname, e.idname) == 0 && o->part == e.part && !o->dev)
            old = &df->entries[i];
    }
    if (old)
        lvx_devices_file_remove(df, old);
    add_entry(pool, df, e);
    return &df->entries[df->count - 1];
}

const char *lvx_devices_file_not_found(struct lvx_pool *pool, const struct lvx_df_entry *e)
{
    const char *pvid = e->pvid ? e->pvid : "none";
    if (e->idtype && strcmp(e->idtype, "devname") == 0)
        return e->devname ? lvx_pool_printf(pool, "Devices file PVID %s last seen on %s not found.",
                                            pvid, e->devname)
                          : lvx_pool_printf(pool, "Devices file PVID %s not found.", pvid);
    const char *type = e->idtype ? e->idtype : "unknown", *name = e->idname ? e->idname : "none";
    return e->devname ? lvx_pool_printf(pool, "Devices file %s %s PVID %s last seen on %s not found.",
                                        type, name, pvid, e->devname)
                      : lvx_pool_printf(pool, "Devices file %s %s PVID %s not found.", type, name,
                                        pvid);
}
