/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_ctx.c - error recording (util/ctx.c): a message that quotes the one
 * it replaces (ctx->errmsg as an argument, as the lock layers wrap sanlock's reason)
 * keeps the inner text whole; the errno is stored negative; a newline becomes a
 * space; a message longer than the buffer is cut, NUL-terminated; clear empties both.
 */
#include "util/ctx.h"
#include "tap.h"

#include <errno.h>
#include <string.h>

int main(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);

    is_int(lvx_error(&ctx, EIO, "sanlock acquire error %d.", -17), -EIO, "lvx_error returns -err");
    is_int(lvx_error(&ctx, EIO, "LV lock %s error: %s/%s: %s", "ex", "sv", "lv7", ctx.errmsg),
           -EIO, "a wrapping message returns -err too");
    is_str(ctx.errmsg, "LV lock ex error: sv/lv7: sanlock acquire error -17.",
           "the inner message quoted whole, once");
    lvx_error(&ctx, EAGAIN, "Global lock failed: %s", ctx.errmsg);
    is_str(ctx.errmsg, "Global lock failed: LV lock ex error: sv/lv7: sanlock acquire error -17.",
           "wrapped twice: both layers, the innermost text last");
    is_int(ctx.err, -EAGAIN, "the last error's errno, negative");

    lvx_error(&ctx, -ENOENT, "two\nlines");
    is_str(ctx.errmsg, "two lines", "a newline becomes a space");
    is_int(ctx.err, -ENOENT, "a negative errno given is stored negative as well");

    char big[3000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    lvx_error(&ctx, EINVAL, "%s", big);
    is_int(strlen(ctx.errmsg), sizeof(ctx.errmsg) - 1, "a long message cut to the buffer");
    lvx_error(&ctx, EINVAL, "long: %s", ctx.errmsg);
    ok(strncmp(ctx.errmsg, "long: xxx", 9) == 0 && strlen(ctx.errmsg) == sizeof(ctx.errmsg) - 1,
       "a long message quoting itself: prefix kept, cut, terminated");

    lvx_error_clear(&ctx);
    ok(ctx.err == 0 && ctx.errmsg[0] == '\0', "clear empties the errno and the message");
    return tap_done();
}
