/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz/fuzz_cmdline.c - libFuzzer harness for command lines: option parsing, validation
 * and dispatch of every command (cmd/), run in-process as a `lvx shell` session runs
 * them.  The input is up to 8 lines; each is split like a shell line (lvx_shell_split),
 * every '@' first becoming "<tmp>/" so inputs can name the harness's files, and run by
 * lvx_main_opts() with `--devices=<tmp>/pv1,<tmp>/pv2,<tmp>/pv3` added: pv1 and pv2 form
 * VG "fz" (LVs lv1 linear, lv2 striped), pv3 is blank.  Lines of one input share a scan
 * cache, as a session does.
 *
 * Confinement (the harness must not touch anything but its temporary directory):
 *  - Landlock: no file creation, write, removal, truncation or device ioctl outside
 *    $TMPDIR (default /tmp) and the directories libFuzzer writes to (corpus dirs on its
 *    command line, -artifact_prefix, -exact_artifact_path, -merge_control_file); no TCP;
 *    no signals to processes outside.  Without Landlock the harness refuses to run.
 *  - the I/O seam opens only paths under <tmp>; device writes are recorded and undone
 *    after each input (images back to their initial bytes); files the input left under
 *    <tmp> (backups, archives, -f outputs) are reset too, so every input starts equal.
 *  - `daemon` is not run (it forks a server); LVX_ACTIVATION_BACKEND=none, LVX_INDEX=0,
 *    LVM_SYSTEM_DIR, LVX_LOCK_DIR, LVX_RUN_DIR and DM_DEV_DIR point under <tmp>.
 *    Prompts are answered yes; output and messages are dropped (LVX_FUZZ_VERBOSE=1
 *    prints them).
 * Invariants (abort otherwise): exit codes are LVM2's (0, 2, 3, 5); a command refused as
 * an invalid command line (3) wrote nothing.
 *
 * Build and run: `bash fuzz/run.sh 60 fuzz_cmdline` (seeds: fuzz/corpus/cmdline/).
 */
#include "cmd/cmd.h"
#include "cmd/shell.h"
#include "dev/io.h"
#include "meta/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LINES 8
#define MAX_DIRTY 256
#define IMG_COUNT 3
static const char *const img_names[IMG_COUNT] = { "pv1", "pv2", "pv3" };
static const size_t img_sizes[IMG_COUNT] = { 8u << 20, 8u << 20, 4u << 20 };

static char tmp[256];              /* <tmp>: the harness's directory */
static size_t tmp_len;
static char devices_opt[1024];     /* --devices=<tmp>/pv1,... */
static bool verbose;

/* ---- the images and their restoration ------------------------------------------ */

struct image {
    int fd;                        /* O_RDWR, kept for restoring */
    ino_t ino;
    dev_t dev;
    uint8_t *pristine;
    size_t size;
};
static struct image imgs[IMG_COUNT];

struct dirty {
    int img;
    uint64_t off;
    size_t len;
};
static struct dirty dirty[MAX_DIRTY];
static unsigned dirty_count;
static bool dirty_all;
static unsigned writes;            /* device writes of the current command */

static int fd_img[4096];           /* fd -> image index + 1 (0: not an image) */

