/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvck.c - `lvx pvck`: look at the on-disk structures of a PV as LVM2 2.03's
 * pvck does, field by field (lvm2-format.md §2-§6), without the scan or VG layers:
 *   pvck PV...                   check label, pv_header, mda headers and the current
 *                                metadata text's checksum; "Found label on ..." lines
 *   pvck --dump headers PV       every field of label, pv_header, extension, mda headers
 *   pvck --dump metadata PV      the current metadata text (-f FILE: into a new file)
 *   pvck --dump metadata_all PV  every copy found at 512-byte steps of the area
 *   pvck --dump metadata_search  the same without trusting the headers for the area
 *   pvck --dump metadata_area -f FILE   the area's bytes after the mda header
 *   pvck --repairtype label_header PV   rewrite the label_header fields and CRC
 *   pvck --repairtype pv_header|metadata, --repair -f FILE PV: cmd/pvck_repair.c
 * Problems are "CHECK: ..." lines on stdout; the exit code is 5 when one was found.
 * --dump also reads regular files (images).  The I/O is plain pread/pwrite on the
 * named path.  --settings (LVM2's keys) adjust locations and values.  Not done:
 * --dump backup_to_raw and the backup_file setting.
 */
#include "cmd/pvck.h"
#include "cmd/pvcmd.h"

#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include <unistd.h>

#include "format/cfg.h"
#include "format/crc.h"
#include "format/endian.h"
#include "format/label.h"
#include "format/mda.h"

#define AREA_DEFAULT_SIZE ((1u << 20) - 4096u)   /* search default: 1 MiB minus the first 4 KiB */

enum text_mode { TEXT_CHECK, TEXT_CURRENT, TEXT_ALL };

void lvx_pvck_say(struct pvck *p, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    lvx_notice(p->env->ctx, "%s", msg);
}

void lvx_pvck_err(struct pvck *p, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    lvx_cmd_errorf("%s", msg);
    p->errored = true;
}

bool lvx_pvck_read(struct pvck *p, uint64_t off, size_t len, void *buf)
{
    if (off > p->size || len > p->size - off)
        return false;
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(p->fd, (char *)buf + done, len - done, (off_t)(off + done));
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            return false;
        }
        done += (size_t)n;
    }
    return true;
}

/* Printable copy of n bytes ('?' for the others). */
static const char *printable(const uint8_t *in, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = isprint(in[i]) ? (char)in[i] : '?';
    out[n] = 0;
    return out;
}

/* Bytes as concatenated unpadded hex (LVM2's way of showing the mda magic). */
static const char *hexstr(const uint8_t *in, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        o += (size_t)sprintf(out + o, "%x", in[i]);
    return out;
}

/* The pv_uuid as LVM2 reads it: a C string from the field (dashes skipped), exactly 32
 * characters of the UUID alphabet. */
