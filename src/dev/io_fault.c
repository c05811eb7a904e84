/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/io_fault.c - LVX_TEST_DP_FAULT (dev/io.h): rules injecting errors, short
 * transfers, delays and lost flushes into the ops of submitted batches (the
 * daemon's datapath) on chosen devices, or kill the process at a chosen op (a crash
 * inside one batch: the ops before it done, it and the rest not).  Test code only: the default ops never
 * come here.  A rule counts the ops it matches (all threads together, and the
 * processes forked after the rules were read: a daemon's restarted worker goes on
 * counting, so a kill hits once); after `after` of them it hits the next `count`
 * (0: all).  A device named by path is
 * matched by fstat() of each op's fd (block device number, else file system and
 * inode).  Faulted ops are never handed to the inner submit: a batch is cut
 * around them; a short op goes in with half its length.
 *
 * Entry points: lvx_io_fault_configure(), lvx_io_fault_parse_only(),
 * lvx_io_fault_active(), lvx_io_fault_submit().
 */
#include "dev/io_fault.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_RULES 8
#define SPEC_MAX 2048
#define CHUNK 128                  /* ops decided at once (stack arrays, ~20 KiB) */

enum fault { F_NONE, F_EIO, F_SHORT, F_DELAY, F_LOSTFLUSH, F_KILL,
             F_EMPTY };                /* a short op with nothing left to do */
enum { M_READ = 1, M_WRITE = 2, M_FLUSH = 4, M_ZERO = 8, M_ANY = 15 };

struct rule {
    bool by_index;
    unsigned index;
    bool is_blk;
    dev_t rdev, dev;
    ino_t ino;
    char path[256];
    unsigned ops;                  /* M_* */
    bool by_off;                   /* only ops starting at byte off */
    uint64_t off;
    enum fault kind;
    unsigned ms;
    unsigned long after, count;
};

struct rules {
    struct rule r[MAX_RULES];
    unsigned n;
};

static struct {
    pthread_mutex_t lock;
    char spec[SPEC_MAX];
    struct rules set;
    unsigned long *seen;           /* per rule: ops matched; shared with forked children */
} st = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The rules' counters, zeroed: a shared mapping made once (a private array if mmap
 * fails).  Called with st.lock held. */
static void reset_seen(void)
{
    static unsigned long fallback[MAX_RULES];
    if (!st.seen) {
        void *m = mmap(NULL, sizeof(fallback), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                       -1, 0);
        st.seen = m == MAP_FAILED ? fallback : m;
    }
    for (unsigned i = 0; i < MAX_RULES; i++)
        __atomic_store_n(&st.seen[i], 0, __ATOMIC_RELAXED);
}

static const char *const fault_names[] = { "none", "eio", "short", "delay", "lostflush", "kill" };

static int bad(char *err, size_t n, const char *fmt, const char *what)
{
    snprintf(err, n, fmt, what);
    return -EINVAL;
}

static bool parse_ulong(const char *v, unsigned long *out)
{
    char *end;
    if (!*v || *v == '-')
        return false;
    errno = 0;
    *out = strtoul(v, &end, 10);
    return !*end && errno == 0;
}

static int parse_pv(struct rule *r, const char *v, char *err, size_t n)
{
    unsigned long idx;
    if (parse_ulong(v, &idx)) {
        r->by_index = true;
        r->index = (unsigned)idx;
        snprintf(r->path, sizeof(r->path), "-");
        return 0;
    }
    struct stat sb;
    if (!*v || stat(v, &sb) < 0)
        return bad(err, n, "pv=%s: no such device or file", v);
    r->is_blk = S_ISBLK(sb.st_mode);
    r->rdev = sb.st_rdev;
    r->dev = sb.st_dev;
    r->ino = sb.st_ino;
    snprintf(r->path, sizeof(r->path), "%s", v);
    return 0;
}

static int parse_kind(struct rule *r, const char *v, char *err, size_t n)
{
    unsigned long ms;
    if (strcmp(v, "eio") == 0)
        r->kind = F_EIO;
    else if (strcmp(v, "short") == 0)
        r->kind = F_SHORT;
    else if (strcmp(v, "lostflush") == 0)
        r->kind = F_LOSTFLUSH;
    else if (strcmp(v, "kill") == 0)
        r->kind = F_KILL;
    else if (strncmp(v, "delay=", 6) == 0 && parse_ulong(v + 6, &ms) && ms <= 600000) {
        r->kind = F_DELAY;
        r->ms = (unsigned)ms;
    } else
        return bad(err, n, "kind=%s: not eio, short, delay=MS, lostflush or kill", v);
    return 0;
}