static void die(const char *what)
{
    fprintf(stderr, "fuzz_cmdline: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void restore_images(void)
{
    for (int i = 0; dirty_all && i < IMG_COUNT; i++) {
        if (pwrite(imgs[i].fd, imgs[i].pristine, imgs[i].size, 0) != (ssize_t)imgs[i].size ||
            ftruncate(imgs[i].fd, (off_t)imgs[i].size) < 0)
            die("restore image");
    }
    if (!dirty_all)
        for (unsigned d = 0; d < dirty_count; d++) {
            struct image *im = &imgs[dirty[d].img];
            uint64_t off = dirty[d].off;
            size_t len = dirty[d].len;
            if (off >= im->size)
                off = im->size, len = 0;
            if (len > im->size - off)
                len = im->size - off;
            if (len && pwrite(im->fd, im->pristine + off, len, (off_t)off) != (ssize_t)len)
                die("restore range");
            /* written past the end: cut back to the initial size */
            if (dirty[d].off + dirty[d].len > im->size && ftruncate(im->fd, (off_t)im->size) < 0)
                die("truncate image");
        }
    dirty_count = 0;
    dirty_all = false;
}

/* ---- the I/O seam: only <tmp>, writes recorded ----------------------------------- */

static const struct lvx_dev_ops *base;

static bool under_tmp(const char *path)
{
    return strncmp(path, tmp, tmp_len) == 0 && path[tmp_len] == '/' && !strstr(path, "/..");
}

static int h_open(void *arg, const char *path, int flags)
{
    (void)arg;
    if (!under_tmp(path))
        return -ENOENT;
    int fd = base->open(base->arg, path, flags);
    if (fd >= 0 && fd < (int)(sizeof(fd_img) / sizeof(fd_img[0]))) {
        struct stat st;
        fd_img[fd] = 0;
        if (fstat(fd, &st) == 0)
            for (int i = 0; i < IMG_COUNT; i++)
                if (st.st_ino == imgs[i].ino && st.st_dev == imgs[i].dev)
                    fd_img[fd] = i + 1;
    }
    return fd;
}

static int h_close(void *arg, int fd)
{
    (void)arg;
    if (fd >= 0 && fd < (int)(sizeof(fd_img) / sizeof(fd_img[0])))
        fd_img[fd] = 0;
    return base->close(base->arg, fd);
}

static ssize_t h_pread(void *arg, int fd, void *buf, size_t len, uint64_t offset)
{
    (void)arg;
    return base->pread(base->arg, fd, buf, len, offset);
}

static ssize_t h_pwrite(void *arg, int fd, const void *buf, size_t len, uint64_t offset)
{
    (void)arg;
    writes++;
    int img = fd >= 0 && fd < (int)(sizeof(fd_img) / sizeof(fd_img[0])) ? fd_img[fd] - 1 : -1;
    if (img >= 0) {
        if (dirty_count == MAX_DIRTY)
            dirty_all = true;
        else
            dirty[dirty_count++] = (struct dirty){ img, offset, len };
    }
    return base->pwrite(base->arg, fd, buf, len, offset);
}

static int h_flush(void *arg, int fd)
{
    (void)arg;
    return base->flush(base->arg, fd);
}

static int h_read_batch(void *arg, struct lvx_io_req *reqs, unsigned count)
{
    (void)arg;
    return base->read_batch(base->arg, reqs, count);
}

static struct lvx_dev_ops ops = { .open = h_open, .close = h_close, .pread = h_pread,
                                  .pwrite = h_pwrite, .flush = h_flush,
                                  .read_batch = h_read_batch };

/* ---- files under <tmp>: snapshot after setup, reset after each input ------------- */

struct kept_file {
    char path[512];
    char *data;
    size_t len;
};
static struct kept_file kept[64];
static unsigned kept_count;

static bool is_kept(const char *path)
{
    for (unsigned i = 0; i < kept_count; i++)
        if (strcmp(kept[i].path, path) == 0)
            return true;
    return false;
}

static const char *const kept_dirs[] = { "etc", "etc/backup", "etc/archive", "lock", "run", "dev",
                                         "cwd" };

static bool is_kept_dir(const char *path)
{
    for (size_t i = 0; i < sizeof(kept_dirs) / sizeof(kept_dirs[0]); i++)
        if (strlen(path) == tmp_len + 1 + strlen(kept_dirs[i]) &&
            strcmp(path + tmp_len + 1, kept_dirs[i]) == 0)
            return true;
    return strcmp(path, tmp) == 0;
}

static bool is_image(const char *path)
{
    for (int i = 0; i < IMG_COUNT; i++)
        if (strcmp(path + tmp_len + 1, img_names[i]) == 0 && path[tmp_len] == '/')
            return true;
    return false;
}

static int snapshot_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type != FTW_F || is_image(path) || strstr(path, "/lock/") || strstr(path, "/run/"))
        return 0;
    if (kept_count == sizeof(kept) / sizeof(kept[0]))
        return 0;
    struct kept_file *k = &kept[kept_count++];
    snprintf(k->path, sizeof(k->path), "%s", path);
    FILE *f = fopen(path, "rbe");
    if (!f)
        die(path);
    k->data = malloc((size_t)st->st_size + 1);
    k->len = fread(k->data, 1, (size_t)st->st_size, f);
    fclose(f);
    return 0;
}