bool lvx_pvck_uuid_ok(const uint8_t *s, size_t max)
{
    static const char alpha[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!#";
    unsigned n = 0;
    for (size_t i = 0; i < max && s[i]; i++) {
        if (s[i] == '-')
            continue;
        if (n >= 32 || !strchr(alpha, s[i]))
            return false;
        n++;
    }
    return n == 32;
}

/* One disk_locn list of the pv_header (or extension): printed with `what` for its
 * entries; returns the offset after its terminator, or 0 when it runs off the sector. */
static size_t locn_list(struct pvck *p, const uint8_t *buf, size_t at, const char *prefix,
                        const char *what, bool print, unsigned *di, uint64_t lh_off,
                        uint64_t *off, uint64_t *sz, unsigned max, unsigned *count)
{
    while (at + 16 <= LVX_SECTOR_SIZE) {
        uint64_t o = lvx_get_le64(buf + at), s = lvx_get_le64(buf + at + 8);
        bool end = o == 0;
        if (print) {
            lvx_pvck_say(p, "%s.disk_locn[%u] at %llu # %s", prefix, *di, (unsigned long long)(lh_off + at),
                end ? "location list end" : what);
            lvx_pvck_say(p, "%s.disk_locn[%u].offset %llu", prefix, *di, (unsigned long long)o);
            lvx_pvck_say(p, "%s.disk_locn[%u].size %llu", prefix, *di, (unsigned long long)s);
        }
        (*di)++;
        at += 16;
        if (end)
            return at;
        if (count) {
            if (*count < max) {
                off[*count] = o;
                sz[*count] = s;
            }
            (*count)++;
        }
    }
    return 0;
}

/* Label sector and pv_header: CHECK lines for bad fields, every field when print.
 * Returns the number of problems. */
int lvx_pvck_label(struct pvck *p, bool print)
{
    uint8_t buf[LVX_SECTOR_SIZE];
    char str[64];
    uint64_t lh_off = p->sector * LVX_SECTOR_SIZE;
    int bad = 0;
    p->found_label = false;
    p->mda_count = 0;
    memset(p->mda_off, 0, sizeof(p->mda_off));
    memset(p->mda_size, 0, sizeof(p->mda_size));
    if (!lvx_pvck_read(p, lh_off, sizeof(buf), buf)) {
        lvx_pvck_say(p, "CHECK: failed to read label_header at %llu", (unsigned long long)lh_off);
        return 1;
    }
    if (print) {
        lvx_pvck_say(p, "label_header at %llu", (unsigned long long)lh_off);
        lvx_pvck_say(p, "label_header.id %s", printable(buf, 8, str));
        lvx_pvck_say(p, "label_header.sector %llu", (unsigned long long)lvx_get_le64(buf + 8));
        lvx_pvck_say(p, "label_header.crc 0x%x", lvx_get_le32(buf + 16));
        lvx_pvck_say(p, "label_header.offset %u", lvx_get_le32(buf + 20));
        lvx_pvck_say(p, "label_header.type %s", printable(buf + 24, 8, str));
    }
    bool good_id = memcmp(buf, LVX_LABEL_ID, 8) == 0, good_type = memcmp(buf + 24, LVX_LABEL_TYPE, 8) == 0;
    if (!good_id) {
        lvx_pvck_say(p, "CHECK: label_header.id expected %s", LVX_LABEL_ID);
        bad++;
    }
    if (lvx_get_le64(buf + 8) != p->sector) {
        lvx_pvck_say(p, "CHECK: label_header.sector expected %d", (int)p->sector);
        bad++;
    }
    uint32_t crc = lvx_crc(LVX_CRC_INITIAL, buf + 20, LVX_SECTOR_SIZE - 20);
    if (crc != lvx_get_le32(buf + 16)) {
        lvx_pvck_say(p, "CHECK: label_header.crc expected 0x%x", crc);
        bad++;
    }
    if (lvx_get_le32(buf + 20) != 32) {
        lvx_pvck_say(p, "CHECK: label_header.offset expected 32");
        bad++;
    }
    if (!good_type) {
        lvx_pvck_say(p, "CHECK: label_header.type expected %s", LVX_LABEL_TYPE);
        bad++;
    }
    p->found_label = good_id && good_type;

    if (print) {
        lvx_pvck_say(p, "pv_header at %llu", (unsigned long long)(lh_off + 32));
        lvx_pvck_say(p, "pv_header.pv_uuid %s", printable(buf + 32, 32, str));
        lvx_pvck_say(p, "pv_header.device_size %llu", (unsigned long long)lvx_get_le64(buf + 64));
    }
    if (!lvx_pvck_uuid_ok(buf + 32, sizeof(buf) - 32)) {
        lvx_pvck_say(p, "CHECK: pv_header.pv_uuid invalid format");
        bad++;
    }
    unsigned di = 0;
    size_t at = locn_list(p, buf, 72, "pv_header", "location of data area", print, &di, lh_off,
                          NULL, NULL, 0, NULL);
    if (at)
        at = locn_list(p, buf, at, "pv_header", "location of metadata area", print, &di, lh_off,
                       p->mda_off, p->mda_size, 2, &p->mda_count);
    if (p->mda_count && p->mda_off[0] != 4096 && p->mda_off[0] != 8192 && p->mda_off[0] != 65536)
        lvx_pvck_say(p, "WARNING: pv_header.disk_locn[%u].offset %llu is unexpected # for first mda",
            di - p->mda_count - 1, (unsigned long long)p->mda_off[0]);
    if (at && at + 8 <= sizeof(buf)) {
        if (print) {
            lvx_pvck_say(p, "pv_header_extension at %llu", (unsigned long long)(lh_off + at));
            lvx_pvck_say(p, "pv_header_extension.version %u", lvx_get_le32(buf + at));
            lvx_pvck_say(p, "pv_header_extension.flags %u", lvx_get_le32(buf + at + 4));
        }
        di = 0;
        locn_list(p, buf, at + 8, "pv_header_extension", "bootloader area", print, &di, lh_off,
                  NULL, NULL, 0, NULL);
    }
    if (p->mda_count > 2)
        p->mda_count = 2;
    return bad;
}

/* Write n bytes to a new file (LVM2 refuses to overwrite one). */
static bool write_new_file(struct pvck *p, const char *path, const void *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        lvx_pvck_err(p, "Failed to create file %s", path);
        return false;
    }
    bool ok = (size_t)write(fd, data, n) == n;
    return close(fd) == 0 && ok;
}

/* Name and seqno of a metadata text, when it parses. */
static bool text_parse(struct pvck *p, const char *text, size_t len, const char **vgname,
                       uint32_t *seqno)
{
    struct lvx_cfg_node *root = NULL;
    if (lvx_cfg_parse(p->env->ctx, p->env->pool, text, len, &root) < 0) {
        lvx_error_clear(p->env->ctx);
        return false;
    }
    if (vgname && root->child && root->child->key)
        *vgname = root->child->key;
    if (seqno && root->child) {
        struct lvx_cfg_node *n = lvx_cfg_find(root->child, "seqno");
        if (n && n->kind == LVX_CFG_INT)
            *seqno = (uint32_t)n->num;
    }
    return true;
}

/* The copy slot 0 points at: read (wrapping), CRC checked, parsed; printed in
 * TEXT_CURRENT mode (stdout between "---" lines, or into -f's file). */
