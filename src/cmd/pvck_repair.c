/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvck_repair.c - `pvck --repairtype pv_header|metadata -f FILE PV` and
 * `pvck --repair -f FILE PV` (both, in that order), writing what LVM2 2.03.16 writes:
 *   pv_header: the label sector rebuilt from the metadata file's PV entry (matched by
 *     the existing valid PV UUID, else by the device name hint): UUID, dev_size,
 *     pe_start as the data area, mda1 at 4096 up to pe_start, mda2 where an mda header
 *     of this VG is found in the last MiB-aligned MiB (only when the pv_header lists
 *     no area), extension version 2 with the "used" flag; the rest of the sector kept;
 *   metadata: the file's text (NUL added) written right after each listed area's mda
 *     header, and that header rewritten (slot 0 pointing at it, slot 1 cleared).
 * The file is raw metadata text as `pvck --dump metadata -f` writes it, or a backup
 * file (converted to raw text as LVM2 does).  --settings: pv_uuid, device_size,
 * data_offset, mda_offset/mda_size 0 (no areas), mda2_offset/mda2_size, mda_num.
 */
#include "cmd/pvck.h"
#include "cmd/pvcmd.h"

#include <ctype.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/cfg.h"
#include "format/crc.h"
#include "format/endian.h"
#include "format/label.h"
#include "format/mda.h"
#include "meta/read.h"

#define MIB (1u << 20)

struct mdfile {
    char *text;          /* NUL included */
    uint64_t size;       /* bytes, NUL included */
    uint32_t crc;
    char vgid[39];
};

/* One line of in (through '\n' or NUL, at most max bytes): its length with the end. */
static size_t line_len(const char *in, size_t max)
{
    size_t i = 0;
    while (i < max && in[i] != '\n' && in[i] != '\0')
        i++;
    return i < max ? i + 1 : max;
}

/* A backup file made raw text as LVM2 2.03.16 does: from the "name {" line on, each line
 * without its leading TABs and its TAB-separated trailing comment, empty lines kept; the
 * file's lines before the VG (the "# Generated" header and contents/version/description
 * lines) appended after it; a NUL at the end. */
static void backup_to_raw(struct pvck *p, struct mdfile *mf)
{
    const char *in = mf->text, *end = mf->text + mf->size;
    char *out = lvx_pool_alloc(p->env->pool, mf->size * 2 + 4);
    size_t o = 0, pre = 0;
    const char *c = in;
    while (c < end) {
        size_t n = line_len(c, (size_t)(end - c));
        c += n;
        if (n < 3)
            continue;
        char line[4096] = "";
        memcpy(line, c - n, n < sizeof(line) - 1 ? n : sizeof(line) - 1);
        if (lvx_pvck_vgname_start(line)) {
            memcpy(out, c - n, n);
            o = n;
            pre = (size_t)(c - in) - n;
            break;
        }
    }
    while (c < end && *c) {
        size_t n = line_len(c, (size_t)(end - c));
        const char *l = c;
        c += n;
        if (n == 1) {
            out[o++] = '\n';
            continue;
        }
        bool copying = false;
        for (size_t i = 0; i < n && l[i] != '\n' && l[i] != '\0'; i++) {
            if (!copying && l[i] == '\t')
                continue;
            if (copying && l[i] == '\t' && memchr(l + i, '#', n - i))
                break;
            copying = true;
            out[o++] = l[i];
        }
        out[o++] = '\n';
    }
    memcpy(out + o, in, pre);
    o += pre;
    out[o++] = 0;
    mf->text = out;
    mf->size = o;
}