static bool same_content(const struct kept_file *k)
{
    FILE *f = fopen(k->path, "rbe");
    if (!f)
        return false;
    char buf[4096];
    size_t at = 0, n;
    bool same = true;
    while (same && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
        same = at + n <= k->len && memcmp(buf, k->data + at, n) == 0;
        at += n;
    }
    fclose(f);
    return same && at == k->len;
}

static int reset_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_DP) {
        if (!is_kept_dir(path))
            rmdir(path);
        return 0;
    }
    if (is_image(path) || strstr(path, "/lock/") || (type != FTW_F && type != FTW_SL))
        return 0;
    if (!is_kept(path))
        unlink(path);
    return 0;
}

static void reset_files(void)
{
    nftw(tmp, reset_one, 16, FTW_DEPTH | FTW_PHYS);
    for (unsigned i = 0; i < kept_count; i++) {
        if (same_content(&kept[i]))
            continue;
        FILE *f = fopen(kept[i].path, "wbe");
        if (!f || fwrite(kept[i].data, 1, kept[i].len, f) != kept[i].len)
            die(kept[i].path);
        fclose(f);
    }
    for (size_t i = 0; i < sizeof(kept_dirs) / sizeof(kept_dirs[0]); i++) {
        char p[512];
        snprintf(p, sizeof(p), "%s/%s", tmp, kept_dirs[i]);
        mkdir(p, 0700);
    }
}

/* ---- Landlock --------------------------------------------------------------------- */

static int add_rule(int ruleset, const char *path, uint64_t access)
{
    struct landlock_path_beneath_attr pb = { .allowed_access = access };
    pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
    if (pb.parent_fd < 0)
        return -1;
    int r = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    close(pb.parent_fd);
    return r;
}

/* The directory part of a libFuzzer path prefix ("dir/crash-" -> "dir", "x" -> NULL). */
static void allow_dir_of(int ruleset, const char *prefix, uint64_t access)
{
    char d[1024];
    snprintf(d, sizeof(d), "%s", prefix);
    char *slash = strrchr(d, '/');
    if (!slash)
        return;
    if (slash == d)
        slash[1] = '\0';
    else
        *slash = '\0';
    add_rule(ruleset, d, access);
}

static void sandbox(int argc, char **argv, const char *tmpdir)
{
    int abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        fprintf(stderr, "fuzz_cmdline: Landlock is not available (Linux >= 5.13 with "
                        "CONFIG_SECURITY_LANDLOCK): refusing to run command lines unconfined\n");
        exit(1);
    }
    uint64_t write_fs = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                        LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                        LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                        LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                        LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    struct landlock_ruleset_attr attr = { 0 };
#ifdef LANDLOCK_ACCESS_FS_REFER
    if (abi >= 2)
        write_fs |= LANDLOCK_ACCESS_FS_REFER;
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
    if (abi >= 3)
        write_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
#ifdef LANDLOCK_ACCESS_NET_CONNECT_TCP
    if (abi >= 4)
        attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
#endif
    uint64_t ioctl = 0;
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
    if (abi >= 5)
        ioctl = LANDLOCK_ACCESS_FS_IOCTL_DEV;
#endif
    attr.handled_access_fs = write_fs | ioctl;
    size_t attr_size = sizeof(attr);
#ifdef LANDLOCK_SCOPE_SIGNAL
    if (abi >= 6)
        attr.scoped = LANDLOCK_SCOPE_SIGNAL | LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
    else
        attr_size = offsetof(struct landlock_ruleset_attr, scoped);
#endif
#ifdef LANDLOCK_ACCESS_NET_CONNECT_TCP
    if (abi < 4)
        attr_size = offsetof(struct landlock_ruleset_attr, handled_access_net);
