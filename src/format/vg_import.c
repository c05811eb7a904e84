/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/vg_import.c - VG metadata text (cfg tree) -> struct lvx_vg
 * (lvm2-format.md §9.4, §10).  Entry points: lvx_vg_import(), lvx_vg_import_text().
 *
 * The first top-level section is the VG.  Required keys are checked, numbers are
 * range-checked, unknown status words are refused (LVM2 does the same), unknown
 * compatible flags are kept in flags_extra and unknown keys in `extra`.  Segments
 * other than striped keep their section in seg->raw; what the model can describe
 * (areas, sub-LV references, sizes) is decoded as well.  PV names (pvN) and LV names
 * are resolved through hash maps, so import is linear in the text size.  The result
 * is checked with lvx_vg_validate().
 */
#include "format/vg_text.h"
#include "format/vg_text_priv.h"
#include "model/thin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- a small open-addressing map: name -> pointer ------------------------ */

struct name_map {
    const char **keys;
    void **vals;
    size_t mask;
};

static void map_init(struct name_map *m, size_t expected)
{
    size_t cap = 16;
    while (cap < 2 * expected)
        cap *= 2;
    m->keys = lvx_xcalloc(cap, sizeof(*m->keys));
    m->vals = lvx_xcalloc(cap, sizeof(*m->vals));
    m->mask = cap - 1;
}

static void map_free(struct name_map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
}

static size_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)h;
}

static void *map_get(const struct name_map *m, const char *key)
{
    for (size_t i = hash_str(key) & m->mask; m->keys[i]; i = (i + 1) & m->mask)
        if (!strcmp(m->keys[i], key))
            return m->vals[i];
    return NULL;
}

/* false if the key is already there */
static bool map_put(struct name_map *m, const char *key, void *val)
{
    size_t i;
    for (i = hash_str(key) & m->mask; m->keys[i]; i = (i + 1) & m->mask)
        if (!strcmp(m->keys[i], key))
            return false;
    m->keys[i] = key;
    m->vals[i] = val;
    return true;
}

/* --- importer state and typed getters ------------------------------------ */

struct importer {
    struct lvx_ctx *ctx;
    struct lvx_pool *pool;
    struct lvx_vg *vg;
    struct name_map pvs;    /* text name "pvN" -> struct lvx_pv */
    struct name_map lvs;    /* LV name -> struct lvx_lv */
};

/* Read an integer key into [min, max].  Missing: -ENOENT silently if !required. */
static int get_num(struct importer *im, const struct lvx_cfg_node *sec, const char *key,
                   const char *what, bool required, int64_t min, int64_t max, int64_t *out)
{
    const struct lvx_cfg_node *n = lvx_cfg_find(sec, key);
    if (!n) {
        if (!required)
            return -ENOENT;
        return lvx_error(im->ctx, EINVAL, "%s: missing \"%s\"", what, key);
    }
    if (n->kind != LVX_CFG_INT)
        return lvx_error(im->ctx, EINVAL, "%s: \"%s\" must be an integer", what, key);
    if (n->num < min || n->num > max)
        return lvx_error(im->ctx, EINVAL, "%s: \"%s\" value %lld is out of range", what, key,
                         (long long)n->num);
    *out = n->num;
    return 0;
}

static int get_u32(struct importer *im, const struct lvx_cfg_node *sec, const char *key,
                   const char *what, bool required, uint32_t *out)
{
    int64_t v = 0;
    int r = get_num(im, sec, key, what, required, 0, UINT32_MAX, &v);
    if (r == 0)
        *out = (uint32_t)v;
    return r;
}

static int get_u64(struct importer *im, const struct lvx_cfg_node *sec, const char *key,
                   const char *what, bool required, uint64_t *out)
{
    int64_t v = 0;
    int r = get_num(im, sec, key, what, required, 0, INT64_MAX, &v);
    if (r == 0)
        *out = (uint64_t)v;
    return r;
}

/* String key copied into the VG pool.  Missing: -ENOENT silently if !required. */
static int get_str(struct importer *im, const struct lvx_cfg_node *sec, const char *key,
                   const char *what, bool required, const char **out)
{
    const struct lvx_cfg_node *n = lvx_cfg_find(sec, key);
    if (!n) {
        if (!required)
            return -ENOENT;
        return lvx_error(im->ctx, EINVAL, "%s: missing \"%s\"", what, key);
    }
    if (n->kind != LVX_CFG_STRING)
        return lvx_error(im->ctx, EINVAL, "%s: \"%s\" must be a string", what, key);
    *out = lvx_pool_strdup(im->pool, n->str);
    return 0;
}

static int get_uuid(struct importer *im, const struct lvx_cfg_node *sec, const char *what,
                    char out[LVX_UUID_LEN + 1])
{
    const char *s;
    int r = get_str(im, sec, "id", what, true, &s);
    if (r < 0)
        return r;
    if (lvx_uuid_parse(s, out) < 0)
        return lvx_error(im->ctx, EINVAL, "%s: invalid id \"%s\"", what, s);
    return 0;
}

static int get_tags(struct importer *im, const struct lvx_cfg_node *sec, const char *what,
                    struct lvx_strlist *tags)
{
    const struct lvx_cfg_node *n = lvx_cfg_find(sec, "tags");
    if (!n)
        return 0;
    if (n->kind != LVX_CFG_ARRAY)
        return lvx_error(im->ctx, EINVAL, "%s: \"tags\" must be an array of strings", what);
    for (const struct lvx_cfg_node *e = n->child; e; e = e->next) {
        if (e->kind != LVX_CFG_STRING)
            return lvx_error(im->ctx, EINVAL, "%s: \"tags\" must be an array of strings", what);
        lvx_strlist_add(im->pool, tags, e->str);
    }
    return 0;
}