static int parse_op(struct rule *r, const char *v, char *err, size_t n)
{
    static const struct { const char *name; unsigned mask; } ops[] = {
        { "read", M_READ }, { "write", M_WRITE }, { "flush", M_FLUSH }, { "zero", M_ZERO },
        { "any", M_ANY },
    };
    for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(v, ops[i].name) == 0) {
            r->ops = ops[i].mask;
            return 0;
        }
    return bad(err, n, "op=%s: not read, write, flush, zero or any", v);
}

/* One rule: comma-separated key=value (the value may hold '=': kind=delay=MS). */
static int parse_rule(struct rule *r, char *text, char *err, size_t n)
{
    memset(r, 0, sizeof(*r));
    r->ops = M_ANY;
    bool have_pv = false, have_kind = false;
    for (char *save = NULL, *kv = strtok_r(text, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            return bad(err, n, "%s: not key=value", kv);
        *eq = 0;
        const char *k = kv, *v = eq + 1;
        int rc = 0;
        if (strcmp(k, "pv") == 0) {
            rc = parse_pv(r, v, err, n);
            have_pv = true;
        } else if (strcmp(k, "op") == 0) {
            rc = parse_op(r, v, err, n);
        } else if (strcmp(k, "kind") == 0) {
            rc = parse_kind(r, v, err, n);
            have_kind = true;
        } else if (strcmp(k, "after") == 0) {
            rc = parse_ulong(v, &r->after) ? 0 : bad(err, n, "after=%s: not a count", v);
        } else if (strcmp(k, "count") == 0) {
            rc = parse_ulong(v, &r->count) ? 0 : bad(err, n, "count=%s: not a count", v);
        } else if (strcmp(k, "off") == 0) {
            unsigned long o;
            rc = parse_ulong(v, &o) && o % 512 == 0
                     ? 0 : bad(err, n, "off=%s: not a byte offset (a multiple of 512)", v);
            r->by_off = true;
            r->off = o;
        } else {
            rc = bad(err, n, "%s: unknown key (pv, op, kind, after, count, off)", k);
        }
        if (rc < 0)
            return rc;
    }
    if (!have_pv || !have_kind)
        return bad(err, n, "%s", "a rule needs pv= and kind=");
    if (r->kind == F_SHORT && !(r->ops & (M_READ | M_WRITE)))
        return bad(err, n, "%s", "kind=short needs op=read, write or any");
    if (r->kind == F_LOSTFLUSH && !(r->ops & M_FLUSH))
        return bad(err, n, "%s", "kind=lostflush needs op=flush or any");
    return 0;
}

static int parse(const char *spec, struct rules *out, char *err, size_t n)
{
    char copy[SPEC_MAX];
    memset(out, 0, sizeof(*out));
    if (strlen(spec) >= sizeof(copy))
        return bad(err, n, "%s", "too long");
    snprintf(copy, sizeof(copy), "%s", spec);
    for (char *save = NULL, *t = strtok_r(copy, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
        if (out->n == MAX_RULES)
            return bad(err, n, "%s", "more than 8 rules");
        int rc = parse_rule(&out->r[out->n], t, err, n);
        if (rc < 0)
            return rc;
        out->n++;
    }
    return 0;
}

int lvx_io_fault_parse_only(const char *spec, char *err, size_t n)
{
    static struct rules scratch;          /* large: not on the caller's stack */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    int rc = parse(spec ? spec : "", &scratch, err, n);
    pthread_mutex_unlock(&lock);
    return rc;
}

int lvx_io_fault_configure(const char *spec, char *err, size_t n)
{
    int rc = 0;
    if (!spec)
        spec = "";
    pthread_mutex_lock(&st.lock);
    if (strcmp(spec, st.spec) != 0) {
        snprintf(st.spec, sizeof(st.spec), "%s", spec);
        if ((rc = parse(spec, &st.set, err, n)) < 0)
            st.set.n = 0;
        reset_seen();
    }
    pthread_mutex_unlock(&st.lock);
    return rc;
}

bool lvx_io_fault_active(void)
{
    pthread_mutex_lock(&st.lock);
    bool on = st.set.n > 0;
    pthread_mutex_unlock(&st.lock);
    return on;
}

static unsigned op_mask(const struct lvx_io_op *op)
{
    switch (op->kind) {
    case LVX_IO_READ: return M_READ;
    case LVX_IO_WRITE:
    case LVX_IO_WRITE_FUA: return M_WRITE;
    case LVX_IO_DATASYNC: return M_FLUSH;
    default: return M_ZERO;
    }
}

static bool rule_selects(const struct rule *r, const struct lvx_io_op *op, const struct stat *sb,
                         bool have_sb)
{
    if (!(r->ops & op_mask(op)))
        return false;
    if (r->by_off && op->off != r->off)
        return false;
    if (r->by_index)
        return op->dev == r->index;
    if (!have_sb)
        return false;
    if (r->is_blk)
        return S_ISBLK(sb->st_mode) && sb->st_rdev == r->rdev;
    return sb->st_dev == r->dev && sb->st_ino == r->ino;
}

/* The fault for op (counting it in every rule that selects it); the first rule that
 * hits decides.  Called with st.lock held. */
static enum fault decide(const struct lvx_io_op *op, const struct stat *sb, bool have_sb,
                         unsigned *ms, const char **path)
{
    enum fault f = F_NONE;
    for (unsigned i = 0; i < st.set.n; i++) {
        struct rule *r = &st.set.r[i];
        if (!rule_selects(r, op, sb, have_sb))
            continue;
        unsigned long k = __atomic_add_fetch(&st.seen[i], 1, __ATOMIC_RELAXED);
        bool hit = k > r->after && (r->count == 0 || k <= r->after + r->count);
        if (!hit || f != F_NONE)
            continue;
        if (r->kind == F_SHORT && op_mask(op) & ~(M_READ | M_WRITE))
            continue;
        if (r->kind == F_LOSTFLUSH && op->kind != LVX_IO_DATASYNC)
            continue;
        f = r->kind;
        *ms = r->ms;
        *path = r->path;
    }
    return f;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Not handed to the inner submit. */
static bool set_aside(uint8_t f)
{
    return f == F_EIO || f == F_LOSTFLUSH || f == F_EMPTY;
}

/* One chunk of at most CHUNK ops. */
static int fault_chunk(lvx_io_submit_fn inner, void *arg, struct lvx_io_queue *q,
                       struct lvx_io_op *ops, unsigned n, lvx_io_fault_log_fn log)
{
    uint8_t what[CHUNK];
    uint32_t full[CHUNK];
    const char *paths[CHUNK];
    struct stat sbs[CHUNK];
    bool have[CHUNK];
    unsigned delay = 0;
    for (unsigned i = 0; i < n; i++)
        have[i] = fstat(ops[i].fd, &sbs[i]) == 0;
    pthread_mutex_lock(&st.lock);
    for (unsigned i = 0; i < n; i++) {
        unsigned ms = 0;
        paths[i] = "-";
        what[i] = (uint8_t)decide(&ops[i], &sbs[i], have[i], &ms, &paths[i]);
        if (what[i] == F_DELAY && ms > delay)
            delay = ms;
    }
    pthread_mutex_unlock(&st.lock);
    /* a kill: the ops before it run (with their own faults), then the process dies */
    bool killing = false;
    for (unsigned i = 0; i < n && !killing; i++)
        if (what[i] == F_KILL) {
            killing = true;
            if (log)
                log(fault_names[F_KILL], &ops[i], paths[i]);
            n = i;
        }
    for (unsigned i = 0; i < n; i++) {
        full[i] = ops[i].len;
        if (what[i] == F_NONE)
            continue;
        if (log)
            log(fault_names[what[i]], &ops[i], paths[i]);
        if (what[i] == F_SHORT) {
            ops[i].len = (ops[i].len / 2) & ~511u;
            if (ops[i].len == 0)
                what[i] = F_EMPTY;
        }
    }
    if (delay)
        sleep_ms(delay);
    int rc = 0;
    unsigned i = 0;
    while (i < n && rc == 0) {
        if (set_aside(what[i])) {
            ops[i].result = what[i] == F_EMPTY ? 0 : -EIO;
            i++;
            continue;
        }
        unsigned j = i;
        while (j < n && !set_aside(what[j]))
            j++;
        rc = inner(arg, q, ops + i, j - i);
        i = j;
    }
    for (i = 0; i < n; i++)
        ops[i].len = full[i];
    if (killing)
        raise(SIGKILL);
    return rc;
}

int lvx_io_fault_submit(lvx_io_submit_fn inner, void *arg, struct lvx_io_queue *q,
                        struct lvx_io_op *ops, unsigned n, lvx_io_fault_log_fn log)
{
    int rc = 0;
    for (unsigned i = 0; i < n && rc == 0; i += CHUNK)
        rc = fault_chunk(inner, arg, q, ops + i, n - i < CHUNK ? n - i : CHUNK, log);
    return rc;
}