#endif
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
    if (rs < 0)
        die("landlock_create_ruleset");
    if (add_rule(rs, tmpdir, write_fs) < 0)
        die("landlock rule for $TMPDIR");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        struct stat st;
        if (a[0] != '-' && stat(a, &st) == 0 && S_ISDIR(st.st_mode))
            add_rule(rs, a, write_fs);               /* corpus / merge directories */
        else if (!strncmp(a, "-artifact_prefix=", 17))
            allow_dir_of(rs, a + 17, write_fs);
        else if (!strncmp(a, "-exact_artifact_path=", 21))
            allow_dir_of(rs, a + 21, write_fs);
        else if (!strncmp(a, "-merge_control_file=", 20))
            allow_dir_of(rs, a + 20, write_fs);
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        die("PR_SET_NO_NEW_PRIVS");
    if (syscall(SYS_landlock_restrict_self, rs, 0) < 0)
        die("landlock_restrict_self");
    close(rs);
}

/* ---- running lines ---------------------------------------------------------------- */

static unsigned errors;

static void h_log(void *arg, int level, const char *msg)
{
    (void)arg;
    if (level <= LVX_LOG_ERROR)
        errors++;
    if (verbose)
        fprintf(stderr, "[%d] %s\n", level, msg);
}

static void h_out(void *arg, const char *data, size_t len)
{
    (void)arg;
    if (verbose)
        fwrite(data, 1, len, stderr);
}

static bool h_ask(void *arg, const char *question)
{
    (void)arg;
    (void)question;
    return true;
}

