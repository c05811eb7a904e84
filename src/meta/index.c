/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/index.c - the persistent device index (see index.h): load and check it, scan
 * only the devices of the named VGs, fall back to a full scan, rebuild it.
 *
 * Entry points: lvx_index_scan(), lvx_index_listed_devices(), lvx_index_vgs_whole(),
 * lvx_index_update(), lvx_index_update_vg(), lvx_index_hash_devices(), lvx_index_path().
 */
#include "meta/index.h"
#include "config/config.h"
#include "util/buf.h"
#include "util/file.h"
#include "util/privdir.h"
#include "util/run_dir.h"
#include "util/phase.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define INDEX_MAGIC "lvx-index 1"

struct index_entry {
    uint32_t major, minor;
    char pv_uuid[LVX_UUID_LEN + 1];
    char vg_uuid[LVX_UUID_LEN + 1];     /* "" for an orphan */
    char vg_name[128];                  /* "" for an orphan */
};

struct index_file {
    uint64_t devs_hash;
    unsigned count;
    struct index_entry *entries;        /* sorted by device number */
    uint64_t list_key;                  /* lvx_scan_list_key_hash() the list was made under */
    struct lvx_devlist list;            /* that system device list ("dev" lines), or empty */
};

static bool index_disabled(void)
{
    const char *v = getenv("LVX_INDEX");
    return v && strcmp(v, "0") == 0;
}

/* Nobody else can change the index's directory (the run directory, util/privdir.h;
 * the index itself is 0600): an index where others could plant files or symlinks is
 * neither read nor written. */
static bool index_dir_private(bool create)
{
    struct lvx_ctx tmp;
    lvx_ctx_init(&tmp);
    return lvx_privdir_check(&tmp, "index directory", lvx_run_dir(),
                             LVX_PRIVDIR_ENTERABLE | (create ? LVX_PRIVDIR_CREATE : 0)) == 0;
}

/* ---- hashing, path ------------------------------------------------------------- */

