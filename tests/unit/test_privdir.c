/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_privdir.c - util/privdir.c: which directories pass as private
 * (the run directory of the device index and the lvx daemon): made 0700 when
 * missing, refused when others can enter (unless ENTERABLE) or change it, when it
 * is a symlink or a file, or when a directory above it can be changed by others
 * (a sticky one can't); each refusal is one line naming the directory and its mode.
 */
#include "util/ctx.h"
#include "util/privdir.h"
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[64];

static int check(struct lvx_ctx *ctx, const char *leaf, unsigned flags)
{
    char dir[256];
    snprintf(dir, sizeof(dir), "%s/%s", base, leaf);
    lvx_error_clear(ctx);
    return lvx_privdir_check(ctx, "run directory", dir, flags);
}

static bool msg_has(const struct lvx_ctx *ctx, const char *a, const char *b)
{
    return strstr(ctx->errmsg, a) && (!b || strstr(ctx->errmsg, b)) && !strchr(ctx->errmsg, '\n');
}

int main(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    char path[256];
    snprintf(base, sizeof(base), "/tmp/lvx-privdir.XXXXXX");
    if (!mkdtemp(base))
        return 1;
    chmod(base, 0755);

    is_int(check(&ctx, "missing", 0), 0, "a missing directory without CREATE is fine");
    snprintf(path, sizeof(path), "%s/missing", base);
    ok(access(path, F_OK) != 0, "... and is not made");
    is_int(check(&ctx, "made", LVX_PRIVDIR_CREATE), 0, "CREATE makes a missing directory");
    struct stat st;
    snprintf(path, sizeof(path), "%s/made", base);
    ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0700, "... 0700");
    is_int(check(&ctx, "made", 0), 0, "a 0700 directory of ours passes");

    snprintf(path, sizeof(path), "%s/open", base);
    mkdir(path, 0700);
    chmod(path, 0755);
    is_int(check(&ctx, "open", 0), -EPERM, "0755 is refused");
    ok(msg_has(&ctx, path, "mode 0755: other users can enter it"),
       "... one line naming it and its mode: %s", ctx.errmsg);
    is_int(check(&ctx, "open", LVX_PRIVDIR_ENTERABLE), 0, "0755 passes when ENTERABLE");
    chmod(path, 0775);
    is_int(check(&ctx, "open", LVX_PRIVDIR_ENTERABLE), -EPERM, "0775 is refused even ENTERABLE");
    ok(msg_has(&ctx, "mode 0775", "can change it"), "... others can change it: %s", ctx.errmsg);
    chmod(path, 01777);
    is_int(check(&ctx, "open", LVX_PRIVDIR_ENTERABLE), -EPERM, "1777 is refused");

    snprintf(path, sizeof(path), "%s/file", base);
    fclose(fopen(path, "w"));
    is_int(check(&ctx, "file", 0), -ENOTDIR, "a file is refused");
    snprintf(path, sizeof(path), "%s/link", base);
    if (symlink("made", path) < 0)
        return 1;
    is_int(check(&ctx, "link", 0), -ENOTDIR, "a symlink to a good directory is refused");
    ok(msg_has(&ctx, "symbolic link", NULL), "... saying so: %s", ctx.errmsg);

    snprintf(path, sizeof(path), "%s/ww", base);
    mkdir(path, 0700);
    chmod(path, 0777);
    snprintf(path, sizeof(path), "%s/ww/run", base);
    mkdir(path, 0700);
    is_int(check(&ctx, "ww/run", 0), -EPERM, "inside a 0777 directory: refused");
    ok(msg_has(&ctx, "/ww (mode 0777", "other users can change"), "... naming it: %s", ctx.errmsg);
    snprintf(path, sizeof(path), "%s/ww", base);
    chmod(path, 01777);
    is_int(check(&ctx, "ww/run", 0), 0, "inside a sticky 1777 directory (like /tmp): fine");
    is_int(check(&ctx, "ww/run/", 0), 0, "a trailing slash is fine");

    if (geteuid() == 0) {
        snprintf(path, sizeof(path), "%s/theirs", base);
        mkdir(path, 0700);
        if (chown(path, 65534, 65534) == 0) {
            is_int(check(&ctx, "theirs", 0), -EPERM, "another user's directory is refused");
            ok(msg_has(&ctx, "belongs to uid 65534", NULL), "... naming the owner: %s",
               ctx.errmsg);
        }
    } else {
        tap_skip("not root: cannot give a directory away");
    }

    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
    if (system(cmd) != 0)
        tap_diag("cannot remove %s", base);
    return tap_done();
}