static int get_alloc(struct importer *im, const struct lvx_cfg_node *sec, const char *what,
                     enum lvx_alloc *out)
{
    const char *s = NULL;
    int r = get_str(im, sec, "allocation_policy", what, false, &s);
    if (r == -ENOENT)
        return 0;
    if (r < 0)
        return r;
    if (lvx_alloc_parse(s, out) < 0)
        return lvx_error(im->ctx, EINVAL, "%s: unknown allocation_policy \"%s\"", what, s);
    return 0;
}

/* Words of a status array must all be known; words of a flags array may be
 * unknown (kept in `extra`).  A known word sets its bit wherever it is found. */
static int get_flag_words(struct importer *im, const struct lvx_cfg_node *sec, const char *key,
                          const char *what, const struct lvx_flag_word *table,
                          uint32_t *status, uint32_t *flags, struct lvx_strlist *extra)
{
    const struct lvx_cfg_node *n = lvx_cfg_find(sec, key);
    if (!n) {
        if (extra)
            return 0;
        return lvx_error(im->ctx, EINVAL, "%s: missing \"%s\"", what, key);
    }
    if (n->kind != LVX_CFG_ARRAY)
        return lvx_error(im->ctx, EINVAL, "%s: \"%s\" must be an array of strings", what, key);
    for (const struct lvx_cfg_node *e = n->child; e; e = e->next) {
        const struct lvx_flag_word *w;
        if (e->kind != LVX_CFG_STRING)
            return lvx_error(im->ctx, EINVAL, "%s: \"%s\" must be an array of strings", what, key);
        for (w = table; w->word; w++)
            if (!strcmp(w->word, e->str))
                break;
        if (w->word)
            *(w->in_flags ? flags : status) |= w->bit;
        else if (extra)
            lvx_strlist_add(im->pool, extra, e->str);
        else
            return lvx_error(im->ctx, EINVAL, "%s: unknown %s flag \"%s\"", what, key, e->str);
    }
    return 0;
}

static bool key_known(const char *key, const char *const *known)
{
    for (; *known; known++)
        if (!strcmp(key, *known))
            return true;
    return false;
}

/* Unknown assignments (and, if with_sections, sub-sections) of a section, cloned
 * into a detached SECTION; NULL when there are none. */
static struct lvx_cfg_node *collect_extra(struct lvx_pool *pool, const struct lvx_cfg_node *sec,
                                          const char *const *known, bool with_sections)
{
    struct lvx_cfg_node *extra = NULL;
    for (const struct lvx_cfg_node *n = sec->child; n; n = n->next) {
        if (!n->key || key_known(n->key, known))
            continue;
        if (n->kind == LVX_CFG_SECTION && !with_sections)
            continue;
        if (!extra)
            extra = lvx_cfg_new(pool, NULL, "extra", LVX_CFG_SECTION);
        lvx_cfg_append(extra, lvx_cfg_clone(pool, n));
    }
    return extra;
}

/* --- physical volumes ---------------------------------------------------- */

static const char *const pv_known_keys[] = {
    "id", "device", "device_id_type", "device_id", "status", "flags", "tags", "dev_size",
    "pe_start", "pe_count", "ba_start", "ba_size", NULL,
};

static int import_pv(struct importer *im, const struct lvx_cfg_node *sec)
{
    struct lvx_pv *pv = lvx_vg_add_pv(im->vg);
    char what[300];
    int r;

    snprintf(what, sizeof(what), "Physical volume %s", sec->key);
    if (!map_put(&im->pvs, sec->key, pv))
        return lvx_error(im->ctx, EINVAL, "Volume group %s: duplicate physical volume section %s",
                         im->vg->name, sec->key);
    if ((r = get_uuid(im, sec, what, pv->uuid)) < 0)
        return r;
    if (get_str(im, sec, "device", what, false, &pv->device_hint) == -EINVAL ||
        get_str(im, sec, "device_id_type", what, false, &pv->device_id_type) == -EINVAL ||
        get_str(im, sec, "device_id", what, false, &pv->device_id) == -EINVAL)
        return -EINVAL;
    if ((r = get_flag_words(im, sec, "status", what, lvx_pv_flag_words, &pv->status, &pv->flags,
                            NULL)) < 0 ||
        (r = get_flag_words(im, sec, "flags", what, lvx_pv_flag_words, &pv->status, &pv->flags,
                            &pv->flags_extra)) < 0 ||
        (r = get_tags(im, sec, what, &pv->tags)) < 0)
        return r;
    r = get_u64(im, sec, "dev_size", what, false, &pv->dev_size);
    if (r == -EINVAL)
        return r;
    pv->has_dev_size = r == 0;
    if ((r = get_u64(im, sec, "pe_start", what, true, &pv->pe_start)) < 0 ||
        (r = get_u32(im, sec, "pe_count", what, true, &pv->pe_count)) < 0)
        return r;
    int rs = get_u64(im, sec, "ba_start", what, false, &pv->ba_start);
    int rz = get_u64(im, sec, "ba_size", what, false, &pv->ba_size);
    if (rs == -EINVAL || rz == -EINVAL)
        return -EINVAL;
    if ((rs == 0) != (rz == 0))
        return lvx_error(im->ctx, EINVAL, "%s: ba_start and ba_size must be given together", what);
    pv->has_ba = rs == 0;
    pv->extra = collect_extra(im->pool, sec, pv_known_keys, true);
    return 0;
}