static bool read_file(struct pvck *p, const char *path, struct mdfile *mf)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        lvx_pvck_err(p, "Cannot open file: %s", path);
        return false;
    }
    bool ok = false;
    if (fstat(fd, &st) != 0)
        lvx_pvck_err(p, "Cannot access file: %s", path);
    else if (st.st_size == 0)
        lvx_pvck_err(p, "Empty file: %s", path);
    else {
        mf->size = (uint64_t)st.st_size;
        mf->text = lvx_pool_alloc(p->env->pool, mf->size + 1);
        if (read(fd, mf->text, mf->size) != (ssize_t)mf->size)
            lvx_pvck_err(p, "Cannot read file: %s", path);
        else
            ok = true;
    }
    close(fd);
    if (!ok)
        return false;
    mf->text[mf->size++] = 0;
    if (mf->text[0] == '#' && strncmp(mf->text, "# Generated", 11) == 0)
        backup_to_raw(p, mf);
    const char *t = mf->text;
    if (mf->size < 129) {
        lvx_pvck_err(p, "Invalid raw text metadata in file.  File size is too small.");
        return false;
    }
    if (isspace((unsigned char)t[0]) && isspace((unsigned char)t[1]) && strstr(t, "---")) {
        lvx_pvck_err(p, "Invalid raw text metadata in file.");
        lvx_pvck_err(p, "(pvck stdout is not valid input, see pvck -f.)");
        return false;
    }
    if (t[mf->size - 1] || t[mf->size - 2] != '\n' || t[mf->size - 3] != '\n')
        lvx_cmd_errorf("WARNING: unexpected final bytes of raw metadata, expected \\n\\n\\0.");
    if (lvx_pvck_vgname_start(t)) {
        const char *id = strstr(t, "id = ");
        if (!id) {
            lvx_pvck_err(p, "Invalid raw text metadata in file.  (No VG UUID found.)");
            return false;
        }
        memset(mf->vgid, 0, sizeof(mf->vgid));
        strncpy(mf->vgid, id + 6, 38);
    } else {
        lvx_cmd_errorf("WARNING: file data does not begin with a VG name and may be invalid.");
        if (!lvx_pvcmd_confirm(p->env, "Write input file data to disk?")) {
            lvx_pvck_err(p, "Invalid raw text metadata in file.");
            return false;
        }
    }
    mf->crc = lvx_crc(LVX_CRC_INITIAL, mf->text, mf->size);
    return true;
}

/* The PV entry of the metadata file for this device: UUID (32 chars), dev_size and
 * pe_start (sectors). */
static bool pv_from_file(struct pvck *p, const struct mdfile *mf, const uint8_t *cur_uuid,
                         char uuid[33], uint64_t *dev_size, uint64_t *pe_start)
{
    char cur[33] = "", use[33] = "";
    const struct pvck_settings *st = &p->set;
    bool cur_ok = lvx_pvck_uuid_ok(cur_uuid, LVX_SECTOR_SIZE - 32);
    if (cur_ok)
        memcpy(use, memcpy(cur, cur_uuid, 32), 32);
    if (st->pvid_set)
        memcpy(use, st->pvid, 33);
    if (cur_ok && st->pvid_set && strcmp(cur, st->pvid) != 0)
        lvx_cmd_errorf("WARNING: existing PV UUID %s does not match pv_uuid setting %s.", cur, st->pvid);
    struct lvx_cfg_node *root = NULL, *pvs = NULL;
    if (lvx_cfg_parse(p->env->ctx, p->env->pool, mf->text, mf->size - 1, &root) < 0 || !root->child ||
        !(pvs = lvx_cfg_find(root->child, "physical_volumes"))) {
        lvx_error_clear(p->env->ctx);
        lvx_pvck_err(p, "Invalid metadata file.");
        return false;
    }
    for (struct lvx_cfg_node *pv = pvs->child; pv; pv = pv->next) {
        struct lvx_cfg_node *id = lvx_cfg_find(pv, "id"), *dev = lvx_cfg_find(pv, "device");
        struct lvx_cfg_node *ds = lvx_cfg_find(pv, "dev_size"), *ps = lvx_cfg_find(pv, "pe_start");
        if (!id || id->kind != LVX_CFG_STRING || !ds || !ps)
            continue;
        char raw[33];
        unsigned n = 0;
        for (const char *c = id->str; *c && n < 32; c++)
            if (*c != '-')
                raw[n++] = *c;
        raw[n] = 0;
        bool match = use[0] ? strcmp(raw, use) == 0
                            : dev && dev->kind == LVX_CFG_STRING && strcmp(dev->str, p->name) == 0;
        if (!match)
            continue;
        memcpy(uuid, raw, 33);
        *dev_size = (uint64_t)ds->num;
        *pe_start = (uint64_t)ps->num;
        return true;
    }
    if (st->pvid_set)
        lvx_pvck_err(p, "PV UUID %s not found in metadata file.", st->pvid);
    else if (cur_ok)
        lvx_pvck_err(p, "PV UUID %s in existing pv_header not found in metadata file.", cur);
    else
        lvx_pvck_err(p, "PV name %s not found in metadata file.", p->name);
    lvx_pvck_err(p, "No valid PV UUID, specify a PV UUID from metadata in --settings.");
    return false;
}

/* Evidence of a second area when the pv_header lists none: an mda header at the last
 * MiB-aligned MiB, with this VG's UUID near the start of one of its 512-byte blocks. */
