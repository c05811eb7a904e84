/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz/fuzz_config.c - libFuzzer harness for the configuration loader (config/config.h)
 * as `--config` and lvm.conf use it.  The input is "LVM_CONF\0OVERRIDE" (no NUL: the
 * whole input is the --config text and there is no lvm.conf).  lvm.conf is written to
 * a private temporary $LVM_SYSTEM_DIR; then lvx_config_check_override(),
 * lvx_config_load(), every setting lvx reads, the device filter (tried on a few device
 * names) and the merge over the built-in defaults run.  Invariants (abort otherwise):
 * a failure leaves a message; check_override and load agree on the override; the
 * merged tree prints to text that parses again into an equal tree.
 *
 * Build and run: `bash fuzz/run.sh 60 fuzz_config` (seeds: fuzz/corpus/config/).
 */
#include "config/config.h"
#include "dev/filter.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char sysdir[256];
static char confpath[300];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(sysdir, sizeof(sysdir), "%s/lvx-fuzz-config.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(sysdir)) {
        perror("fuzz_config: mkdtemp");
        exit(1);
    }
    snprintf(confpath, sizeof(confpath), "%s/lvm.conf", sysdir);
    setenv("LVM_SYSTEM_DIR", sysdir, 1);
    return 0;
}

__attribute__((destructor)) static void cleanup(void)
{
    if (sysdir[0]) {
        unlink(confpath);
        rmdir(sysdir);
    }
}

static void require(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_config: invariant broken: %s\n", what);
        abort();
    }
}

static void write_conf(const uint8_t *data, size_t len)
{
    int fd = open(confpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    require(fd >= 0, "lvm.conf can be written");
    require(write(fd, data, len) == (ssize_t)len, "lvm.conf written whole");
    close(fd);
}

static void use_settings(struct lvx_ctx *ctx, const struct lvx_config *cfg)
{
    static const char *const ints[] = {
        "backup/backup", "backup/archive", "backup/retain_min", "backup/retain_days",
        "global/activation", "lvx/auto_metadata_copies",
    };
    static const char *const strs[] = {
        "backup/backup_dir", "backup/archive_dir", "lvx/activation_backend", "devices/scan",
    };
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
        (void)lvx_config_int(cfg, ints[i], -1);
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
        const char *s = lvx_config_str(cfg, strs[i], "dflt");
        require(s != NULL, "string settings have a value");
        (void)strlen(s);
    }
    struct lvx_filter *f = NULL;
    if (lvx_config_device_filter(ctx, cfg, &f) == 0) {
        /* (writable: an accepting name is moved to the front, as LVM2's preferred name) */
        const char *names[] = { "/dev/sda", "/dev/loop0", "/dev/mapper/vg-lv",
                                "/dev/disk/by-id/x", "" };
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            (void)lvx_filter_accepts(f, &names[i], 1);
        (void)lvx_filter_accepts(f, names, 5);
        lvx_filter_free(f);
    } else {
        require(ctx->errmsg[0] != '\0', "a filter error has a message");
        require(f == NULL, "no filter on error");
    }
}

/* What `lvx config --type full` does: defaults with the configuration merged over them,
 * printed; the text must parse again to the same tree. */
static void merged_roundtrip(struct lvx_ctx *ctx, const struct lvx_config *cfg)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_cfg_node *root = lvx_config_defaults(pool);
    if (cfg->root)
        lvx_config_merge(pool, root, cfg->root);
    struct lvx_buf out = LVX_BUF_INIT;
    lvx_cfg_print(&out, root, LVX_CFG_LAYOUT_FILE);
    struct lvx_cfg_node *again = NULL;
    if (lvx_cfg_parse(ctx, pool, lvx_buf_str(&out), out.len, &again) != 0) {
        fprintf(stderr, "merged config does not parse again: %s\n---\n%s---\n", ctx->errmsg,
                lvx_buf_str(&out));
        abort();
    }
    require(lvx_cfg_equal(root, again), "merged config reparses to an equal tree");
    lvx_buf_free(&out);
    lvx_pool_destroy(pool);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t conf_len = nul ? (size_t)(nul - data) : 0;
    if (nul)
        write_conf(data, conf_len);
    else
        unlink(confpath);
    const uint8_t *over = nul ? nul + 1 : data;
    size_t over_len = size - (size_t)(over - data);
    char *text = malloc(over_len + 1);
    memcpy(text, over, over_len);
    text[over_len] = '\0';          /* --config is a C string: stops at a further NUL */

    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    int checked = lvx_config_check_override(&ctx, text);
    require(checked == 0 || (checked == -EINVAL && ctx.errmsg[0]), "check_override: 0 or -EINVAL");

    lvx_ctx_init(&ctx);
    ctx.config_override = text;
    struct lvx_config *cfg = NULL;
    int r = lvx_config_load(&ctx, &cfg);
    if (r == 0) {
        require(checked == 0, "load accepts only an override check_override accepts");
        use_settings(&ctx, cfg);
        merged_roundtrip(&ctx, cfg);
        lvx_config_free(cfg);
    } else {
        require(r == -EINVAL && ctx.errmsg[0] != '\0', "load fails with -EINVAL and a message");
    }
    /* without lvm.conf the override alone decides */
    if (!nul) {
        require((r == 0) == (checked == 0), "load and check_override agree");
    }
    free(text);
    return 0;
}