static int current_text(struct pvck *p, int mn, bool print, enum text_mode mode, uint64_t mda_off,
                        uint64_t mda_size, uint64_t off, uint64_t size, uint32_t checksum)
{
    char *text = lvx_pool_alloc(p->env->pool, size + 1);
    bool ok;
    if (off + size > mda_size) {
        uint64_t wrap = off + size - mda_size;
        ok = lvx_pvck_read(p, mda_off + off, size - wrap, text) &&
             lvx_pvck_read(p, mda_off + LVX_MDA_HEADER_SIZE, wrap, text + size - wrap);
    } else {
        ok = lvx_pvck_read(p, mda_off + off, size, text);
    }
    if (!ok) {
        lvx_pvck_say(p, "CHECK: failed to read metadata text at mda_header_%d.raw_locn[0].offset %llu size %llu",
            mn, (unsigned long long)off, (unsigned long long)size);
        return 1;
    }
    text[size] = 0;
    int bad = 0;
    uint32_t crc = lvx_crc(LVX_CRC_INITIAL, text, size);
    if (crc != checksum) {
        lvx_pvck_say(p, "CHECK: metadata text at %llu crc does not match mda_header_%d.raw_locn[0].checksum",
            (unsigned long long)(mda_off + off), mn);
        bad++;
    }
    const char *vgname = NULL;
    uint32_t seqno = 0;
    if (!text_parse(p, text, strnlen(text, size), &vgname, &seqno)) {
        lvx_pvck_say(p, "CHECK: failed to parse metadata text at %llu size %llu",
            (unsigned long long)(mda_off + off), (unsigned long long)size);
        bad++;
    }
    if (print || mode == TEXT_CURRENT)
        lvx_pvck_say(p, "metadata text at %llu crc 0x%x # vgname %s seqno %u", (unsigned long long)(mda_off + off),
            crc, vgname ? vgname : "?", seqno);
    if (mode != TEXT_CURRENT)
        return bad;
    if (!p->tofile) {
        struct lvx_buf b = LVX_BUF_INIT;
        lvx_buf_printf(&b, "%s\n", text);
        lvx_pvck_say(p, "---");
        lvx_cmd_output(&b);
        lvx_buf_free(&b);
        lvx_pvck_say(p, "---");
    } else {
        write_new_file(p, p->tofile, text, strlen(text));
    }
    return bad;
}

/* Does a line start a VG's metadata ("name {")?  Length of the name, or 0. */
int lvx_pvck_vgname_start(const char *line)
{
    int chars = 0;
    bool space = false;
    for (int i = 0; i <= 130; i++) {
        char c = line[i];
        if (isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-' || c == '+') {
            if (space)
                return 0;
            chars++;
        } else if (c == ' ') {
            if (!chars || space)
                return 0;
            space = true;
        } else {
            return c == '{' && chars && space ? chars : 0;
        }
    }
    return 0;
}

/* Copy a line (through its '\n' or NUL, at most max-1 bytes) into out; its length. */
static size_t copy_line(const char *in, const char *end, char *out, size_t max)
{
    size_t i = 0;
    memset(out, 0, max);
    for (; i < max - 1 && in + i < end; i++) {
        out[i] = in[i];
        if (in[i] == '\n' || in[i] == '\0')
            return i + 1;
    }
    return i + 1;
}

/* The text starting at start up to its NUL, wrapping to offset 512 and stopping at
 * stop; NULL when no end is found or it is shorter than 256 bytes. */
static char *copy_out(struct pvck *p, const char *buf, uint64_t start, uint64_t stop,
                      uint64_t mda_size, uint64_t *len, bool *bad_end)
{
    uint64_t i, len_a = 0, len_b = 0, n;
    for (i = start; i < mda_size && buf[i]; i++)
        ;
    if (i < mda_size) {
        n = i - start;
    } else {
        len_a = i - start;
        for (i = LVX_MDA_HEADER_SIZE; i < stop && buf[i]; i++)
            ;
        if (i >= stop)
            return NULL;
        len_b = i - LVX_MDA_HEADER_SIZE;
        n = len_a + len_b;
    }
    if (n < 256) {
        lvx_pvck_say(p, "skip invalid metadata with len %llu at %llu", (unsigned long long)n,
            (unsigned long long)start);
        return NULL;
    }
    n++;
    char *t = lvx_pool_alloc(p->env->pool, n);
    if (len_a) {
        memcpy(t, buf + start, len_a);
        memcpy(t + len_a, buf + LVX_MDA_HEADER_SIZE, len_b);
    } else {
        memcpy(t, buf + start, n);
    }
    *bad_end = n < 3 || t[n - 1] != 0 || t[n - 2] != '\n' || t[n - 3] != '\n';
    *len = n;
    return t;
}