static int import_pvs(struct importer *im, const struct lvx_cfg_node *vgsec)
{
    const struct lvx_cfg_node *pvs = lvx_cfg_find(vgsec, "physical_volumes");
    size_t n = 0;

    if (!pvs || pvs->kind != LVX_CFG_SECTION)
        return lvx_error(im->ctx, EINVAL, "Volume group %s: missing physical_volumes section",
                         im->vg->name);
    for (const struct lvx_cfg_node *c = pvs->child; c; c = c->next)
        n++;
    map_init(&im->pvs, n);
    for (const struct lvx_cfg_node *c = pvs->child; c; c = c->next) {
        if (c->kind != LVX_CFG_SECTION)
            return lvx_error(im->ctx, EINVAL,
                             "Volume group %s: unexpected key \"%s\" in physical_volumes",
                             im->vg->name, c->key ? c->key : "");
        int r = import_pv(im, c);
        if (r < 0)
            return r;
    }
    return 0;
}

/* --- segments ------------------------------------------------------------ */

static struct lvx_lv *lookup_lv(struct importer *im, const char *name, const char *what,
                                const char *key)
{
    struct lvx_lv *lv = map_get(&im->lvs, name);
    if (!lv)
        lvx_error(im->ctx, EINVAL, "%s: unknown logical volume \"%s\" in \"%s\"", what, name, key);
    return lv;
}

/* An LV named by a string key; *out stays NULL when the key is absent and !required. */
static int get_lv_ref(struct importer *im, const struct lvx_cfg_node *sec, const char *key,
                      const char *what, bool required, struct lvx_lv **out)
{
    const struct lvx_cfg_node *n = lvx_cfg_find(sec, key);
    if (!n) {
        if (!required)
            return 0;
        return lvx_error(im->ctx, EINVAL, "%s: missing \"%s\"", what, key);
    }
    if (n->kind != LVX_CFG_STRING)
        return lvx_error(im->ctx, EINVAL, "%s: \"%s\" must be a string", what, key);
    *out = lookup_lv(im, n->str, what, key);
    return *out ? 0 : -EINVAL;
}

static const struct lvx_cfg_node *get_array(struct importer *im, const struct lvx_cfg_node *sec,
                                            const char *key, const char *what, uint64_t want)
{
    const struct lvx_cfg_node *n = lvx_cfg_find(sec, key);
    if (!n) {
        lvx_error(im->ctx, EINVAL, "%s: missing \"%s\"", what, key);
        return NULL;
    }
    if (n->kind != LVX_CFG_ARRAY) {
        lvx_error(im->ctx, EINVAL, "%s: \"%s\" must be an array", what, key);
        return NULL;
    }
    unsigned len = lvx_cfg_array_len(n);
    if (len != want) {
        lvx_error(im->ctx, EINVAL, "%s: \"%s\" has %u entries, expected %llu", what, key, len,
                  (unsigned long long)want);
        return NULL;
    }
    return n;
}

static void alloc_areas(struct importer *im, struct lvx_seg *seg, uint32_t count, bool meta)
{
    seg->area_count = count;
    seg->areas = lvx_pool_alloc(im->pool, (count ? count : 1) * sizeof(*seg->areas));
    if (meta)
        seg->meta_areas = lvx_pool_alloc(im->pool, (count ? count : 1) * sizeof(*seg->meta_areas));
}

/* Pairs "name", start_number: names resolve to PVs (if allow_pv) then LVs. */
static int import_area_pairs(struct importer *im, struct lvx_seg *seg,
                             const struct lvx_cfg_node *arr, const char *key, const char *what,
                             bool allow_pv)
{
    const struct lvx_cfg_node *e = arr->child;
    for (uint32_t i = 0; i < seg->area_count; i++, e = e->next->next) {
        const struct lvx_cfg_node *num = e->next;
        struct lvx_area *area = &seg->areas[i];
        if (e->kind != LVX_CFG_STRING || num->kind != LVX_CFG_INT)
            return lvx_error(im->ctx, EINVAL, "%s: \"%s\" entry %u must be a name and a number",
                             what, key, i + 1);
        if (num->num < 0 || num->num > UINT32_MAX)
            return lvx_error(im->ctx, EINVAL, "%s: \"%s\" entry %u start %lld is out of range",
                             what, key, i + 1, (long long)num->num);
        area->start = (uint64_t)num->num;
        if (allow_pv && (area->pv = map_get(&im->pvs, e->str)))
            continue;
        /* a striped area naming an LV: LVM2's pvmove ("stripes = [\"pvmove0\", 0]" in an
         * LV being moved), §10 */
        area->lv = map_get(&im->lvs, e->str);
        if (!area->lv)
            return lvx_error(im->ctx, EINVAL, "%s: unknown %s \"%s\" in \"%s\"", what,
                             seg->kind == LVX_SEG_STRIPED ? "physical volume" : "volume",
                             e->str, key);
    }
    return 0;
}

static const char *const striped_known_keys[] = {
    "start_extent", "extent_count", "type", "tags", "stripe_count", "stripe_size", "stripes",
    "reshape_count", NULL,
};

static int import_striped(struct importer *im, struct lvx_seg *seg,
                          const struct lvx_cfg_node *sec, const char *what)
{
    const struct lvx_cfg_node *arr;
    int r;

    if ((r = get_u32(im, sec, "stripe_count", what, true, &seg->stripe_count)) < 0)
        return r;
    if (seg->stripe_count == 0)
        return lvx_error(im->ctx, EINVAL, "%s: stripe_count must be at least 1", what);
    if (seg->stripe_count > 1 &&
        (r = get_u32(im, sec, "stripe_size", what, true, &seg->stripe_size)) < 0)
        return r;
    if (seg->stripe_count > 1 && seg->stripe_size == 0)
        return lvx_error(im->ctx, EINVAL, "%s: stripe_size must not be zero", what);
    if (!(arr = get_array(im, sec, "stripes", what, 2 * (uint64_t)seg->stripe_count)))
        return -EINVAL;
    alloc_areas(im, seg, seg->stripe_count, false);
    if ((r = import_area_pairs(im, seg, arr, "stripes", what, true)) < 0)
        return r;
    seg->extra = collect_extra(im->pool, sec, striped_known_keys, true);
    return 0;
}

