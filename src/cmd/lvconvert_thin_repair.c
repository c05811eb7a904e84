/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_thin_repair.c - `lvconvert --repair VG/POOL [PV ...]` of a thin pool,
 * as LVM2 2.03.16 (tools/lvconvert.c _lvconvert_thin_pool_repair):
 *
 *   1. the pool and its thin LVs inactive ("Active pools cannot be repaired.  Use
 *      lvchange -an first."), global/thin_repair_executable set;
 *   2. the VG's metadata spare (lvol0_pmspare) made, or grown to the largest pool
 *      metadata, first (committed when it is new, as LVM2);
 *   3. global/thin_repair_executable (with global/thin_repair_options) -i <_tmeta>
 *      -o <spare>: LVM2 runs it on the two LVs' dm devices; lvx, the same in both
 *      backends, on regular files: the _tmeta saved into a sparse private file, the
 *      tool writes a second one of the spare's size, which is written back into the
 *      spare's extents block by block (blocks the tool left zero untouched, as on a
 *      device);
 *   4. for a used pool (transaction_id != 0) with global/thin_dump_executable set, the
 *      repaired superblock's transaction id checked against the VG's (one more is
 *      accepted: a message the kernel took that the VG did not record); a mismatch is
 *      LVM2's error line, and the repair goes on, as in LVM2;
 *   5. the spare becomes the pool's metadata and the old _tmeta a visible LV <POOL>_meta<N>
 *      (the first N above those in use) holding the unrepaired metadata: the two LVs
 *      swap names and UUIDs, as LVM2's swap_lv_identifiers, so _tmeta keeps its UUID;
 *      a new spare is made beforehand (--poolmetadataspare n: LVM2's warning instead;
 *      no room: LVM2's allocation error, the repair goes on without one) and committed
 *      at once with lvcreate's over-provisioning warnings, as LVM2 makes a new LV; then
 *      the swap, committed, with LVM2's two
 *      warnings.
 * A failed tool ("Repair of thin metadata volume of thin pool VG/POOL failed
 * (status:N). Manual repair required!", exit 5) leaves the pool's metadata as it was.
 */
#include "cmd/lvconvert_thin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/actcmd.h"
#include "cmd/lvcreate_thin.h"
#include "config/config.h"
#include "map/dm_names.h"
#include "map/lv_file.h"
#include "model/thin.h"
#include "util/buf.h"
#include "util/spawn.h"

#define MAX_TOOL_ARGS 16
#define SB_TRANSACTION_OFFSET 48      /* the thin superblock's trans_id (dm-formats.md §4) */

struct tmp_file {
    char path[4096];
    int fd;
};

static const char *full(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    return lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
}

static int tmp_open(struct lvx_cmd_env *env, struct tmp_file *t, const char *what)
{
    const char *dir = getenv("TMPDIR");
    snprintf(t->path, sizeof(t->path), "%s/lvx-%s-XXXXXX", dir && *dir ? dir : "/tmp", what);
    if ((t->fd = mkstemp(t->path)) < 0) {
        lvx_cmd_errorf("Cannot make a file for the thin pool repair: %s", strerror(errno));
        return LVX_EXIT_FAILED;
    }
    return 0;
}

static void tmp_close(struct tmp_file *t)
{
    if (t->fd >= 0) {
        close(t->fd);
        unlink(t->path);
        t->fd = -1;
    }
}

/* Is the pool or one of its thin LVs active? */
static bool pool_in_use(struct lvx_cmd_env *env, struct lvx_actcmd *act, struct lvx_lv *pool)
{
    unsigned n = lvx_thin_pool_users(pool, NULL, 0);
    struct lvx_lv **users = lvx_pool_alloc(env->pool, (n ? n : 1) * sizeof(*users));
    lvx_thin_pool_users(pool, users, n);
    if (lvx_actcmd_is_active(env, act, pool, NULL))
        return true;
    for (unsigned i = 0; i < n; i++)
        if (lvx_actcmd_is_active(env, act, users[i], NULL))
            return true;
    return false;
}

/* global/thin_repair_executable with its options, -i in -o out, run to its end.  0 or
 * the exit code after LVM2's line. */
static int run_repair(struct lvx_cmd_env *env, const struct lvx_config *cfg, const char *exe,
                      const struct lvx_lv *pool, const char *in, const char *out)
{
    const char *argv[MAX_TOOL_ARGS + 6];
    unsigned argc = 0;
    argv[argc++] = exe;
    const struct lvx_cfg_node *opts = lvx_config_node(cfg, "global/thin_repair_options");
    const struct lvx_cfg_node *o = opts && opts->kind == LVX_CFG_ARRAY ? opts->child : opts;
    for (; o; o = o->next) {
        if (o->kind != LVX_CFG_STRING) {
            lvx_cmd_errorf("Invalid string in config file: global/thin_repair_options");
            return LVX_EXIT_FAILED;
        }
        if (argc > MAX_TOOL_ARGS) {
            lvx_cmd_errorf("Too many options for thin repair command.");
            return LVX_EXIT_FAILED;
        }
        if (*o->str)                 /* the default [""] adds nothing */
            argv[argc++] = o->str;
        if (opts->kind != LVX_CFG_ARRAY)
            break;
    }
    argv[argc++] = "-i";
    argv[argc++] = in;
    argv[argc++] = "-o";
    argv[argc++] = out;
    argv[argc] = NULL;
    fflush(stdout);
    int status = 0, r = lvx_spawn_wait(argv, false, &status);
    if (r < 0 || status != 0) {
        lvx_cmd_errorf("Repair of thin metadata volume of thin pool %s failed (status:%d). "
                       "Manual repair required!", full(env, pool), r < 0 ? -1 : status);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* LVM2's look at the repaired transaction id (an error line only). */
static void check_transaction(struct lvx_cmd_env *env, const struct lvx_config *cfg,
                              const struct lvx_lv *pool, const struct lvx_lv *spare, int fd)
{
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    const char *dump = lvx_config_str(cfg, "global/thin_dump_executable", "/usr/sbin/thin_dump");
    uint8_t b[8];
    if (!ps->transaction_id || !dump || !*dump ||
        pread(fd, b, sizeof(b), SB_TRANSACTION_OFFSET) != (ssize_t)sizeof(b))
        return;
    uint64_t tid = 0;
    for (int i = 7; i >= 0; i--)
        tid = tid << 8 | b[i];
    if (tid == ps->transaction_id || tid - 1 == ps->transaction_id)
        return;
    struct lvx_buf dm = LVX_BUF_INIT;          /* LVM2 names the spare's dm device */
    lvx_dm_lv_name(&dm, pool->vg->name, spare->name, NULL);
    lvx_cmd_errorf("Transaction id %llu from pool \"%s/%s\" does not match repaired "
                   "transaction id %llu from /dev/mapper/%s.",
                   (unsigned long long)ps->transaction_id, pool->vg->name, pool->name,
                   (unsigned long long)tid, lvx_buf_str(&dm));
    lvx_buf_free(&dm);
}

/* The repaired metadata of pool in the spare's extents (steps 3 and 4).  0 or an exit
 * code (printed). */
static int repair_into_spare(struct lvx_cmd_env *env, const struct lvx_config *cfg,
                             const char *exe, struct lvx_lv *pool, struct lvx_lv *spare)
{
    struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    struct tmp_file in = { .fd = -1 }, out = { .fd = -1 };
    struct lvx_lv_file *meta = NULL, *dst = NULL;
    int rc, r;
    if ((r = lvx_lv_file_open(env->ctx, ps->metadata_lv, false, &meta)) < 0 ||
        (r = lvx_lv_file_open(env->ctx, spare, true, &dst)) < 0) {
        lvx_lv_file_close(meta);
        return lvx_cmd_fail(env);
    }
    if (!(rc = tmp_open(env, &in, "tmeta")) && !(rc = tmp_open(env, &out, "repaired"))) {
        if ((r = lvx_lv_file_save(meta, in.fd)) < 0 ||
            (ftruncate(out.fd, (off_t)lvx_lv_file_bytes(dst)) < 0 && (r = -errno))) {
            lvx_cmd_errorf("Cannot read the metadata of thin pool %s: %s", full(env, pool),
                           strerror(-r));
            rc = LVX_EXIT_FAILED;
        }
    }
    if (!rc)
        rc = run_repair(env, cfg, exe, pool, in.path, out.path);
    if (!rc) {
        check_transaction(env, cfg, pool, spare, out.fd);
        if ((r = lvx_lv_file_load(dst, out.fd, lvx_lv_file_bytes(dst))) < 0) {
            lvx_cmd_errorf("Cannot write the repaired metadata of thin pool %s into %s: %s",
                           full(env, pool), full(env, spare), strerror(-r));
            rc = LVX_EXIT_FAILED;
        }
    }
    tmp_close(&in);
    tmp_close(&out);
    lvx_lv_file_close(meta);
    lvx_lv_file_close(dst);
    return rc;
}

/* LVM2's generate_lv_name(vg, "<pool>_meta%d"): one above the highest N in use. */
static const char *backup_name(struct lvx_cmd_env *env, const struct lvx_lv *pool)
{
    const char *prefix = lvx_pool_printf(env->pool, "%s_meta", pool->name);
    size_t len = strlen(prefix);
    int high = -1, i;
    for (unsigned l = 0; l < pool->vg->lv_count; l++) {
        const char *n = pool->vg->lvs[l]->name;
        if (!strncmp(n, prefix, len) && sscanf(n + len, "%d", &i) == 1 && i > high)
            high = i;
    }
    return lvx_pool_printf(env->pool, "%s%d", prefix, high + 1);
}

int lvx_lvconvert_thin_repair(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                              struct lvx_lv *pool, char **pv_args, unsigned pv_arg_count)
{
    struct lvx_vg *vg = u->vg;
    struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    bool spare_wanted = lvx_cmd_bool(env, LVX_OPT_POOLMETADATASPARE, true);
    struct lvx_config *cfg = NULL;
    struct lvx_actcmd act;
    struct lvx_alloc_pv *pvs;
    struct lvx_free_maps *maps;
    unsigned pv_count;
    int rc;
    if (lvx_config_load(env->ctx, &cfg) < 0)
        return lvx_cmd_fail(env);
    const char *exe = lvx_config_str(cfg, "global/thin_repair_executable", "/usr/sbin/thin_repair");
    if (!exe || !*exe) {
        lvx_cmd_errorf("Thin repair commnand is not configured. Repair is disabled.");  /* sic */
        rc = LVX_EXIT_FAILED;
        goto out;
    }
    if ((rc = lvx_actcmd_init(env, &act)))
        goto out;
    if (pool_in_use(env, &act, pool)) {
        lvx_cmd_errorf("Active pools cannot be repaired.  Use lvchange -an first.");
        rc = LVX_EXIT_FAILED;
        goto out;
    }
    if ((rc = lvx_lvcmd_pv_args(env, vg, pv_args, pv_arg_count, &pvs, &pv_count)) ||
        (rc = lvx_lvcmd_free_maps(env, u, &maps)))
        goto out;
    enum lvx_alloc policy = lvx_lvcmd_effective_policy(vg, LVX_ALLOC_INHERIT);
    uint64_t now = (uint64_t)time(NULL);
    bool had_spare = lvx_vg_pmspare(vg) != NULL;
    if ((rc = lvx_thin_pmspare(env, u, maps, 0, true, policy, pvs, pv_count, now)))
        goto out;
    struct lvx_lv *spare = lvx_vg_pmspare(vg);
    if (!had_spare && (rc = lvx_lvcmd_commit(env, u)))
        goto out;
    if (env->args->count[LVX_OPT_TEST]) {
        rc = lvx_lvcmd_commit(env, u);      /* says what --test would have done */
        goto out;
    }
    if ((rc = repair_into_spare(env, cfg, exe, pool, spare)))
        goto out;
    /* the repaired spare leaves its role (visible: no longer found as the spare); a new
     * spare is made while the old one keeps its name, as LVM2's (lvol<N+1>_pmspare) */
    struct lvx_lv *old = ps->metadata_lv;
    const char *old_name = old->name;
    spare->status |= LVX_LV_VISIBLE;
    if (lvx_thin_pmspare(env, u, maps, 0, spare_wanted, policy, pvs, pv_count, now)) {
        struct lvx_lv *failed = lvx_vg_pmspare(vg);   /* LVM2 goes on without a spare */
        if (failed && !failed->le_count)
            lvx_vg_remove_lv(vg, failed);
        lvx_error_clear(env->ctx);
    } else if (spare_wanted && lvx_vg_pmspare(vg)) {
        /* LVM2 makes it as any new LV (lv_create_single): with lvcreate's warnings on
         * over-provisioned pools, committed at once */
        lvx_thin_overprovisioning_vg(env, vg, NULL);
        if ((rc = lvx_lvcmd_commit(env, u)))
            goto out;
    }
    /* swap_lv_identifiers: names and UUIDs; the repaired LV is the pool's metadata */
    char uuid[sizeof(old->uuid)];
    memcpy(uuid, old->uuid, sizeof(uuid));
    memcpy(old->uuid, spare->uuid, sizeof(uuid));
    memcpy(spare->uuid, uuid, sizeof(uuid));
    spare->name = old_name;
    spare->status &= ~LVX_LV_VISIBLE;
    ps->metadata_lv = spare;
    lvx_lvconvert_rename_tree(vg, old, backup_name(env, pool));   /* a raid1 _tmeta's
                                                                    * images too */
    old->status |= LVX_LV_VISIBLE;
    if ((rc = lvx_lvcmd_commit(env, u)))
        goto out;
    lvx_warn(env->ctx, "WARNING: LV %s holds a backup of the unrepaired metadata. Use lvremove "
             "when no longer required.", full(env, old));
    if (vg->pv_count > 1)
        lvx_warn(env->ctx, "WARNING: New metadata LV %s might use different PVs.  Move it with "
                 "pvmove if required.", full(env, spare));
out:
    lvx_config_free(cfg);
    return rc;
}