/* Every copy of metadata found at 512-byte steps of an area held in buf. */
static void all_text(struct pvck *p, uint64_t mda_off, uint64_t mda_size, const char *buf)
{
    int fd = -1;
    if (p->tofile && (fd = open(p->tofile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) < 0) {
        lvx_pvck_err(p, "Failed to create file %s", p->tofile);
        return;
    }
    char line[128], vgname[130], id[40], id_first[40] = "";
    uint64_t first = 0, count = 0, chunks = (mda_size - LVX_MDA_HEADER_SIZE) / 512;
    bool multiple = false;
    unsigned printed = 0;
    const char *end = buf + mda_size;
    bool one_found = false;
    while (count < chunks && !one_found) {
        uint64_t off = LVX_MDA_HEADER_SIZE + count * 512;
        const char *s = buf + off;
        if (p->set.metadata_offset_set) {     /* only the copy there */
            if (p->set.metadata_offset != mda_off + off) {
                count++;
                continue;
            }
            one_found = true;
        }
        s += copy_line(s, end, line, sizeof(line));
        int nl = lvx_pvck_vgname_start(line);
        if (!nl) {
            count++;
            continue;
        }
        memcpy(vgname, line, (size_t)nl);
        vgname[nl] = 0;
        s += copy_line(s, end, line, sizeof(line));
        if (strncmp(line, "id = ", 5) != 0) {
            count++;
            continue;
        }
        memset(id, 0, sizeof(id));
        memcpy(id, line + 6, 38);
        s += copy_line(s, end, line, sizeof(line));
        unsigned seqno;
        if (strncmp(line, "seqno = ", 8) != 0 || sscanf(line, "seqno = %u", &seqno) != 1) {
            count++;
            continue;
        }
        if (p->set.seqno_set) {               /* only the copy of this seqno */
            if (p->set.seqno != seqno) {
                count++;
                continue;
            }
            one_found = true;
        }
        uint64_t len = 0;
        bool bad_end = false;
        char *t = copy_out(p, buf, off, first ? first : off, mda_size, &len, &bad_end);
        if (!t) {
            lvx_pvck_err(p, "Failed to extract full metadata text at %llu, skipping.",
                           (unsigned long long)(mda_off + off));
            count++;
            continue;
        }
        if (!id_first[0])
            memcpy(id_first, id, sizeof(id_first));
        else if (memcmp(id_first, id, sizeof(id_first)) != 0)
            multiple = true;
        lvx_pvck_say(p, "metadata at %llu length %llu crc %08x vg %s seqno %u id %s",
            (unsigned long long)(mda_off + off), (unsigned long long)len,
            lvx_crc(LVX_CRC_INITIAL, t, len), vgname, seqno, id);
        if (!first)
            first = off;
        if (!text_parse(p, t, strnlen(t, len), NULL, NULL))
            lvx_cmd_errorf("WARNING: parse error for metadata at %llu", (unsigned long long)(mda_off + off));
        if (bad_end)
            lvx_cmd_errorf("WARNING: unexpected terminating bytes for metadata at %llu",
                           (unsigned long long)(mda_off + off));
        if (p->env->args->count[LVX_OPT_VERBOSE]) {
            const char *d = strstr(t, "description = "), *c = d ? strstr(d, "creation_time = ") : NULL;
            if (d)
                lvx_pvck_say(p, "%.*s", (int)strcspn(d, "\n"), d);
            if (c)
                lvx_pvck_say(p, "%.*s\n", (int)strcspn(c, "\n"), c);
        }
        if (fd >= 0) {
            size_t tl = strlen(t);
            if ((printed++ && write(fd, "\n--\n", 4) != 4) || (size_t)write(fd, t, tl) != tl)
                lvx_pvck_err(p, "Failed to write file %s", p->tofile);
        }
        count += len < 512 ? 1 : (len + 511) / 512;
    }
    if (multiple)
        lvx_cmd_errorf("WARNING: metadata from multiple VGs was found.");
    if (fd >= 0)
        close(fd);
}

/* One raw_locn slot: printed, checked; the slot values in off, size, sum (0 when
 * the slot is ignored).  Returns the number of problems. */
static int raw_locn(struct pvck *p, const uint8_t *h, int mn, int ri, uint64_t mda_off, uint64_t mda_size,
                    bool print, uint64_t *off, uint64_t *size, uint32_t *sum)
{
    const uint8_t *r = h + 40 + 24 * ri;
    uint64_t o = lvx_get_le64(r), s = lvx_get_le64(r + 8);
    uint32_t c = lvx_get_le32(r + 16), f = lvx_get_le32(r + 20);
    if (print) {
        lvx_pvck_say(p, "mda_header_%d.raw_locn[%d] at %llu # %s%s", mn, ri,
            (unsigned long long)(mda_off + 40 + 24 * ri), ri == 0 ? "commit" : "precommit",
            o + s > mda_size ? " wrapped" : "");
        lvx_pvck_say(p, "mda_header_%d.raw_locn[%d].offset %llu", mn, ri, (unsigned long long)o);
        lvx_pvck_say(p, "mda_header_%d.raw_locn[%d].size %llu", mn, ri, (unsigned long long)s);
        lvx_pvck_say(p, "mda_header_%d.raw_locn[%d].checksum 0x%x", mn, ri, c);
        lvx_pvck_say(p, "mda_header_%d.raw_locn[%d].flags 0x%x%s", mn, ri, f,
            f & LVX_RAW_LOCN_IGNORED ? " # RAW_LOCN_IGNORED" : "");
    }
    if (ri == 1 && o)
        lvx_pvck_say(p, "CHECK: mda_header_%d.raw_locn[%d] for precommit not empty", mn, ri);
    if (f & LVX_RAW_LOCN_IGNORED)
        return 0;
    if (s > mda_size - LVX_MDA_HEADER_SIZE) {
        lvx_pvck_say(p, "CHECK: mda_header_%d.raw_locn[%d].size larger than metadata area size", mn, ri);
        s = mda_size - LVX_MDA_HEADER_SIZE;
    }
    if (off) {
        *off = o;
        *size = s;
        *sum = c;
    }
    return 0;
}

/* One metadata area: header fields and checks, then per mode the current text, all
 * copies, or (area) the area's bytes into -f's file.  *sum0 = slot 0's checksum,
 * *found = the magic is right.  Returns the number of problems. */
static int mda_header(struct pvck *p, bool print, enum text_mode mode, bool area, uint64_t mda_off,
                      uint64_t mda_size, uint32_t *sum0, bool *found)
{
    uint8_t h[LVX_MDA_HEADER_SIZE];
    char str[80];
    int mn = mda_off == 4096 ? 1 : 2, bad = 0;
    *sum0 = 0;
    if (!lvx_pvck_read(p, mda_off, sizeof(h), h)) {
        lvx_pvck_say(p, "CHECK: failed to read mda_header at %llu", (unsigned long long)mda_off);
        return 1;
    }
    if (print) {
        lvx_pvck_say(p, "mda_header_%d at %llu # metadata area", mn, (unsigned long long)mda_off);
        lvx_pvck_say(p, "mda_header_%d.checksum 0x%x", mn, lvx_get_le32(h));
        lvx_pvck_say(p, "mda_header_%d.magic 0x%s", mn, hexstr(h + 4, 16, str));
        lvx_pvck_say(p, "mda_header_%d.version %u", mn, lvx_get_le32(h + 20));
        lvx_pvck_say(p, "mda_header_%d.start %llu", mn, (unsigned long long)lvx_get_le64(h + 24));
        lvx_pvck_say(p, "mda_header_%d.size %llu", mn, (unsigned long long)lvx_get_le64(h + 32));
    }
    uint32_t crc = lvx_crc(LVX_CRC_INITIAL, h + 4, sizeof(h) - 4);
    if (crc != lvx_get_le32(h)) {
        lvx_pvck_say(p, "CHECK: mda_header_%d.checksum expected 0x%x", mn, crc);
        bad++;
    }
    bool magic = memcmp(h + 4, LVX_MDA_MAGIC, 16) == 0;
    if (!magic) {
        lvx_pvck_say(p, "CHECK: mda_header_%d.magic expected 0x%s", mn,
            hexstr((const uint8_t *)LVX_MDA_MAGIC, 16, str));
        bad++;
    }
    if (lvx_get_le32(h + 20) != LVX_MDA_VERSION) {
        lvx_pvck_say(p, "CHECK: mda_header_%d.version expected %u", mn, LVX_MDA_VERSION);
        bad++;
    }
    if (lvx_get_le64(h + 24) != mda_off) {
        lvx_pvck_say(p, "CHECK: mda_header_%d.start does not match pv_header.disk_locn.offset %llu", mn,
            (unsigned long long)mda_off);
        bad++;
    }
    if (lvx_get_le64(h + 32) != mda_size) {
        lvx_pvck_say(p, "CHECK: mda_header_%d.size does not match pv_header.disk_locn.size %llu", mn,
            (unsigned long long)mda_size);
        bad++;
    }
    if (found && magic)
        *found = true;
    if (mda_size < LVX_MDA_HEADER_SIZE)
        return bad + 1;
    if (area) {
        char *b = p->tofile ? lvx_pool_alloc(p->env->pool, mda_size) : NULL;
        if (!b)
            return bad + 1;
        if (!lvx_pvck_read(p, mda_off, mda_size, b)) {
            lvx_pvck_say(p, "CHECK: failed to read metadata area at offset %llu size %llu",
                (unsigned long long)mda_off, (unsigned long long)mda_size);
            return bad + 1;
        }
        /* LVM2 writes the area's length minus one header, from the header on */
        return bad + !write_new_file(p, p->tofile, b, mda_size - LVX_MDA_HEADER_SIZE);
    }
    uint64_t off = 0, size = 0;
    bad += raw_locn(p, h, mn, 0, mda_off, mda_size, print, &off, &size, sum0);
    bad += raw_locn(p, h, mn, 1, mda_off, mda_size, print, NULL, NULL, NULL);
    if (!off)
        return bad;
    if (mode != TEXT_ALL)
        return bad + current_text(p, mn, print, mode, mda_off, mda_size, off, size, *sum0);
    char *b = lvx_pool_alloc(p->env->pool, mda_size);
    if (!lvx_pvck_read(p, mda_off, mda_size, b)) {
        lvx_pvck_say(p, "CHECK: failed to read metadata area at offset %llu size %llu",
            (unsigned long long)mda_off, (unsigned long long)mda_size);
        return bad + 1;
    }
    all_text(p, mda_off, mda_size, b);
    return bad;
}

/* The area --dump looks at: --settings mda_num, else --pvmetadatacopies, else 1. */
static unsigned mda_num(struct pvck *p)
{
    const struct lvx_cmd_args *a = p->env->args;
    if (p->set.mda_num)
        return p->set.mda_num;
    return a->count[LVX_OPT_PVMETADATACOPIES] ? (unsigned)a->val[LVX_OPT_PVMETADATACOPIES].n : 1;
}

static int dump_headers(struct pvck *p)
{
    int bad = lvx_pvck_label(p, true);
    uint32_t sum[2] = { 0, 0 };
    if (!p->mda_count) {
        lvx_pvck_say(p, "zero metadata copies");
        return 0;
    }
    for (unsigned i = 0; i < p->mda_count; i++)
        bad += mda_header(p, true, TEXT_CHECK, false, p->mda_off[i], p->mda_size[i], &sum[i], NULL);
    if (p->mda_count > 1 && sum[0] && sum[1] && sum[0] != sum[1])
        lvx_pvck_say(p, "CHECK: mdas have different raw_locn[0].checksum values");
    return bad;
}

/* --dump metadata / metadata_all / metadata_area of the first (or --pvmetadatacopies 2:
 * the second) area. */
static int dump_metadata(struct pvck *p, enum text_mode mode, bool area)
{
    int bad = lvx_pvck_label(p, false);
    unsigned mn = mda_num(p);
    uint32_t sum;
    if (!p->mda_count) {
        lvx_pvck_say(p, "zero metadata copies");
        return 0;
    }
    if (mn == 2 && p->mda_count < 2) {
        lvx_pvck_say(p, "CHECK: second mda not found");
        return bad + 1;
    }
    if (mn == 1 || mn == 2)
        bad += mda_header(p, false, mode, area, p->mda_off[mn - 1], p->mda_size[mn - 1], &sum, NULL);
    return bad;
}

/* Where mda2 would be for a given size / offset: the area ends at the last MiB
 * boundary of the device (0 below 2 MiB). */
static uint64_t mda2_end(const struct pvck *p)
{
    uint64_t mib = 1u << 20;
    return p->size < 2 * mib ? 0 : p->size - p->size % mib;
}

static uint64_t mda2_offset_for(const struct pvck *p, uint64_t size)
{
    return mda2_end(p) ? mda2_end(p) - size : 0;
}

static uint64_t mda2_size_for(const struct pvck *p, uint64_t off)
{
    return mda2_end(p) ? mda2_end(p) - off : 0;
}

/* --dump metadata_search with --settings giving the area: 0 and the area, 1 after the
 * error. */
static int search_area_from_settings(struct pvck *p, unsigned *mn, uint64_t *off, uint64_t *size)
{
    const struct pvck_settings *st = &p->set;
    unsigned given = 0;
    uint64_t o = 0, s = 0;
    bool second = !(st->mda_offset_set || st->mda_size_set);
    if (!second) {
        if (st->mda_offset_set) {
            o = st->mda_offset;
            given++;
        }
        if (st->mda_size_set) {
            s = st->mda_size;
            given++;
        }
    } else {
        if (st->mda2_offset_set) {
            o = st->mda2_offset;
            given++;
        }
        if (st->mda_size_set) {    /* LVM2 2.03.16 reads mda2_size only with mda_size given */
            s = st->mda2_size;
            given++;
        }
    }
    if ((*mn = st->mda_num))
        given++;
    if (!(o && s)) {
        if (given < 2) {
            lvx_pvck_err(p, second ? "Specify at least two values from: mda_num, mda2_offset, mda2_size."
                                   : "Specify at least two values from: mda_num, mda_offset, mda_size.");
            return 1;
        }
        if (second && *mn == 1) {
            lvx_pvck_err(p, "Invalid mda_num=1 and mda2 settings.");
            return 1;
        }
        unsigned k = second ? 2 : *mn;
        if (!s)
            s = k == 1 ? (p->mda_size[0] ? p->mda_size[0] : AREA_DEFAULT_SIZE)
                : k == 2 ? (p->mda_count > 1 && p->mda_size[1] ? p->mda_size[1] : mda2_size_for(p, o)) : 0;
        if (!o)
            o = k == 1 ? 4096 : k == 2 ? (second && p->mda_count > 1 && p->mda_off[1] ? p->mda_off[1] : mda2_offset_for(p, s)) : 0;
        if (!second && (st->mda2_offset_set || st->mda2_size_set))
            lvx_pvck_say(p, "Ignoring mda2 values from settings.");
    }
    *off = o;
    *size = s;
    return 0;
}

/* --dump metadata_search: the area from --settings, the pv_header, or the usual place. */
static int dump_search(struct pvck *p)
{
    lvx_pvck_label(p, false);
    const struct pvck_settings *st = &p->set;
    unsigned mn = mda_num(p);
    uint64_t off, size;
    if (st->mda_offset_set || st->mda_size_set || st->mda2_offset_set || st->mda2_size_set) {
        if (search_area_from_settings(p, &mn, &off, &size))
            return 1;
    } else if (mn == 1 && p->found_label && p->mda_count && p->mda_off[0] && p->mda_size[0]) {
        off = p->mda_off[0];
        size = p->mda_size[0];
    } else if (mn == 1) {
        off = 4096;
        size = AREA_DEFAULT_SIZE;
        lvx_pvck_say(p, "Using common defaults for first mda: offset %llu size %llu.", (unsigned long long)off,
            (unsigned long long)size);
        lvx_pvck_say(p, "Override defaults with --settings \"mda_offset=<bytes> mda_size=<bytes>\"");
    } else if (mn == 2 && p->found_label && p->mda_count > 1 && p->mda_off[1] && p->mda_size[1]) {
        off = p->mda_off[1];
        size = p->mda_size[1];
    } else if (mn == 2) {
        uint64_t mib = 1u << 20;
        if (p->size < 2 * mib)
            return 1;
        off = p->size - p->size % mib - mib;
        size = p->size - off;
        lvx_pvck_say(p, "Using defaults for second mda: offset %llu size %llu.", (unsigned long long)off,
            (unsigned long long)size);
        lvx_pvck_say(p, "Override defaults with --settings \"mda_offset=<bytes> mda_size=<bytes>\"");
    } else {
        lvx_pvck_err(p, "No mda location.");
        return 1;
    }
    if (mn == 1 && ((p->mda_off[0] && p->mda_off[0] != off) || (p->mda_size[0] && p->mda_size[0] != size)))
        lvx_pvck_say(p, "Ignoring mda1_offset %llu mda1_size %llu from pv_header.",
            (unsigned long long)p->mda_off[0], (unsigned long long)p->mda_size[0]);
    if (mn == 2 && p->mda_count > 1 &&
        ((p->mda_off[1] && p->mda_off[1] != off) || (p->mda_size[1] && p->mda_size[1] != size)))
        lvx_pvck_say(p, "Ignoring mda2_offset %llu mda2_size %llu from pv_header.",
                     (unsigned long long)p->mda_off[1], (unsigned long long)p->mda_size[1]);
    lvx_pvck_say(p, "Searching for metadata at offset %llu size %llu", (unsigned long long)off,
        (unsigned long long)size);
    char *b = size >= LVX_MDA_HEADER_SIZE ? lvx_pool_alloc(p->env->pool, size) : NULL;
    if (!b || !lvx_pvck_read(p, off, size, b)) {
        lvx_pvck_say(p, "CHECK: failed to read metadata area at offset %llu size %llu", (unsigned long long)off,
            (unsigned long long)size);
        return 1;
    }
    all_text(p, off, size, b);
    return 0;
}

/* Plain `pvck PV`: the checks, then LVM2's historical "Found ..." lines. */
static int check_found(struct pvck *p)
{
    int bad = lvx_pvck_label(p, false);
    bool found[2] = { false, false };
    uint32_t sum;
    if (p->found_label)
        for (unsigned i = 0; i < p->mda_count; i++)
            bad += mda_header(p, false, TEXT_CHECK, false, p->mda_off[i], p->mda_size[i], &sum, &found[i]);
    if (!p->found_label) {
        lvx_pvck_err(p, "Could not find LVM label on %s", p->name);
        return 1;
    }
    lvx_pvck_say(p, "Found label on %s, sector %llu, type=LVM2 001", p->name, (unsigned long long)p->sector);
    for (unsigned i = 0; i < p->mda_count; i++)
        if (found[i])
            lvx_pvck_say(p, "Found text metadata area: offset=%llu, size=%llu", (unsigned long long)p->mda_off[i],
                (unsigned long long)p->mda_size[i]);
    return bad;
}

/* --repairtype label_header: id, sector, offset, type and CRC rewritten, the rest of the
 * sector kept. */
static int repair_label_header(struct pvck *p)
{
    lvx_pvck_label(p, false);
    if (!p->found_label) {
        lvx_cmd_errorf("WARNING: No LVM label found on %s.  It may not be an LVM device.", p->name);
        if (!lvx_pvcmd_confirm(p->env, "Write LVM header to device?"))
            return 1;
    }
    uint8_t buf[LVX_SECTOR_SIZE];
    uint64_t lh_off = p->sector * LVX_SECTOR_SIZE;
    if (!lvx_pvck_read(p, lh_off, sizeof(buf), buf)) {
        lvx_pvck_err(p, "Failed to read label_header at %llu", (unsigned long long)lh_off);
        return 1;
    }
    memcpy(buf, LVX_LABEL_ID, 8);
    memcpy(buf + 24, LVX_LABEL_TYPE, 8);
    lvx_put_le64(buf + 8, p->sector);
    lvx_put_le32(buf + 20, 32);
    uint32_t crc = lvx_crc(LVX_CRC_INITIAL, buf + 20, sizeof(buf) - 20);
    lvx_put_le32(buf + 16, crc);
    lvx_pvck_say(p, "Writing label_header.crc 0x%08x", crc);
    if (p->env->args->count[LVX_OPT_TEST]) {
        lvx_cmd_errorf("Skip writing in test mode.");
        return 0;
    }
    if (!lvx_pvcmd_confirm(p->env, "Write new LVM header to %s?", p->name))
        return 1;
    if (pwrite(p->fd, buf, sizeof(buf), (off_t)lh_off) != (ssize_t)sizeof(buf) || fsync(p->fd) != 0) {
        lvx_pvck_err(p, "Failed to write new header");
        return 1;
    }
    return 0;
}

/* Open the device (or, for --dump, a regular file) the scan would not refuse; false
 * after LVM2's message. */
static bool open_src(struct pvck *p, bool dump, bool write)
{
    struct stat st;
    if (stat(p->name, &st) < 0) {
        if (dump)
            lvx_pvck_err(p, "Cannot access %s.", p->name);
        else
            lvx_pvck_err(p, "Cannot use %s: device not found.", p->name);
        return false;
    }
    if (!S_ISBLK(st.st_mode) && !(dump && S_ISREG(st.st_mode))) {
        lvx_pvck_err(p, "Cannot use %s: device not found.", p->name);
        return false;
    }
    const char *why = S_ISBLK(st.st_mode) ? lvx_cmd_named_refusal(p->env, p->name) : NULL;
    if (why) {           /* refused as the scan refuses it (an image file is not judged) */
        lvx_pvck_err(p, "Cannot use %s: %s.", p->name, why);
        return false;
    }
    p->fd = open(p->name, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    if (p->fd < 0) {
        lvx_pvck_err(p, "Cannot use %s: %s.", p->name, strerror(errno));
        return false;
    }
    p->size = (uint64_t)st.st_size;
    if (S_ISBLK(st.st_mode) && ioctl(p->fd, BLKGETSIZE64, &p->size) < 0)
        p->size = 0;
    return true;
}

/* One "key=value" of --settings (keys matched by prefix, as LVM2). */
static bool one_setting(struct pvck *p, const char *key, const char *val)
{
    struct pvck_settings *st = &p->set;
    static const struct {
        const char *key;
        size_t off, set_off;
    } nums[] = {
#define NUM(k) { #k, offsetof(struct pvck_settings, k), offsetof(struct pvck_settings, k##_set) }
        NUM(metadata_offset), NUM(mda_offset), NUM(mda_size), NUM(mda2_offset), NUM(mda2_size),
        NUM(device_size), NUM(data_offset),
#undef NUM
    };
    unsigned long long v;
    unsigned u;
    if (strncmp(key, "seqno", 5) == 0) {
        if (sscanf(val, "%u", &u) != 1)
            goto bad;
        st->seqno = u;
        st->seqno_set = true;
        return true;
    }
    if (strncmp(key, "backup_file", 11) == 0) {
        lvx_pvck_err(p, "pvck: the backup_file setting is not supported by lvx.");
        return false;
    }
    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
        if (strncmp(key, nums[i].key, strlen(nums[i].key)) != 0)
            continue;
        if (sscanf(val, "%llu", &v) != 1)
            goto bad;
        *(uint64_t *)((char *)st + nums[i].off) = v;
        *(bool *)((char *)st + nums[i].set_off) = true;
        return true;
    }
    if (strncmp(key, "pv_uuid", 7) == 0) {
        if (strchr(val, '-') && strlen(val) == 32) {
            memcpy(st->pvid, val, 32);
        } else if (lvx_pvck_uuid_ok((const uint8_t *)val, strlen(val))) {
            unsigned n = 0;
            for (const char *c = val; *c; c++)
                if (*c != '-')
                    st->pvid[n++] = *c;
        } else {
            lvx_pvck_err(p, "Failed to parse UUID from pv_uuid setting.");
            goto bad;
        }
        st->pvid[32] = 0;
        st->pvid_set = true;
        return true;
    }
    if (strncmp(key, "mda_num", 7) == 0) {
        if (sscanf(val, "%u", &u) != 1)
            goto bad;
        st->mda_num = u;
        return true;
    }
bad:
    lvx_pvck_err(p, "Invalid setting: %s", key);
    return false;
}

/* Every --settings "k1=v1 k2 = v2" given. */
static bool get_settings(struct pvck *p)
{
    const struct lvx_cmd_args *a = p->env->args;
    for (unsigned i = 0; i < a->seq_count; i++) {
        if (a->seq_id[i] != LVX_OPT_SETTINGS)
            continue;
        const char *str = a->seq_value[i];
        size_t pos = 0, len = strlen(str);
        while (pos < len) {
            char key[64] = "", val[64] = "";
            int n = 0;
            if (sscanf(str + pos, " %63[^=]=%63s %n", key, val, &n) != 2) {
                lvx_pvck_err(p, "Invalid setting at: %s", str + pos);
                return false;
            }
            pos += (size_t)n;
            if (!one_setting(p, key, val))
                return false;
        }
    }
    return true;
}

/* The exit code; LVM2's last line when the command failed without an error line. */
static int finish(struct pvck *p, int bad)
{
    if (!bad)
        return 0;
    if (!p->errored)
        lvx_cmd_errorf("Command failed with status code %d.", LVX_EXIT_FAILED);
    return LVX_EXIT_FAILED;
}

int lvx_cmd_pvck(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    struct pvck p = { .env = env, .fd = -1, .sector = 1, .tofile = a->value[LVX_OPT_FILE] };
    const char *dump = a->count[LVX_OPT_DUMP] ? a->value[LVX_OPT_DUMP] : NULL;
    const char *repair = a->count[LVX_OPT_REPAIRTYPE] ? a->value[LVX_OPT_REPAIRTYPE] : NULL;
    static const char *const dumps[] = { "headers", "metadata", "metadata_all", "metadata_search",
                                         "metadata_area", "backup_to_raw", NULL };
    static const char *const repairs[] = { "label_header", "pv_header", "metadata", NULL };
    bool known = !dump;
    for (unsigned i = 0; dump && dumps[i]; i++)
        known |= strcmp(dump, dumps[i]) == 0;
    if (!known) {
        lvx_pvck_err(&p, "Invalid argument for --dump: %s", dump);
        lvx_pvck_err(&p, "Error during parsing of command line.");
        return LVX_EXIT_INVALID;
    }
    known = !repair;
    for (unsigned i = 0; repair && repairs[i]; i++)
        known |= strcmp(repair, repairs[i]) == 0;
    if (!known) {
        lvx_pvck_err(&p, "Invalid argument for --repairtype: %s", repair);
        lvx_pvck_err(&p, "Error during parsing of command line.");
        return LVX_EXIT_INVALID;
    }
    if (a->argc < 1 || ((dump || repair || a->count[LVX_OPT_REPAIR]) && a->argc != 1)) {
        lvx_pvck_err(&p, "No command with matching syntax recognised.  Run 'pvck --help' for more "
                       "information.");
        return LVX_EXIT_INVALID;
    }
    if (a->count[LVX_OPT_LABELSECTOR])
        p.sector = a->val[LVX_OPT_LABELSECTOR].n;
    if (dump && strcmp(dump, "backup_to_raw") == 0) {
        lvx_pvck_err(&p, "pvck: this form is not supported by lvx yet.");
        return LVX_EXIT_FAILED;
    }
    bool fix = repair || a->count[LVX_OPT_REPAIR];
    if (dump || fix) {
        p.name = a->argv[0];
        if (!open_src(&p, dump != NULL, fix))
            return LVX_EXIT_FAILED;
        if (!get_settings(&p)) {
            close(p.fd);
            return LVX_EXIT_FAILED;
        }
        int bad;
        if (repair && strcmp(repair, "label_header") == 0)
            bad = repair_label_header(&p);
        else if (fix)
            bad = lvx_pvck_repair(&p, repair);
        else if (strcmp(dump, "headers") == 0)
            bad = dump_headers(&p);
        else if (strcmp(dump, "metadata_search") == 0)
            bad = dump_search(&p);
        else
            bad = dump_metadata(&p, strcmp(dump, "metadata") == 0 ? TEXT_CURRENT
                                    : strcmp(dump, "metadata_all") == 0 ? TEXT_ALL : TEXT_CHECK,
                                strcmp(dump, "metadata_area") == 0);
        close(p.fd);
        if (bad && dump && strcmp(dump, "metadata_search") != 0)
            lvx_pvck_err(&p, "Found bad header or metadata values.");
        return finish(&p, bad);
    }
    if (!get_settings(&p))
        return LVX_EXIT_FAILED;
    int failed = 0;
    for (int i = 0; i < a->argc; i++) {
        p.name = a->argv[i];
        if (!open_src(&p, false, false))
            continue;            /* LVM2 goes on, and its exit status stays 0 */
        failed |= check_found(&p);
        close(p.fd);
    }
    return finish(&p, failed);
}