static uint64_t fnv_add(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t lvx_index_hash_devices(const struct lvx_devlist *devs)
{
    uint64_t h = 14695981039346656037ull;
    for (unsigned i = 0; i < devs->count; i++) {
        const struct lvx_dev *d = devs->devs[i];
        uint64_t nums[3] = { d->major, d->minor, d->size / 1024 };
        h = fnv_add(h, d->path, strlen(d->path) + 1);
        h = fnv_add(h, nums, sizeof(nums));
    }
    return h;
}

const char *lvx_index_path(void)
{
    static _Thread_local char path[4200];
    const char *dir = lvx_run_dir();
    const char *sysdir = getenv("LVM_SYSTEM_DIR");
    if (sysdir && *sysdir)
        snprintf(path, sizeof(path), "%s/index-%016" PRIx64, dir,
                 fnv_add(14695981039346656037ull, sysdir, strlen(sysdir)));
    else
        snprintf(path, sizeof(path), "%s/index", dir);
    return path;
}

/* ---- reading the file ------------------------------------------------------------- */

static int entry_cmp(const void *a, const void *b)
{
    const struct index_entry *x = a, *y = b;
    if (x->major != y->major)
        return x->major < y->major ? -1 : 1;
    return x->minor < y->minor ? -1 : x->minor > y->minor;
}

/* Next space-separated token of *p (NUL-terminated in place), or NULL. */
static char *next_token(char **p)
{
    char *s = *p;
    while (*s == ' ')
        s++;
    if (!*s)
        return NULL;
    char *t = s;
    while (*s && *s != ' ')
        s++;
    if (*s)
        *s++ = '\0';
    *p = s;
    return t;
}

static bool parse_number(const char *s, char stop, const char **end, uint32_t *out)
{
    uint64_t v = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9' && v <= UINT32_MAX)
        v = v * 10 + (uint64_t)(*p++ - '0');
    if (p == s || *p != stop || v > UINT32_MAX)
        return false;
    *end = p;
    *out = (uint32_t)v;
    return true;
}

/* "pv MAJ:MIN PV_UUID VG_UUID|- VG_NAME|-" (tokenized in place; sscanf costs ~2 us a
 * line, a thousand-PV index would spend milliseconds in it). */
static bool parse_entry(char *line, struct index_entry *e)
{
    memset(e, 0, sizeof(*e));
    char *p = line;
    char *kw = next_token(&p), *num = next_token(&p), *pv = next_token(&p);
    char *vg_uuid = next_token(&p), *vg_name = next_token(&p);
    const char *end;
    if (!vg_name || next_token(&p) || strcmp(kw, "pv") != 0 ||
        !parse_number(num, ':', &end, &e->major) || !parse_number(end + 1, '\0', &end, &e->minor) ||
        strlen(pv) != LVX_UUID_LEN)
        return false;
    memcpy(e->pv_uuid, pv, LVX_UUID_LEN + 1);
    if (strcmp(vg_uuid, "-") != 0) {
        size_t n = strlen(vg_name);
        if (strlen(vg_uuid) != LVX_UUID_LEN || n >= sizeof(e->vg_name))
            return false;
        memcpy(e->vg_uuid, vg_uuid, LVX_UUID_LEN + 1);
        memcpy(e->vg_name, vg_name, n + 1);
    }
    return true;
}

/* "dev MAJ:MIN KIB LINK PATH" (LINK 0 or 1; PATH the rest of the line). */
static bool parse_dev(struct lvx_pool *pool, char *line, struct lvx_devlist *list, unsigned *cap)
{
    char *p = line + 4;
    uint32_t maj, min;
    const char *end;
    if (!parse_number(p, ':', &end, &maj) || !parse_number(end + 1, ' ', &end, &min))
        return false;
    uint64_t kib = 0;
    for (p = (char *)end + 1; *p >= '0' && *p <= '9'; p++)
        kib = kib * 10 + (uint64_t)(*p - '0');
    if (*p != ' ' || (p[1] != '0' && p[1] != '1') || p[2] != ' ' || p[3] != '/')
        return false;
    if (list->count == *cap) {
        unsigned ncap = *cap ? *cap * 2 : 64;
        list->devs = lvx_pool_realloc(pool, list->devs, *cap * sizeof(*list->devs),
                                      ncap * sizeof(*list->devs));
        *cap = ncap;
    }
    list->devs[list->count++] = lvx_dev_new_listed(pool, p + 3, maj, min, kib * 1024, p[1] == '1');
    return true;
}

/* The index of this configuration, or false (missing or malformed). */
static bool load_index(struct lvx_pool *pool, struct index_file *out)
{
    size_t len;
    if (!index_dir_private(false))
        return false;
    char *text = lvx_pool_read_file(NULL, pool, lvx_index_path(), LVX_FILE_MAX_INDEX, &len);
    if (!text)
        return false;
    memset(out, 0, sizeof(*out));
    unsigned cap = 0, list_cap = 0;
    bool ok = strncmp(text, INDEX_MAGIC "\n", sizeof(INDEX_MAGIC)) == 0;
    bool have_hash = false;
    for (char *line = text, *next; ok && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (line == text)
            continue;
        if (strncmp(line, "devices ", 8) == 0) {
            ok = sscanf(line + 8, "%" SCNx64, &out->devs_hash) == 1;
            have_hash = true;
            continue;
        }
        if (strncmp(line, "listkey ", 8) == 0) {
            ok = sscanf(line + 8, "%" SCNx64, &out->list_key) == 1;
            continue;
        }
        if (strncmp(line, "dev ", 4) == 0) {
            ok = parse_dev(pool, line, &out->list, &list_cap);
            continue;
        }
        if (out->count == cap) {
            unsigned ncap = cap ? cap * 2 : 64;
            out->entries = lvx_pool_realloc(pool, out->entries, cap * sizeof(*out->entries),
                                            ncap * sizeof(*out->entries));
            cap = ncap;
        }
        ok = parse_entry(line, &out->entries[out->count]);
        out->count += ok;
    }
    if (!ok || !have_hash)
        return false;
    if (out->count)           /* an index of devices only has no entries (NULL) */
        qsort(out->entries, out->count, sizeof(*out->entries), entry_cmp);
    return true;
}

static const struct index_entry *find_entry(const struct index_file *idx, uint32_t major,
                                            uint32_t minor)
{
    struct index_entry key = { .major = major, .minor = minor };
    return idx->count ? bsearch(&key, idx->entries, idx->count, sizeof(key), entry_cmp) : NULL;
}

/* The VGs a command names, each as given and as a raw UUID ("" when it is not one). */
struct named_vgs {
    const char *const *names;
    unsigned count;
    char (*uuids)[LVX_UUID_LEN + 1];
};

static void named_vgs_init(struct named_vgs *nv, struct lvx_pool *pool, const char *const *names,
                           unsigned count)
{
    nv->names = names;
    nv->count = count;
    nv->uuids = lvx_pool_alloc(pool, (count + 1) * sizeof(*nv->uuids));
    for (unsigned i = 0; i < count; i++)
        if (lvx_uuid_parse(names[i], nv->uuids[i]) < 0)
            nv->uuids[i][0] = '\0';
}

/* Does the entry belong to one of the VGs named (by name or UUID)? */
static bool entry_named(const struct index_entry *e, const struct named_vgs *nv)
{
    if (!e->vg_uuid[0])
        return false;
    for (unsigned i = 0; i < nv->count; i++)
        if (strcmp(e->vg_name, nv->names[i]) == 0 ||
            (nv->uuids[i][0] && strcmp(nv->uuids[i], e->vg_uuid) == 0))
            return true;
    return false;
}

/* ---- the narrowed scan ------------------------------------------------------------- */

static int stale(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *why)
{
    lvx_debug(ctx, "Device index %s: %s; reading every device", lvx_index_path(), why);
    if (pool)
        lvx_pool_destroy(pool);
    return -ESTALE;
}

/* The listed device a name the command gave is (its path, else its device number), or
 * NULL. */
static struct lvx_dev *find_listed(const struct lvx_devlist *list, const char *name)
{
    for (unsigned i = 0; i < list->count; i++)
        if (strcmp(list->devs[i]->path, name) == 0)
            return list->devs[i];
    struct stat st;
    if (stat(name, &st) < 0 || !S_ISBLK(st.st_mode))
        return NULL;
    for (unsigned i = 0; i < list->count; i++)
        if (list->devs[i]->major == major(st.st_rdev) && list->devs[i]->minor == minor(st.st_rdev))
            return list->devs[i];
    return NULL;
}

/* Is a PV provably an orphan from its own device: no "used" flag and a metadata area
 * in use holding no VG text (a member of a VG whose areas are all ignored, or that has
 * none, is told only by the other PVs' metadata: not provable here). */
static bool provably_orphan(const struct lvx_scan_pv *pv)
{
    if (pv->label.ext_flags & LVX_PV_EXT_USED)
        return false;
    bool in_use = false;
    for (unsigned i = 0; i < pv->mda_count; i++) {
        const struct lvx_scan_mda *m = &pv->mda[i];
        if (!m->hdr_valid || m->bad || m->text || m->vg_name[0])
            return false;
        in_use |= !m->ignored;
    }
    return in_use;
}

/* Every chosen device of the VGs must carry a label with the PV UUID the index recorded;
 * a device named besides them (`also`: the command's own list) either carries no label
 * and has no entry, or carries a PV that is provably an orphan on the device and not
 * recorded otherwise (no entry: labelled since the index was written, e.g. by pvcreate;
 * or an orphan entry of the same PV). */
static bool labels_match(const struct lvx_scan *scan, const struct index_file *idx,
                         const struct lvx_devlist *also)
{
    unsigned labelled_also = 0;
    for (unsigned i = 0; i < scan->pv_count; i++) {
        const struct lvx_scan_pv *pv = &scan->pvs[i];
        const struct index_entry *e = find_entry(idx, pv->dev->major, pv->dev->minor);
        bool named = false;
        for (unsigned a = 0; a < also->count && !named; a++)
            named = also->devs[a] == pv->dev;
        if (named) {
            if ((e && (e->vg_uuid[0] || strcmp(e->pv_uuid, pv->label.pv_uuid) != 0)) ||
                !provably_orphan(pv))
                return false;
            labelled_also++;
        } else if (!e || strcmp(e->pv_uuid, pv->label.pv_uuid) != 0) {
            return false;
        }
    }
    /* the others: every VG device has its label (counted above), no named one lost its */
    unsigned unlabelled = 0;
    for (unsigned a = 0; a < also->count; a++) {
        bool has_label = false;
        for (unsigned i = 0; i < scan->pv_count && !has_label; i++)
            has_label = scan->pvs[i].dev == also->devs[a];
        if (!has_label) {
            if (find_entry(idx, also->devs[a]->major, also->devs[a]->minor))
                return false;
            unlabelled++;
        }
    }
    return scan->pv_count + unlabelled == scan->devs.count && labelled_also + unlabelled ==
           also->count;
}

/* Does lvm.conf (or --devicesfile) ask for a devices file that exists? */
static bool devices_file_on(struct lvx_ctx *ctx, struct lvx_pool *pool)
{
    struct lvx_config *cfg = NULL;
    bool on = false;
    const char *path;
    if (lvx_config_load(ctx, &cfg) == 0 && (path = lvx_config_devices_file(ctx, cfg, pool)))
        on = access(path, F_OK) == 0;
    lvx_error_clear(ctx);
    lvx_config_free(cfg);
    return on;
}

int lvx_index_listed_devices(struct lvx_ctx *ctx, struct lvx_pool *pool, uint64_t key,
                             struct lvx_devlist *out)
{
    struct index_file idx;
    if (index_disabled() || devices_file_on(ctx, pool) || !load_index(pool, &idx) ||
        idx.list_key != key || idx.list.count == 0)
        return -ESTALE;
    lvx_debug(ctx, "Device index: using the %u devices listed under the same key", idx.list.count);
    *out = idx.list;
    return 0;
}

static int lvx_index_scan_unt(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts, struct lvx_scan **out)
{
    *out = NULL;
    if (index_disabled())
        return -ESTALE;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_scan_opts all = *opts;
    all.vg_names = NULL;
    all.vg_name_count = 0;
    uint64_t key = lvx_scan_list_key_hash(ctx);    /* before any listing: meta/scan.h */
    /* with a devices file every device it lists is read, as LVM2 does: its warnings
     * and the check of its PVIDs against the labels (meta/devfile_check.c) are due
     * for every command */
    if (devices_file_on(ctx, pool))
        return stale(ctx, pool, "a devices file is in use");
    struct index_file idx;
    if (!load_index(pool, &idx))
        return stale(ctx, pool, "missing or unreadable");
    struct lvx_devlist list = idx.list;
    int rc = 0;
    if (idx.list_key == key && list.count)
        lvx_debug(ctx, "Device index: using the %u devices listed under the same key", list.count);
    else
        rc = lvx_scan_list_devices(ctx, &all, pool, &list);
    if (rc < 0) {
        lvx_pool_destroy(pool);
        return rc;
    }
    if (idx.devs_hash != lvx_index_hash_devices(&list))
        return stale(ctx, pool, "the device list changed");
    struct lvx_devlist chosen = { 0, lvx_pool_alloc(pool, (list.count + 1) * sizeof(*list.devs)) };
    struct lvx_devlist also = { 0, lvx_pool_alloc(pool, (opts->also_count + 1) * sizeof(*list.devs)) };
    struct named_vgs nv;
    named_vgs_init(&nv, pool, opts->vg_names, opts->vg_name_count);
    for (unsigned i = 0; i < list.count; i++) {
        const struct index_entry *e = find_entry(&idx, list.devs[i]->major, list.devs[i]->minor);
        if (e && entry_named(e, &nv))
            chosen.devs[chosen.count++] = list.devs[i];
    }
    if (chosen.count == 0)
        return stale(ctx, pool, "no device of the volume group(s) named");
    unsigned vg_devs = chosen.count;
    for (unsigned a = 0; a < opts->also_count; a++) {
        struct lvx_dev *d = find_listed(&list, opts->also_devices[a]);
        if (!d)
            return stale(ctx, pool, "a device named is not in the device list");
        bool dup = false;
        for (unsigned i = 0; i < chosen.count && !dup; i++)
            dup = chosen.devs[i] == d;
        if (!dup) {                    /* one of the VG's own devices stays one of them */
            chosen.devs[chosen.count++] = d;
            also.devs[also.count++] = d;
        }
    }
    struct lvx_scan *scan;
    if ((rc = lvx_scan_devices(ctx, pool, &chosen, false, &scan)) < 0)
        return rc;
    if (!labels_match(scan, &idx, &also)) {
        lvx_scan_release(scan);
        return stale(ctx, NULL, "a device no longer carries the PV it recorded, or a device "
                     "named is not provably an orphan");
    }
    lvx_debug(ctx, "Device index: reading %u of %u devices (%u named)", chosen.count, list.count,
              chosen.count - vg_devs);
    lvx_scan_origin(scan)->narrowed = true;
    scan->origin->devs_hash = idx.devs_hash;     /* for update_narrowed() */
    *out = scan;
    return 0;
}

int lvx_index_scan(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts, struct lvx_scan **out)
{
    uint64_t t = lvx_phase_start();
    int rc = lvx_index_scan_unt(ctx, opts, out);
    lvx_phase_end("index.scan", t);
    return rc;
}

bool lvx_index_vgs_whole(const struct lvx_vgset *set, const char *const *names, unsigned count)
{
    for (unsigned i = 0; i < count; i++) {
        const struct lvx_vg *vg = lvx_vgset_find(set, names[i]);
        if (!vg)
            return false;
        for (unsigned p = 0; p < vg->pv_count; p++)
            if (!vg->pvs[p]->ondisk.present)
                return false;
    }
    return true;
}

/* ---- rebuilding ------------------------------------------------------------------------- */

/* Device number -> VG of the present PVs of the assembled VGs, sorted for bsearch. */
struct dev_vg {
    uint32_t major, minor;
    const struct lvx_vg *vg;
};

static int dev_vg_cmp(const void *a, const void *b)
{
    const struct dev_vg *x = a, *y = b;
    if (x->major != y->major)
        return x->major < y->major ? -1 : 1;
    return x->minor < y->minor ? -1 : x->minor > y->minor;
}

static int str_ptr_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool has_duplicate_pvs(const struct lvx_scan *scan)
{
    const char **u = lvx_xcalloc(scan->pv_count + 1, sizeof(*u));
    for (unsigned i = 0; i < scan->pv_count; i++)
        u[i] = scan->pvs[i].label.pv_uuid;
    qsort(u, scan->pv_count, sizeof(*u), str_ptr_cmp);
    bool dup = false;
    for (unsigned i = 1; i < scan->pv_count && !dup; i++)
        dup = strcmp(u[i - 1], u[i]) == 0;
    free(u);
    return dup;
}

/* The VGs of the set, with `changed` (just committed) in place of the set's VG of the
 * same UUID, or added. */
static void add_vg_devices(struct dev_vg *map, unsigned *n, const struct lvx_vg *vg)
{
    for (unsigned p = 0; p < vg->pv_count; p++) {
        const struct lvx_pv *pv = vg->pvs[p];
        if (pv->ondisk.present)
            map[(*n)++] = (struct dev_vg){ pv->ondisk.dev_major, pv->ondisk.dev_minor, vg };
    }
}

/* The system device list and the key it was made under, so that the next command
 * with the same key (no uevent, same lvm.conf and --config) need not list again.
 * Left out when a path could not be read back (a space or newline in it). */
static void render_list(const struct lvx_scan *scan, struct lvx_buf *b)
{
    if (!scan->origin->list_key_hash)
        return;
    for (unsigned i = 0; i < scan->devs.count; i++) {
        const struct lvx_dev *d = scan->devs.devs[i];
        if (d->is_file || d->path[0] != '/' || strpbrk(d->path, " \n"))
            return;
    }
    lvx_buf_printf(b, "listkey %016" PRIx64 "\n", scan->origin->list_key_hash);
    for (unsigned i = 0; i < scan->devs.count; i++) {
        const struct lvx_dev *d = scan->devs.devs[i];
        lvx_buf_printf(b, "dev %u:%u %" PRIu64 " %d %s\n", d->major, d->minor, d->size / 1024,
                       d->is_link ? 1 : 0, d->path);
    }
}

static void render_index(const struct lvx_scan *scan, const struct lvx_vgset *set,
                         const struct lvx_vg *changed, struct lvx_buf *b)
{
    unsigned n = 0, cap = changed ? changed->pv_count : 0;
    for (unsigned v = 0; v < set->vg_count; v++)
        cap += set->vgs[v]->pv_count;
    struct dev_vg *map = lvx_xcalloc(cap + 1, sizeof(*map));
    for (unsigned v = 0; v < set->vg_count; v++)
        if (!changed || strcmp(set->vgs[v]->uuid, changed->uuid) != 0)
            add_vg_devices(map, &n, set->vgs[v]);
    if (changed)
        add_vg_devices(map, &n, changed);
    qsort(map, n, sizeof(*map), dev_vg_cmp);
    lvx_buf_printf(b, "%s\ndevices %016" PRIx64 "\n", INDEX_MAGIC, scan->origin->devs_hash);
    render_list(scan, b);
    for (unsigned i = 0; i < scan->pv_count; i++) {
        const struct lvx_scan_pv *spv = &scan->pvs[i];
        if (spv->dev->is_file)
            continue;
        struct dev_vg key = { spv->dev->major, spv->dev->minor, NULL };
        const struct dev_vg *hit = bsearch(&key, map, n, sizeof(key), dev_vg_cmp);
        const struct lvx_vg *vg = hit ? hit->vg : NULL;
        lvx_buf_printf(b, "pv %u:%u %s %s %s\n", spv->dev->major, spv->dev->minor,
                       spv->label.pv_uuid, vg ? vg->uuid : "-", vg ? vg->name : "-");
    }
    free(map);
}

static void write_index(const char *path, const struct lvx_buf *b)
{
    if (!index_dir_private(true))
        return;
    char tmp[4300];
    snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    bool ok = write(fd, b->data, b->len) == (ssize_t)b->len;
    close(fd);
    if (!ok || rename(tmp, path) < 0)
        unlink(tmp);
}

void lvx_index_update(struct lvx_ctx *ctx, const struct lvx_scan *scan, const struct lvx_vgset *set)
{
    lvx_index_update_vg(ctx, scan, set, NULL);
}

/* After a commit on a narrowed scan (the VG's devices and the devices the command
 * named): the entries of the devices read are replaced, the others kept, in the index
 * the scan was narrowed by (same device list; anything else: left alone). */
static void update_narrowed(struct lvx_ctx *ctx, const struct lvx_scan *scan,
                            const struct lvx_vgset *set, const struct lvx_vg *changed)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct index_file idx;
    if (!load_index(pool, &idx) || idx.devs_hash != scan->origin->devs_hash) {
        lvx_pool_destroy(pool);
        return;
    }
    struct lvx_buf fresh = LVX_BUF_INIT;
    struct lvx_scan_origin o = *scan->origin;
    o.list_key_hash = 0;                /* the "dev" lines are copied from the old file */
    struct lvx_scan part = *scan;
    part.origin = &o;
    render_index(&part, set, changed, &fresh);
    /* header and list of the old file, then its entries of devices not read, then the
     * entries of the devices read (render_index's "pv" lines) */
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_buf_printf(&b, "%s\ndevices %016" PRIx64 "\n", INDEX_MAGIC, idx.devs_hash);
    if (idx.list_key && idx.list.count) {
        lvx_buf_printf(&b, "listkey %016" PRIx64 "\n", idx.list_key);
        for (unsigned i = 0; i < idx.list.count; i++) {
            const struct lvx_dev *d = idx.list.devs[i];
            lvx_buf_printf(&b, "dev %u:%u %" PRIu64 " %d %s\n", d->major, d->minor,
                           d->size / 1024, d->is_link ? 1 : 0, d->path);
        }
    }
    /* the devices read, sorted by number (a thousand entries against a thousand devices) */
    struct dev_vg *read_devs = lvx_xcalloc(scan->devs.count + 1, sizeof(*read_devs));
    for (unsigned d = 0; d < scan->devs.count; d++)
        read_devs[d] = (struct dev_vg){ scan->devs.devs[d]->major, scan->devs.devs[d]->minor, NULL };
    qsort(read_devs, scan->devs.count, sizeof(*read_devs), dev_vg_cmp);
    for (unsigned i = 0; i < idx.count; i++) {
        const struct index_entry *e = &idx.entries[i];
        struct dev_vg key = { e->major, e->minor, NULL };
        bool read = bsearch(&key, read_devs, scan->devs.count, sizeof(key), dev_vg_cmp) != NULL;
        if (!read)
            lvx_buf_printf(&b, "pv %u:%u %s %s %s\n", e->major, e->minor, e->pv_uuid,
                           e->vg_uuid[0] ? e->vg_uuid : "-", e->vg_uuid[0] ? e->vg_name : "-");
    }
    free(read_devs);
    const char *pv_lines = strstr(lvx_buf_str(&fresh), "\npv ");
    if (pv_lines)
        lvx_buf_puts(&b, pv_lines + 1);
    write_index(lvx_index_path(), &b);
    lvx_debug(ctx, "Device index %s: entries of the %u devices read replaced", lvx_index_path(),
              scan->devs.count);
    lvx_buf_free(&b);
    lvx_buf_free(&fresh);
    lvx_pool_destroy(pool);
}