static bool find_mda2(struct pvck *p, const struct mdfile *mf, uint64_t *off, uint64_t *size)
{
    if (p->size < 2 * MIB)
        return false;
    uint64_t o = p->size - p->size % MIB - MIB, s = p->size - o;
    char *b = lvx_pool_alloc(p->env->pool, s);
    if (!lvx_pvck_read(p, o, s, b) || memcmp(b + 4, LVX_MDA_MAGIC, 16) != 0)
        return false;
    if (lvx_get_le32((uint8_t *)b + 20) != LVX_MDA_VERSION) {
        lvx_pvck_say(p, "Skipping mda2 (wrong mda_header.version)");
        return false;
    }
    if (lvx_get_le64((uint8_t *)b + 24) != o) {
        lvx_pvck_say(p, "Skipping mda2 (wrong mda_header.start)");
        return false;
    }
    size_t idlen = mf ? strlen(mf->vgid) : 0;
    for (uint64_t i = 0; i < s / 1024; i++) {
        const char *blk = b + 512 + i * 512;
        size_t n = strnlen(blk, 256);
        if (idlen <= n && (idlen == 0 || memmem(blk, n, mf->vgid, idlen))) {
            lvx_pvck_say(p, "Found mda2 header at offset %llu size %llu", (unsigned long long)o,
                         (unsigned long long)s);
            *off = o;
            *size = s;
            return true;
        }
    }
    lvx_pvck_say(p, "Skipping mda2 (no matching VG UUID in metadata area)");
    return false;
}

/* Another device carrying this PV UUID? */
static bool uuid_elsewhere(struct pvck *p, const char *uuid)
{
    struct lvx_scan_opts so = lvx_pvcmd_scan_opts(p->env);
    struct lvx_scan *scan = NULL;
    int level = p->env->ctx->log_level;
    p->env->ctx->log_level = 0;     /* LVM2's scan here says nothing about other devices */
    int rc = lvx_scan_uncached(p->env->ctx, &so, &scan);
    p->env->ctx->log_level = level;
    if (rc < 0) {
        lvx_error_clear(p->env->ctx);
        lvx_pvck_err(p, "Failed to scan devices to check PV UUID.");
        return true;
    }
    bool found = false;
    for (unsigned i = 0; i < scan->pv_count && !found; i++) {
        const struct lvx_scan_pv *spv = &scan->pvs[i];
        if (strcmp(spv->label.pv_uuid, uuid) == 0 && !lvx_cmd_same_device(p->name, spv->dev->path)) {
            lvx_pvck_err(p, "Cannot use PV UUID %s which exists on %s", uuid, spv->dev->path);
            found = true;
        }
    }
    lvx_scan_free(scan);
    return found;
}

static bool write_at(struct pvck *p, const void *buf, size_t len, uint64_t off)
{
    return pwrite(p->fd, buf, len, (off_t)off) == (ssize_t)len && fsync(p->fd) == 0;
}