static int import_mirror(struct importer *im, struct lvx_seg *seg,
                         const struct lvx_cfg_node *sec, const char *what)
{
    const struct lvx_cfg_node *arr;
    int r;

    if ((r = get_u32(im, sec, "mirror_count", what, true, &seg->stripe_count)) < 0)
        return r;
    if (get_u32(im, sec, "region_size", what, false, &seg->region_size) == -EINVAL ||
        get_u32(im, sec, "extents_moved", what, false, &seg->extents_moved) == -EINVAL ||
        get_lv_ref(im, sec, "mirror_log", what, false, &seg->log_lv) < 0)
        return -EINVAL;
    if (!(arr = get_array(im, sec, "mirrors", what, 2 * (uint64_t)seg->stripe_count)))
        return -EINVAL;
    alloc_areas(im, seg, seg->stripe_count, false);
    return import_area_pairs(im, seg, arr, "mirrors", what, true);
}

static int import_raid_lv_list(struct importer *im, struct lvx_seg *seg,
                               const struct lvx_cfg_node *arr, const char *key,
                               const char *what, bool pairs)
{
    const struct lvx_cfg_node *e = arr->child;
    for (uint32_t i = 0; i < seg->area_count; i++) {
        for (int part = pairs ? 0 : 1; part < 2; part++, e = e->next) {
            if (e->kind != LVX_CFG_STRING)
                return lvx_error(im->ctx, EINVAL, "%s: \"%s\" entries must be strings", what, key);
            struct lvx_lv *lv = lookup_lv(im, e->str, what, key);
            if (!lv)
                return -EINVAL;
            if (part == 0)
                seg->meta_areas[i].lv = lv;
            else
                seg->areas[i].lv = lv;
        }
    }
    return 0;
}

/* An optional number the dm-raid line uses: kept when it is a valid uint32, otherwise
 * left unset as if absent (the text is written back from raw unchanged either way). */