void lvx_index_update_vg(struct lvx_ctx *ctx, const struct lvx_scan *scan,
                         const struct lvx_vgset *set, const struct lvx_vg *changed)
{
    if (scan->origin && scan->origin->narrowed && changed && !index_disabled()) {
        uint64_t t = lvx_phase_start();
        update_narrowed(ctx, scan, set, changed);
        lvx_phase_end("index.update", t);
        return;
    }
    if (!scan->origin || !scan->origin->full_system || index_disabled())
        return;
    uint64_t t = lvx_phase_start();
    const char *path = lvx_index_path();
    if (has_duplicate_pvs(scan)) {        /* duplicates need every device read each time */
        unlink(path);
        return;
    }
    struct lvx_buf b = LVX_BUF_INIT;
    render_index(scan, set, changed, &b);
    struct lvx_buf old = LVX_BUF_INIT;
    if (lvx_buf_read_file(NULL, &old, path, LVX_FILE_MAX_INDEX) < 0 || old.len != b.len ||
        memcmp(old.data, b.data, b.len) != 0) {
        write_index(path, &b);
        lvx_debug(ctx, "Device index %s rewritten (%u PVs)", path, scan->pv_count);
    }
    lvx_buf_free(&old);
    lvx_buf_free(&b);
    lvx_phase_end("index.update", t);
}