/* Replace every '@' with "<tmp>/". */
static char *expand(const char *line)
{
    size_t n = 0;
    for (const char *p = line; *p; p++)
        n += *p == '@' ? tmp_len + 1 : 1;
    char *out = malloc(n + 1), *o = out;
    for (const char *p = line; *p; p++) {
        if (*p == '@') {
            memcpy(o, tmp, tmp_len);
            o += tmp_len;
            *o++ = '/';
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

/* One line; returns the exit code, -1 for nothing run. */
static int run_line(struct lvx_run_opts *run, const char *line)
{
    struct lvx_pool *pool = lvx_pool_create();
    char *text = expand(line);
    int argc, rc = -1;
    char **argv;
    const char *err;
    if (lvx_shell_split(pool, text, &argc, &argv, &err) == 0 && argc > 0) {
        if (argc > 1 && (!strcmp(argv[0], "lvx") || !strcmp(argv[0], "lvm"))) {
            argv++;
            argc--;
        }
        if (strcmp(argv[0], "daemon") != 0) {
            char **full = lvx_pool_alloc(pool, (size_t)(argc + 3) * sizeof(*full));
            full[0] = "lvx";
            full[1] = argv[0];
            full[2] = devices_opt;
            memcpy(full + 3, argv + 1, (size_t)argc * sizeof(*full));   /* NULL included */
            writes = 0;
            errors = 0;
            /* relative names a command writes (vgcfgbackup -f NAME) land in the sandbox,
             * not in the directory the fuzzer runs in (its corpus paths are relative) */
            int home = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            char cwd[PATH_MAX];
            snprintf(cwd, sizeof(cwd), "%s/cwd", tmp);
            if (home < 0 || chdir(cwd) < 0)
                die(cwd);
            rc = lvx_main_opts(run, argc + 2, full);
            if (fchdir(home) < 0)
                die("fchdir");
            close(home);
            if (verbose)
                fprintf(stderr, "rc %d, %u writes: %s\n", rc, writes, text);
            if (rc != 0 && rc != 2 && rc != 3 && rc != 5) {
                fprintf(stderr, "fuzz_cmdline: exit code %d from: %s\n", rc, text);
                abort();
            }
            if (rc == 3 && writes) {
                fprintf(stderr, "fuzz_cmdline: %u device writes by an invalid command line: %s\n",
                        writes, text);
                abort();
            }
        }
    }
    free(text);
    lvx_pool_destroy(pool);
    return rc;
}

static void setup_vg(void)
{
    static const char *const lines[] = {
        "pvcreate -y @pv1 @pv2",
        "vgcreate -s 1m fz @pv1 @pv2",
        "lvcreate -an -n lv1 -L 2m --addtag t1 fz",
        "lvcreate -an -n lv2 -i 2 -I 64k -L 4m fz @pv1 @pv2",
    };
    struct lvx_run_opts run = { .log_fn = h_log, .out_fn = h_out, .ask_fn = h_ask, .io = &ops };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        if (run_line(&run, lines[i]) != 0) {
            fprintf(stderr, "fuzz_cmdline: setup failed: %s (LVX_FUZZ_VERBOSE=1 shows why)\n",
                    lines[i]);
            exit(1);
        }
    }
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return type == FTW_DP ? rmdir(path) : unlink(path);
}

__attribute__((destructor)) static void cleanup(void)
{
    if (tmp_len)
        nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    verbose = getenv("LVX_FUZZ_VERBOSE") && *getenv("LVX_FUZZ_VERBOSE") == '1';
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir)
        tmpdir = "/tmp";
    char real[PATH_MAX];
    if (!realpath(tmpdir, real))
        die(tmpdir);
    sandbox(*argc, *argv, real);

    snprintf(tmp, sizeof(tmp), "%s/lvx-fuzz-cmdline.XXXXXX", real);
    if (!mkdtemp(tmp))
        die("mkdtemp");
    tmp_len = strlen(tmp);
    for (size_t i = 0; i < sizeof(kept_dirs) / sizeof(kept_dirs[0]); i++) {
        char p[512];
        snprintf(p, sizeof(p), "%s/%s", tmp, kept_dirs[i]);
        if (mkdir(p, 0700) < 0)
            die(p);
    }
    char p[512];
    snprintf(p, sizeof(p), "%s/etc", tmp);
    setenv("LVM_SYSTEM_DIR", p, 1);
    snprintf(p, sizeof(p), "%s/lock", tmp);
    setenv("LVX_LOCK_DIR", p, 1);
    snprintf(p, sizeof(p), "%s/run", tmp);
    setenv("LVX_RUN_DIR", p, 1);
    snprintf(p, sizeof(p), "%s/dev", tmp);
    setenv("DM_DEV_DIR", p, 1);
    setenv("LVX_INDEX", "0", 1);
    setenv("LVX_ACTIVATION_BACKEND", "none", 1);
    unsetenv("LVX_TEST_FAIL_WRITE");
    unsetenv("LVX_TEST_CRASH_AFTER_WRITE");
    unsetenv("LVX_TEST_IO_LOG");
    unsetenv("LVX_TEST_DM_FAIL");

    size_t n = (size_t)snprintf(devices_opt, sizeof(devices_opt), "--devices=");
    for (int i = 0; i < IMG_COUNT; i++) {
        snprintf(p, sizeof(p), "%s/%s", tmp, img_names[i]);
        imgs[i].fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (imgs[i].fd < 0 || ftruncate(imgs[i].fd, (off_t)img_sizes[i]) < 0)
            die(p);
        struct stat st;
        if (fstat(imgs[i].fd, &st) < 0)
            die(p);
        imgs[i].ino = st.st_ino;
        imgs[i].dev = st.st_dev;
        imgs[i].size = img_sizes[i];
        n += (size_t)snprintf(devices_opt + n, sizeof(devices_opt) - n, "%s%s", i ? "," : "", p);
    }
    base = lvx_dev_ops_default();
    ops.arg = NULL;
    setup_vg();
    for (int i = 0; i < IMG_COUNT; i++) {
        imgs[i].pristine = malloc(imgs[i].size);
        if (pread(imgs[i].fd, imgs[i].pristine, imgs[i].size, 0) != (ssize_t)imgs[i].size)
            die("read image");
    }
    dirty_count = 0;
    nftw(tmp, snapshot_one, 16, FTW_PHYS);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    struct lvx_run_opts run = { .log_fn = h_log, .out_fn = h_out, .ask_fn = h_ask, .io = &ops,
                                .cache = lvx_cache_new() };
    char *line = text;
    for (int i = 0; i < MAX_LINES && line; i++) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl++ = '\0';
        run_line(&run, line);
        line = nl;
    }
    lvx_cache_free(run.cache);
    free(text);
    restore_images();
    reset_files();
    return 0;
}