static bool opt_u32(const struct lvx_cfg_node *sec, const char *key, uint32_t *out)
{
    int64_t v = 0;
    if (lvx_cfg_get_int(sec, key, &v) != 0 || v < 0 || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

static int import_raid(struct importer *im, struct lvx_seg *seg,
                       const struct lvx_cfg_node *sec, const char *what)
{
    const struct lvx_cfg_node *arr;
    int r = get_u32(im, sec, "device_count", what, false, &seg->stripe_count);

    if (r == -ENOENT)
        r = get_u32(im, sec, "stripe_count", what, false, &seg->stripe_count);
    if (r == -ENOENT)
        return lvx_error(im->ctx, EINVAL, "%s: missing \"device_count\"", what);
    if (r < 0)
        return r;
    if (seg->stripe_count == 0)
        return lvx_error(im->ctx, EINVAL, "%s: raid segment without images", what);
    if (get_u32(im, sec, "region_size", what, false, &seg->region_size) == -EINVAL ||
        get_u32(im, sec, "stripe_size", what, false, &seg->stripe_size) == -EINVAL)
        return -EINVAL;
    opt_u32(sec, "min_recovery_rate", &seg->min_recovery_rate);
    opt_u32(sec, "max_recovery_rate", &seg->max_recovery_rate);
    opt_u32(sec, "writebehind", &seg->writebehind);
    seg->has_data_offset = opt_u32(sec, "data_offset", &seg->data_offset);
    if (lvx_cfg_find(sec, "raid0_lvs")) {
        if (!(arr = get_array(im, sec, "raid0_lvs", what, seg->stripe_count)))
            return -EINVAL;
        alloc_areas(im, seg, seg->stripe_count, false);
        return import_raid_lv_list(im, seg, arr, "raid0_lvs", what, false);
    }
    if (!(arr = get_array(im, sec, "raids", what, 2 * (uint64_t)seg->stripe_count)))
        return -EINVAL;
    alloc_areas(im, seg, seg->stripe_count, true);
    return import_raid_lv_list(im, seg, arr, "raids", what, true);
}

/* The typed thin fields (transaction/device ids, zeroing, discards); the section itself
 * stays in seg->raw, so a value of the wrong kind is only left unset here. */
static void import_thin_fields(struct importer *im, struct lvx_seg *seg,
                               const struct lvx_cfg_node *sec)
{
    int64_t v = 0;
    const struct lvx_cfg_node *n;
    if (lvx_cfg_get_int(sec, "transaction_id", &v) == 0 && v >= 0) {
        seg->transaction_id = (uint64_t)v;
        seg->has_thin_ids = true;
    }
    if (lvx_cfg_get_int(sec, "device_id", &v) == 0 && v >= 0 && v <= UINT32_MAX)
        seg->device_id = (uint32_t)v;
    if (lvx_cfg_get_int(sec, "zero_new_blocks", &v) == 0)
        seg->zero_new_blocks = v != 0;
    if ((n = lvx_cfg_find(sec, "discards")) && n->kind == LVX_CFG_STRING)
        seg->discards = lvx_pool_strdup(im->pool, n->str);
    if (seg->kind == LVX_SEG_THIN_POOL && lvx_cfg_get_int(sec, "crop_metadata", &v) == 0)
        lvx_thin_pool_set_crop(seg, v ? LVX_THIN_CROP_YES : LVX_THIN_CROP_NO, true);
}

/* A thin pool's queued messages: each subsection of its segment (LVM2 names them
 * message1, message2, ...) holds `create = "<thin LV>"` or `delete = <device id>`. */
static int import_thin_messages(struct importer *im, struct lvx_seg *seg,
                                const struct lvx_cfg_node *sec, const char *what)
{
    for (const struct lvx_cfg_node *m = sec->child; m; m = m->next) {
        if (m->kind != LVX_CFG_SECTION)
            continue;
        const struct lvx_cfg_node *c = lvx_cfg_find(m, "create");
        const struct lvx_cfg_node *d = lvx_cfg_find(m, "delete");
        struct lvx_lv *lv = NULL;
        uint32_t id = 0;
        if (c && c->kind == LVX_CFG_STRING) {
            if (!(lv = map_get(&im->lvs, c->str)))
                return lvx_error(im->ctx, EINVAL, "Unknown LV %s for create message in %s.",
                                 c->str, what);
        } else if (d && d->kind == LVX_CFG_INT && d->num >= 0 && d->num <= UINT32_MAX) {
            id = (uint32_t)d->num;
        } else {
            return lvx_error(im->ctx, EINVAL, "Unknown message in %s.", what);
        }
        for (unsigned i = 0; i < seg->msg_count; i++)
            if (lv ? seg->msgs[i].create == lv : (!seg->msgs[i].create &&
                                                   seg->msgs[i].delete_id == id))
                return lv ? lvx_error(im->ctx, EINVAL, "Message referring LV %s already "
                                      "queued in %s.", lv->name, what)
                          : lvx_error(im->ctx, EINVAL, "Delete for device %u already "
                                      "queued in %s.", id, what);
        /* read back as written: the transaction_id already counts them */
        struct lvx_thin_msg *n = lvx_pool_alloc(im->pool, (seg->msg_count + 1) * sizeof(*n));
        if (seg->msg_count)
            memcpy(n, seg->msgs, seg->msg_count * sizeof(*n));
        n[seg->msg_count].create = lv;
        n[seg->msg_count].delete_id = id;
        seg->msgs = n;
        seg->msg_count++;
    }
    return 0;
}

/* Pools and their users: data/metadata sub-LVs and named references. */
static int import_pool_like(struct importer *im, struct lvx_seg *seg,
                            const struct lvx_cfg_node *sec, const char *what)
{
    if (get_u32(im, sec, "chunk_size", what, false, &seg->chunk_size) == -EINVAL)
        return -EINVAL;
    switch (seg->kind) {
    case LVX_SEG_THIN_POOL:
        if (get_lv_ref(im, sec, "metadata", what, true, &seg->metadata_lv) < 0 ||
            get_lv_ref(im, sec, "pool", what, true, &seg->data_lv) < 0)
            return -EINVAL;
        alloc_areas(im, seg, 1, false);
        seg->areas[0].lv = seg->data_lv;
        import_thin_fields(im, seg, sec);
        return import_thin_messages(im, seg, sec, what);
    case LVX_SEG_CACHE_POOL:
        if (get_lv_ref(im, sec, "data", what, true, &seg->data_lv) < 0 ||
            get_lv_ref(im, sec, "metadata", what, true, &seg->metadata_lv) < 0)
            return -EINVAL;
        alloc_areas(im, seg, 1, false);
        seg->areas[0].lv = seg->data_lv;
        return 0;
    case LVX_SEG_THIN:
        if (get_lv_ref(im, sec, "thin_pool", what, true, &seg->pool_lv) < 0 ||
            get_lv_ref(im, sec, "origin", what, false, &seg->origin_lv) < 0 ||
            get_lv_ref(im, sec, "external_origin", what, false, &seg->external_lv) < 0)
            return -EINVAL;
        import_thin_fields(im, seg, sec);
        {   /* a thin snapshot whose merge into its origin waits (LVM2: "merge") */
            struct lvx_lv *merge = NULL;
            if (get_lv_ref(im, sec, "merge", what, false, &merge) < 0)
                return -EINVAL;
            seg->merging = merge && merge == seg->origin_lv;
        }
        return 0;
    case LVX_SEG_CACHE:
        if (get_lv_ref(im, sec, "cache_pool", what, true, &seg->pool_lv) < 0 ||
            get_lv_ref(im, sec, "origin", what, true, &seg->origin_lv) < 0)
            return -EINVAL;
        alloc_areas(im, seg, 1, false);
        seg->areas[0].lv = seg->origin_lv;
        return 0;
    case LVX_SEG_SNAPSHOT:
        if (get_lv_ref(im, sec, "origin", what, true, &seg->origin_lv) < 0)
            return -EINVAL;
        if (lvx_cfg_find(sec, "merging_store")) {
            seg->merging = true;
            return get_lv_ref(im, sec, "merging_store", what, true, &seg->cow_lv);
        }
        return get_lv_ref(im, sec, "cow_store", what, true, &seg->cow_lv);
    default:
        return 0;
    }
}

/* A segment of a type lvx does not model: every string value (in arrays too, "type"
 * aside) that names an LV of the VG is a reference, so that LV counts as used by the
 * segment and is neither removed nor renamed under it. */
static int import_other_refs(struct importer *im, struct lvx_seg *seg,
                             const struct lvx_cfg_node *sec)
{
    unsigned cap = 0;
    for (const struct lvx_cfg_node *k = sec->child; k; k = k->next) {
        if (!k->key || !strcmp(k->key, "type"))
            continue;
        const struct lvx_cfg_node *v = k->kind == LVX_CFG_ARRAY ? k->child : k;
        for (; v; v = k->kind == LVX_CFG_ARRAY ? v->next : NULL) {
            struct lvx_lv *lv = v->kind == LVX_CFG_STRING ? map_get(&im->lvs, v->str) : NULL;
            if (!lv || lv == seg->lv)
                continue;
            if (seg->ref_count == cap) {
                unsigned ncap = cap ? cap * 2 : 4;
                struct lvx_lv **r = lvx_pool_alloc(im->pool, ncap * sizeof(*r));
                const char **n = lvx_pool_alloc(im->pool, ncap * sizeof(*n));
                if (!r || !n)
                    return lvx_error(im->ctx, ENOMEM, "Out of memory.");
                if (cap) {
                    memcpy(r, seg->refs, cap * sizeof(*r));
                    memcpy(n, seg->ref_keys, cap * sizeof(*n));
                }
                seg->refs = r, seg->ref_keys = n, cap = ncap;
            }
            seg->refs[seg->ref_count] = lv;
            seg->ref_keys[seg->ref_count++] = k->key;
        }
    }
    return 0;
}

static int import_seg_body(struct importer *im, struct lvx_seg *seg,
                           const struct lvx_cfg_node *sec, const char *what)
{
    switch (seg->kind) {
    case LVX_SEG_STRIPED:
        return import_striped(im, seg, sec, what);
    case LVX_SEG_MIRROR:
        return import_mirror(im, seg, sec, what);
    case LVX_SEG_RAID:
        return import_raid(im, seg, sec, what);
    case LVX_SEG_THIN_POOL:
    case LVX_SEG_THIN:
    case LVX_SEG_SNAPSHOT:
    case LVX_SEG_CACHE_POOL:
    case LVX_SEG_CACHE:
        return import_pool_like(im, seg, sec, what);
    case LVX_SEG_OTHER:
        if (import_other_refs(im, seg, sec) < 0)
            return -EINVAL;
        if (lvx_seg_is_writecache(seg) && lvx_seg_ref(seg, "origin")) {
            alloc_areas(im, seg, 1, false);     /* LVM2's one area: the origin */
            seg->areas[0].lv = lvx_seg_ref(seg, "origin");
        }
        return 0;
    default:
        return 0;
    }
}

/* The flags LVM2 writes after '+' in a segment type ("raid5+RESHAPE").  A type with
 * any other flag is, as for LVM2, an unknown type as a whole (never activated). */
static bool seg_flags_known(const char *flags)
{
    static const char *const known[] = {
        "RESHAPE", "RESHAPE_DATA_OFFSET", "RESHAPE_DELTA_DISKS_PLUS",
        "RESHAPE_DELTA_DISKS_MINUS", "REMOVE_AFTER_RESHAPE", "METADATA_FORMAT",
        "CROP_METADATA", "CACHE_USES_CACHEVOL",
    };
    while (flags) {
        const char *end = strchr(flags, '+');
        size_t len = end ? (size_t)(end - flags) : strlen(flags);
        bool found = false;
        for (size_t i = 0; i < sizeof(known) / sizeof(*known) && !found; i++)
            found = strlen(known[i]) == len && !strncmp(known[i], flags, len);
        if (!found)
            return false;
        flags = end ? end + 1 : NULL;
    }
    return true;
}

static int import_seg(struct importer *im, struct lvx_lv *lv, struct lvx_seg *seg,
                      const struct lvx_cfg_node *sec)
{
    char what[400];
    int64_t v = 0;
    int r;

    snprintf(what, sizeof(what), "Logical volume %s %s", lv->name, sec->key);
    seg->lv = lv;
    if ((r = get_num(im, sec, "start_extent", what, true, 0, UINT32_MAX, &v)) < 0)
        return r;
    seg->start_extent = (uint64_t)v;
    if ((r = get_num(im, sec, "extent_count", what, true, 1, UINT32_MAX, &v)) < 0)
        return r;
    seg->extent_count = (uint64_t)v;
    if ((r = get_str(im, sec, "type", what, true, &seg->type)) < 0)
        return r;
    const char *plus = strchr(seg->type, '+');
    seg->type_name = plus && seg_flags_known(plus + 1)
                         ? lvx_pool_strndup(im->pool, seg->type, (size_t)(plus - seg->type))
                         : seg->type;
    seg->kind = lvx_seg_kind_of(seg->type_name);
    if ((r = get_tags(im, sec, what, &seg->tags)) < 0)
        return r;
    if (get_u32(im, sec, "data_copies", what, false, &seg->data_copies) == -EINVAL ||
        get_u32(im, sec, "reshape_count", what, false, &seg->reshape_count) == -EINVAL)
        return -EINVAL;
    if (seg->kind != LVX_SEG_STRIPED)
        seg->raw = lvx_cfg_clone(im->pool, sec);
    return import_seg_body(im, seg, sec, what);
}

static int cmp_seg_start(const void *a, const void *b)
{
    const struct lvx_seg *x = a, *y = b;
    if (x->start_extent != y->start_extent)
        return x->start_extent < y->start_extent ? -1 : 1;
    return 0;
}

static bool segs_sorted(const struct lvx_lv *lv)
{
    for (unsigned s = 1; s < lv->seg_count; s++)
        if (lv->segs[s].start_extent < lv->segs[s - 1].start_extent)
            return false;
    return true;
}

static int import_segments(struct importer *im, struct lvx_lv *lv,
                           const struct lvx_cfg_node *sec)
{
    int64_t declared;
    unsigned found = 0, i = 0;
    char what[300];
    int r;

    snprintf(what, sizeof(what), "Logical volume %s", lv->name);
    if ((r = get_num(im, sec, "segment_count", what, true, 1, INT32_MAX, &declared)) < 0)
        return r;
    for (const struct lvx_cfg_node *c = sec->child; c; c = c->next)
        found += c->kind == LVX_CFG_SECTION;
    if (found != (uint64_t)declared)
        return lvx_error(im->ctx, EINVAL,
                         "Logical volume %s: segment_count is %lld but %u segments were found",
                         lv->name, (long long)declared, found);
    lv->seg_count = found;
    lv->segs = lvx_pool_alloc(im->pool, found * sizeof(*lv->segs));
    for (const struct lvx_cfg_node *c = sec->child; c; c = c->next) {
        if (c->kind != LVX_CFG_SECTION)
            continue;
        if ((r = import_seg(im, lv, &lv->segs[i++], c)) < 0)
            return r;
    }
    if (!segs_sorted(lv)) {
        /* equal starts are an overlap the validator reports; order among them is moot */
        qsort(lv->segs, lv->seg_count, sizeof(lv->segs[0]), cmp_seg_start);
    }
    lv->le_count = 0;
    for (i = 0; i < lv->seg_count; i++)
        lv->le_count += lv->segs[i].extent_count;
    return 0;
}

/* --- logical volumes ----------------------------------------------------- */

static const char *const lv_known_keys[] = {
    "id", "status", "flags", "tags", "creation_time", "creation_host", "lock_args",
    "allocation_policy", "profile", "read_ahead", "major", "minor", "segment_count", NULL,
};

static int import_lv_header(struct importer *im, const struct lvx_cfg_node *sec)
{
    struct lvx_lv *lv = lvx_vg_add_lv(im->vg);
    char what[300];
    int64_t v = 0;
    int r;

    lv->name = lvx_pool_strdup(im->pool, sec->key);
    snprintf(what, sizeof(what), "Logical volume %s", lv->name);
    if (!lvx_name_valid(lv->name))
        return lvx_error(im->ctx, EINVAL, "Volume group %s: invalid logical volume name \"%s\"",
                         im->vg->name, lv->name);
    if (!map_put(&im->lvs, lv->name, lv))
        return lvx_error(im->ctx, EINVAL, "Volume group %s: duplicate logical volume %s",
                         im->vg->name, lv->name);
    if ((r = get_uuid(im, sec, what, lv->uuid)) < 0 ||
        (r = get_flag_words(im, sec, "status", what, lvx_lv_flag_words, &lv->status, &lv->flags,
                            NULL)) < 0 ||
        (r = get_flag_words(im, sec, "flags", what, lvx_lv_flag_words, &lv->status, &lv->flags,
                            &lv->flags_extra)) < 0 ||
        (r = get_tags(im, sec, what, &lv->tags)) < 0)
        return r;
    r = get_u64(im, sec, "creation_time", what, false, &lv->creation_time);
    if (r == -EINVAL)
        return r;
    lv->has_creation = r == 0;
    if (get_str(im, sec, "creation_host", what, false, &lv->creation_host) == -EINVAL ||
        get_str(im, sec, "lock_args", what, false, &lv->lock_args) == -EINVAL ||
        get_str(im, sec, "profile", what, false, &lv->profile) == -EINVAL)
        return -EINVAL;
    lv->alloc = LVX_ALLOC_INHERIT;
    if ((r = get_alloc(im, sec, what, &lv->alloc)) < 0)
        return r;
    if ((r = get_num(im, sec, "read_ahead", what, false, -1, UINT32_MAX, &v)) == -EINVAL)
        return r;
    lv->has_read_ahead = r == 0 && v != 0;   /* 0 means auto, as no key (§10.3) */
    lv->read_ahead = lv->has_read_ahead ? v : 0;
    if ((r = get_num(im, sec, "major", what, false, -1, UINT32_MAX, &v)) == -EINVAL)
        return r;
    lv->has_major = r == 0;
    lv->major = r == 0 ? v : -1;
    if ((r = get_num(im, sec, "minor", what, false, -1, UINT32_MAX, &v)) == -EINVAL)
        return r;
    lv->has_minor = r == 0;
    lv->minor = r == 0 ? v : -1;
    lv->extra = collect_extra(im->pool, sec, lv_known_keys, false);
    return 0;
}

static int import_lvs(struct importer *im, const struct lvx_cfg_node *vgsec)
{
    const struct lvx_cfg_node *lvs = lvx_cfg_find(vgsec, "logical_volumes");
    size_t n = 0;
    unsigned i = 0;
    int r;

    if (lvs && lvs->kind != LVX_CFG_SECTION)
        return lvx_error(im->ctx, EINVAL, "Volume group %s: logical_volumes must be a section",
                         im->vg->name);
    for (const struct lvx_cfg_node *c = lvs ? lvs->child : NULL; c; c = c->next)
        n++;
    map_init(&im->lvs, n);
    if (!lvs)
        return 0;
    /* first every LV (segments may name LVs that come later), then the segments */
    for (const struct lvx_cfg_node *c = lvs->child; c; c = c->next) {
        if (c->kind != LVX_CFG_SECTION)
            return lvx_error(im->ctx, EINVAL,
                             "Volume group %s: unexpected key \"%s\" in logical_volumes",
                             im->vg->name, c->key ? c->key : "");
        if ((r = import_lv_header(im, c)) < 0)
            return r;
    }
    for (const struct lvx_cfg_node *c = lvs->child; c; c = c->next)
        if ((r = import_segments(im, im->vg->lvs[i++], c)) < 0)
            return r;
    return 0;
}

/* --- volume group -------------------------------------------------------- */

static const char *const vg_known_keys[] = {
    "id", "seqno", "format", "status", "flags", "tags", "system_id", "lock_type", "lock_args",
    "extent_size", "max_lv", "max_pv", "allocation_policy", "profile", "metadata_copies",
    "physical_volumes", "logical_volumes", "historical_logical_volumes", NULL,
};

static int import_vg_keys(struct importer *im, const struct lvx_cfg_node *sec)
{
    struct lvx_vg *vg = im->vg;
    char what[300];
    int r;

    snprintf(what, sizeof(what), "Volume group %s", vg->name);
    if ((r = get_uuid(im, sec, what, vg->uuid)) < 0 ||
        (r = get_u32(im, sec, "seqno", what, true, &vg->seqno)) < 0)
        return r;
    if ((r = get_str(im, sec, "format", what, false, &vg->format)) == -EINVAL)
        return r;
    if (vg->format && strcmp(vg->format, "lvm2"))
        return lvx_error(im->ctx, EINVAL, "%s: unknown format \"%s\"", what, vg->format);
    if ((r = get_flag_words(im, sec, "status", what, lvx_vg_flag_words, &vg->status, &vg->flags,
                            NULL)) < 0 ||
        (r = get_flag_words(im, sec, "flags", what, lvx_vg_flag_words, &vg->status, &vg->flags,
                            &vg->flags_extra)) < 0 ||
        (r = get_tags(im, sec, what, &vg->tags)) < 0)
        return r;
    vg->has_flags = lvx_cfg_find(sec, "flags") != NULL;
    if (get_str(im, sec, "system_id", what, false, &vg->system_id) == -EINVAL ||
        get_str(im, sec, "lock_type", what, false, &vg->lock_type) == -EINVAL ||
        get_str(im, sec, "lock_args", what, false, &vg->lock_args) == -EINVAL ||
        get_str(im, sec, "profile", what, false, &vg->profile) == -EINVAL)
        return -EINVAL;
    if ((r = get_u32(im, sec, "extent_size", what, true, &vg->extent_size)) < 0 ||
        (r = get_u32(im, sec, "max_lv", what, true, &vg->max_lv)) < 0 ||
        (r = get_u32(im, sec, "max_pv", what, true, &vg->max_pv)) < 0)
        return r;
    if (vg->extent_size == 0)
        return lvx_error(im->ctx, EINVAL, "%s: extent_size must not be zero", what);
    if ((r = get_alloc(im, sec, what, &vg->alloc)) < 0)
        return r;
    r = get_u32(im, sec, "metadata_copies", what, false, &vg->metadata_copies);
    if (r == -EINVAL)
        return r;
    vg->has_metadata_copies = r == 0;
    const struct lvx_cfg_node *hist = lvx_cfg_find(sec, "historical_logical_volumes");
    if (hist)
        vg->historical = lvx_cfg_clone(im->pool, hist);
    for (const struct lvx_cfg_node *h = hist ? hist->child : NULL; h; h = h->next)
        if (h->kind == LVX_CFG_SECTION && h->key)
            lvx_strlist_add(im->pool, &vg->historical_names, h->key);
    vg->extra = collect_extra(im->pool, sec, vg_known_keys, true);
    return 0;
}

/* Top-level keys around the VG section (§9.4). */
static int import_header(struct importer *im, const struct lvx_cfg_node *root)
{
    const char *contents = NULL;
    int64_t v = 0;
    int r;

    r = get_str(im, root, "contents", "Metadata", false, &contents);
    if (r == -EINVAL)
        return r;
    if (r == 0 && strcmp(contents, "Text Format Volume Group"))
        return lvx_error(im->ctx, EINVAL, "Metadata: unknown contents \"%s\"", contents);
    r = get_num(im, root, "version", "Metadata", false, 0, INT64_MAX, &v);
    if (r == -EINVAL)
        return r;
    if (r == 0 && v != 1)
        return lvx_error(im->ctx, EINVAL, "Metadata: unsupported version %lld", (long long)v);
    if (get_str(im, root, "description", "Metadata", false, &im->vg->description) == -EINVAL ||
        get_str(im, root, "creation_host", "Metadata", false, &im->vg->creation_host) == -EINVAL ||
        get_u64(im, root, "creation_time", "Metadata", false, &im->vg->creation_time) == -EINVAL)
        return -EINVAL;
    return 0;
}

static const struct lvx_cfg_node *first_section(const struct lvx_cfg_node *root)
{
    for (const struct lvx_cfg_node *c = root ? root->child : NULL; c; c = c->next)
        if (c->kind == LVX_CFG_SECTION)
            return c;
    return NULL;
}

static int import_all(struct importer *im, const struct lvx_cfg_node *root)
{
    const struct lvx_cfg_node *vgsec = first_section(root);
    int r;

    if (!vgsec || !vgsec->key)
        return lvx_error(im->ctx, EINVAL, "Metadata contains no volume group section");
    if (!lvx_name_valid(vgsec->key))
        return lvx_error(im->ctx, EINVAL, "Invalid volume group name \"%s\" in metadata",
                         vgsec->key);
    im->vg->name = lvx_pool_strdup(im->pool, vgsec->key);
    if ((r = import_header(im, root)) < 0 || (r = import_vg_keys(im, vgsec)) < 0 ||
        (r = import_pvs(im, vgsec)) < 0 || (r = import_lvs(im, vgsec)) < 0)
        return r;
    return lvx_vg_validate(im->ctx, im->vg);
}

int lvx_vg_import(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_cfg_node *root,
                  struct lvx_vg **out)
{
    struct importer im = { .ctx = ctx, .pool = pool, .vg = lvx_vg_new(pool) };
    int r = import_all(&im, root);

    map_free(&im.pvs);
    map_free(&im.lvs);
    *out = r < 0 ? NULL : im.vg;
    return r;
}

int lvx_vg_import_text(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *text, size_t len,
                       struct lvx_vg **out)
{
    struct lvx_pool *tmp = lvx_pool_create();
    struct lvx_cfg_node *root;
    int r = lvx_cfg_parse(ctx, tmp, text, len, &root);

    if (r == 0)
        r = lvx_vg_import(ctx, pool, root, out);
    else
        *out = NULL;
    lvx_pool_destroy(tmp);
    return r;
}
