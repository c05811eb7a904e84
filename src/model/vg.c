/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/vg.c - building and looking up the in-memory VG: create, add/remove PVs and
 * LVs (vg->pvs[i]->index == i and vg->lvs[i]->index == i always hold), lookups by
 * name/UUID, string lists, allocation policy names, segment kinds.
 *
 * The pointer arrays grow by doubling (capacity is the next power of two of the
 * count), so n additions cost O(n).
 */
#include "model/model.h"

#include <errno.h>
#include <string.h>

static const char *const alloc_names[] = {
    [LVX_ALLOC_INHERIT] = "inherit",
    [LVX_ALLOC_CONTIGUOUS] = "contiguous",
    [LVX_ALLOC_CLING] = "cling",
    [LVX_ALLOC_CLING_BY_TAGS] = "cling_by_tags",
    [LVX_ALLOC_NORMAL] = "normal",
    [LVX_ALLOC_ANYWHERE] = "anywhere",
};

const char *lvx_alloc_name(enum lvx_alloc a)
{
    if ((unsigned)a >= sizeof(alloc_names) / sizeof(alloc_names[0]))
        return "invalid";
    return alloc_names[a];
}

int lvx_alloc_parse(const char *s, enum lvx_alloc *out)
{
    for (unsigned i = 0; i < sizeof(alloc_names) / sizeof(alloc_names[0]); i++) {
        if (s && !strcmp(s, alloc_names[i])) {
            *out = (enum lvx_alloc)i;
            return 0;
        }
    }
    return -EINVAL;
}

struct lvx_vg *lvx_vg_new(struct lvx_pool *pool)
{
    struct lvx_vg *vg = lvx_pool_alloc(pool, sizeof(*vg));
    vg->pool = pool;
    vg->alloc = LVX_ALLOC_NORMAL;
    return vg;
}

/* Make room for one more pointer in an array holding `count` entries.  Capacity is
 * max(4, next power of two of count); removals never shrink it. */
static void *grow_ptr_array(struct lvx_pool *pool, void *arr, unsigned count)
{
    if (!arr)
        return lvx_pool_alloc(pool, 4 * sizeof(void *));
    if (count < 4 || (count & (count - 1)) != 0)
        return arr;
    return lvx_pool_realloc(pool, arr, (size_t)count * sizeof(void *),
                            2 * (size_t)count * sizeof(void *));
}

struct lvx_pv *lvx_vg_add_pv(struct lvx_vg *vg)
{
    struct lvx_pv *pv = lvx_pool_alloc(vg->pool, sizeof(*pv));
    vg->pvs = grow_ptr_array(vg->pool, vg->pvs, vg->pv_count);
    pv->vg = vg;
    pv->index = vg->pv_count;
    vg->pvs[vg->pv_count++] = pv;
    return pv;
}

struct lvx_lv *lvx_vg_add_lv(struct lvx_vg *vg)
{
    struct lvx_lv *lv = lvx_pool_alloc(vg->pool, sizeof(*lv));
    vg->lvs = grow_ptr_array(vg->pool, vg->lvs, vg->lv_count);
    lv->vg = vg;
    lv->index = vg->lv_count;
    lv->read_ahead = 0;
    vg->lvs[vg->lv_count++] = lv;
    return lv;
}

void lvx_vg_move_pv(struct lvx_vg *to, struct lvx_pv *pv)
{
    if (pv->vg)
        lvx_vg_remove_pv(pv->vg, pv);
    to->pvs = grow_ptr_array(to->pool, to->pvs, to->pv_count);
    pv->vg = to;
    pv->index = to->pv_count;
    to->pvs[to->pv_count++] = pv;
}

void lvx_vg_move_lv(struct lvx_vg *to, struct lvx_lv *lv)
{
    if (lv->vg)
        lvx_vg_remove_lv(lv->vg, lv);
    to->lvs = grow_ptr_array(to->pool, to->lvs, to->lv_count);
    lv->vg = to;
    lv->index = to->lv_count;
    to->lvs[to->lv_count++] = lv;
}

void lvx_vg_remove_pv(struct lvx_vg *vg, struct lvx_pv *pv)
{
    unsigned i = pv->index;
    if (i >= vg->pv_count || vg->pvs[i] != pv)
        return;
    memmove(&vg->pvs[i], &vg->pvs[i + 1], (vg->pv_count - i - 1) * sizeof(vg->pvs[0]));
    vg->pv_count--;
    for (; i < vg->pv_count; i++)
        vg->pvs[i]->index = i;
    pv->vg = NULL;
}

void lvx_vg_remove_lv(struct lvx_vg *vg, struct lvx_lv *lv)
{
    unsigned i = lv->index;
    if (i >= vg->lv_count || vg->lvs[i] != lv)
        return;
    memmove(&vg->lvs[i], &vg->lvs[i + 1], (vg->lv_count - i - 1) * sizeof(vg->lvs[0]));
    vg->lv_count--;
    for (; i < vg->lv_count; i++)
        vg->lvs[i]->index = i;
}

struct lvx_pv *lvx_vg_find_pv_uuid(const struct lvx_vg *vg, const char *raw_uuid)
{
    for (unsigned i = 0; i < vg->pv_count; i++)
        if (!strcmp(vg->pvs[i]->uuid, raw_uuid))
            return vg->pvs[i];
    return NULL;
}

struct lvx_lv *lvx_vg_find_lv(const struct lvx_vg *vg, const char *name)
{
    for (unsigned i = 0; i < vg->lv_count; i++)
        if (vg->lvs[i]->name && !strcmp(vg->lvs[i]->name, name))
            return vg->lvs[i];
    return NULL;
}

void lvx_strlist_add(struct lvx_pool *pool, struct lvx_strlist *l, const char *s)
{
    l->v = grow_ptr_array(pool, (void *)l->v, l->n);
    l->v[l->n++] = lvx_pool_strdup(pool, s);
}

bool lvx_strlist_has(const struct lvx_strlist *l, const char *s)
{
    for (unsigned i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], s))
            return true;
    return false;
}

bool lvx_strlist_remove(struct lvx_strlist *l, const char *s)
{
    unsigned k = 0;
    for (unsigned i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) != 0)
            l->v[k++] = l->v[i];
    bool removed = k != l->n;
    l->n = k;
    return removed;
}

enum lvx_seg_kind lvx_seg_kind_of(const char *type_name)
{
    static const struct {
        const char *name;
        enum lvx_seg_kind kind;
    } kinds[] = {
        { "striped", LVX_SEG_STRIPED },   { "mirror", LVX_SEG_MIRROR },
        { "thin-pool", LVX_SEG_THIN_POOL }, { "thin", LVX_SEG_THIN },
        { "snapshot", LVX_SEG_SNAPSHOT }, { "cache-pool", LVX_SEG_CACHE_POOL },
        { "cache", LVX_SEG_CACHE },       { "error", LVX_SEG_ERROR },
        { "zero", LVX_SEG_ZERO },
    };

    if (!type_name)
        return LVX_SEG_OTHER;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (!strcmp(type_name, kinds[i].name))
            return kinds[i].kind;
    if (!strncmp(type_name, "raid", 4))
        return LVX_SEG_RAID;
    return LVX_SEG_OTHER;
}

bool lvx_vg_is_lockd(const struct lvx_vg *vg)
{
    const char *t = vg ? vg->lock_type : NULL;
    return t && (!strcmp(t, "sanlock") || !strcmp(t, "dlm") || !strcmp(t, "idm"));
}