static int repair_pv_header(struct pvck *p, const struct mdfile *mf)
{
    lvx_pvck_label(p, false);
    if (!p->found_label)
        lvx_cmd_errorf("WARNING: No LVM label found on %s.  It may not be an LVM device.", p->name);
    unsigned count = p->mda_count;
    uint64_t mda2_off = count > 1 ? p->mda_off[1] : 0, mda2_size = count > 1 ? p->mda_size[1] : 0;
    if (!count) {
        uint8_t h[LVX_MDA_HEADER_SIZE];
        if (lvx_pvck_read(p, 4096, sizeof(h), h) && memcmp(h + 4, LVX_MDA_MAGIC, 16) == 0)
            count = 1;
        if (find_mda2(p, mf, &mda2_off, &mda2_size))
            count = 2;
    }
    const struct pvck_settings *st = &p->set;
    if (!count && st->mda_offset_set && st->mda_size_set && !st->mda_offset && !st->mda_size) {
        lvx_cmd_errorf("WARNING: PV will have no metadata with zero metadata areas.");
    } else if (!count) {
        lvx_cmd_errorf("WARNING: no previous metadata areas found on device.");
        if (!lvx_pvcmd_confirm(p->env, "Should a metadata area be included?")) {
            lvx_pvck_err(p, "To repair with zero metadata areas, use --settings \"mda_offset=0 mda_size=0\".");
            return 1;
        }
        count = 1;
    }
    if (count && (st->mda2_offset_set || st->mda2_size_set)) {
        if (mda2_off && mda2_off != st->mda2_offset) {
            lvx_pvck_err(p, "mda2_offset setting %llu does not match mda2_offset found on disk %llu.",
                         (unsigned long long)st->mda2_offset, (unsigned long long)mda2_off);
            return 1;
        }
        if (mda2_size && mda2_size != st->mda2_size) {
            lvx_pvck_err(p, "mda2_size setting %llu does not match mda2_size found on disk %llu.",
                         (unsigned long long)st->mda2_size, (unsigned long long)mda2_size);
            return 1;
        }
        mda2_off = st->mda2_offset;
        mda2_size = st->mda2_size;
        count = 2;
    }
    uint8_t buf[LVX_SECTOR_SIZE];
    uint64_t lh_off = p->sector * LVX_SECTOR_SIZE;
    if (!lvx_pvck_read(p, lh_off, sizeof(buf), buf)) {
        lvx_pvck_err(p, "Failed to read label_header at %llu", (unsigned long long)lh_off);
        return 1;
    }
    char uuid[33];
    uint64_t dev_size, data_off;
    if (st->device_size_set && st->pvid_set && st->data_offset_set && !mf) {
        dev_size = st->device_size;
        data_off = st->data_offset / 512 * 512;
        memcpy(uuid, st->pvid, 33);
        if (p->size && p->size != dev_size)
            lvx_cmd_errorf("WARNING: device_size setting %llu bytes does not match device size %llu bytes.",
                           (unsigned long long)dev_size, (unsigned long long)p->size);
    } else if (!mf) {
        lvx_pvck_err(p, "Metadata input file is needed for pv_header info.");
        lvx_pvck_err(p, "See pvck --dump to locate and create a metadata file.");
        return 1;
    } else {
        uint64_t dev_sectors, pe_start;
        if (!pv_from_file(p, mf, buf + 32, uuid, &dev_sectors, &pe_start))
            return 1;
        dev_size = dev_sectors * 512;
        data_off = pe_start * 512;
    }
    if (uuid_elsewhere(p, uuid))
        return 1;
    uint64_t mda1_off = count ? 4096 : 0, mda1_size = count ? data_off - 4096 : 0;
    memcpy(buf, LVX_LABEL_ID, 8);
    memcpy(buf + 24, LVX_LABEL_TYPE, 8);
    lvx_put_le64(buf + 8, p->sector);
    lvx_put_le32(buf + 20, 32);
    memcpy(buf + 32, uuid, 32);
    lvx_put_le64(buf + 64, dev_size);
    size_t at = 72;
    uint64_t locns[][2] = { { data_off, 0 }, { 0, 0 }, { mda1_off, mda1_size }, { mda2_off, mda2_size } };
    unsigned n = 2 + count;
    for (unsigned i = 0; i < n; i++, at += 16) {
        lvx_put_le64(buf + at, locns[i][0]);
        lvx_put_le64(buf + at + 8, locns[i][1]);
    }
    memset(buf + at, 0, 16);      /* end of the metadata areas */
    at += 16;
    lvx_put_le32(buf + at, 2);    /* extension version, flags: used */
    lvx_put_le32(buf + at + 4, LVX_PV_EXT_USED);
    memset(buf + at + 8, 0, 16);  /* no bootloader area */
    uint32_t crc = lvx_crc(LVX_CRC_INITIAL, buf + 20, sizeof(buf) - 20);
    lvx_put_le32(buf + 16, crc);
    if (count < 2)
        mda2_off = mda2_size = 0;
    lvx_pvck_say(p, "Writing label_header.crc 0x%08x pv_header uuid %s device_size %llu", crc, uuid,
                 (unsigned long long)dev_size);
    lvx_pvck_say(p, "Writing data_offset %llu mda1_offset %llu mda1_size %llu mda2_offset %llu mda2_size %llu",
                 (unsigned long long)data_off, (unsigned long long)mda1_off,
                 (unsigned long long)mda1_size, (unsigned long long)mda2_off,
                 (unsigned long long)mda2_size);
    if (p->env->args->count[LVX_OPT_TEST]) {
        lvx_cmd_errorf("Skip writing in test mode.");
        return 0;
    }
    if (!lvx_pvcmd_confirm(p->env, "Write new LVM header to %s?", p->name))
        return 1;
    if (!write_at(p, buf, sizeof(buf), lh_off)) {
        lvx_pvck_err(p, "Failed to write new header");
        return 1;
    }
    return 0;
}

/* The file's text right after the area's header, and the header pointing at it. */
static int update_mda(struct pvck *p, const struct mdfile *mf, int mn, uint64_t off, uint64_t size)
{
    uint8_t h[LVX_MDA_HEADER_SIZE];
    if (mf->size > size) {
        lvx_pvck_err(p, "Metadata text %llu too large for mda_size %llu max %llu",
                     (unsigned long long)mf->size, (unsigned long long)size,
                     (unsigned long long)lvx_mda_max_text_size(size));
        return 1;
    }
    if (!lvx_pvck_read(p, off, sizeof(h), h)) {
        lvx_pvck_say(p, "CHECK: failed to read mda_header_%d at %llu", mn, (unsigned long long)off);
        return 1;
    }
    memcpy(h + 4, LVX_MDA_MAGIC, 16);
    lvx_put_le32(h + 20, LVX_MDA_VERSION);
    lvx_put_le64(h + 24, off);
    lvx_put_le64(h + 32, size);
    memset(h + 40, 0, 48);
    lvx_put_le64(h + 40, LVX_MDA_HEADER_SIZE);
    lvx_put_le64(h + 48, mf->size);
    lvx_put_le32(h + 56, mf->crc);
    lvx_put_le32(h, lvx_crc(LVX_CRC_INITIAL, h + 4, sizeof(h) - 4));
    lvx_pvck_say(p, "Writing metadata at %llu length %llu crc 0x%08x mda%d",
                 (unsigned long long)(off + LVX_MDA_HEADER_SIZE), (unsigned long long)mf->size, mf->crc, mn);
    lvx_pvck_say(p, "Writing mda_header at %llu mda%d", (unsigned long long)off, mn);
    if (p->env->args->count[LVX_OPT_TEST]) {
        lvx_cmd_errorf("Skip writing in test mode.");
        return 0;
    }
    if (!lvx_pvcmd_confirm(p->env, "Write new LVM metadata to %s?", p->name))
        return 1;
    if (!write_at(p, mf->text, mf->size, off + LVX_MDA_HEADER_SIZE)) {
        lvx_pvck_err(p, "Failed to write new mda text");
        return 1;
    }
    if (!write_at(p, h, sizeof(h), off)) {
        lvx_pvck_err(p, "Failed to write new mda header");
        return 1;
    }
    return 0;
}

static int repair_metadata(struct pvck *p, const struct mdfile *mf)
{
    if (!mf) {
        lvx_pvck_err(p, "Metadata input file is required.");
        return 1;
    }
    lvx_pvck_label(p, false);
    if (!p->found_label) {
        lvx_pvck_err(p, "No lvm label found on device.");
        lvx_pvck_err(p, "See --repairtype pv_header to repair headers.");
        return 1;
    }
    const struct pvck_settings *st = &p->set;
    if (!p->mda_count && st->mda_offset_set && st->mda_size_set && !st->mda_offset && !st->mda_size) {
        lvx_pvck_say(p, "No metadata areas on device to repair.");
        return 0;
    }
    if (!p->mda_count) {
        lvx_pvck_err(p, "No metadata areas found on device.");
        lvx_pvck_err(p, "See --repairtype pv_header to repair headers.");
        return 1;
    }
    unsigned mn = st->mda_num;
    for (unsigned i = 1; i <= 2; i++)
        if (mn == i && !(p->mda_count >= i && p->mda_off[i - 1])) {
            lvx_pvck_err(p, "No mda%u offset found.", i);
            lvx_pvck_err(p, "See --repairtype pv_header to repair headers.");
            return 1;
        }
    int bad = 0;
    for (unsigned i = 0; i < p->mda_count; i++)
        if (p->mda_off[i] && (!mn || mn == i + 1))
            bad += update_mda(p, mf, (int)i + 1, p->mda_off[i], p->mda_size[i]);
    return bad;
}

int lvx_pvck_repair(struct pvck *p, const char *type)
{
    const char *file = p->env->args->count[LVX_OPT_FILE] ? p->env->args->value[LVX_OPT_FILE] : NULL;
    struct mdfile mf_store, *mf = NULL;
    if (file) {
        if (!read_file(p, file, &mf_store))
            return 1;
        mf = &mf_store;
    }
    if (type && strcmp(type, "pv_header") == 0)
        return repair_pv_header(p, mf);
    if (type)
        return repair_metadata(p, mf);
    return repair_pv_header(p, mf) || repair_metadata(p, mf);
}
