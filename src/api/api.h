/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * api/api.h - internals of the public API (include/lvx.h): the handle, shared by
 * api/handle.c (init, messages, lvx_run) and api/objects.c (VG/PV/LV objects).
 */
#ifndef LVX_API_API_H
#define LVX_API_API_H

#include "lvx.h"

#include "cmd/shell.h"
#include "util/buf.h"

struct lvx_handle {
    struct lvx_session session;      /* sinks + scan cache, as the shell's */
    lvx_log_fn_t log_fn;             /* the user's callback (one of the two) */
    lvx_log_user_fn_t log_user_fn;
    void *log_user;
    int level;                       /* messages above are not delivered */
    struct lvx_buf partial;          /* output not yet ended by a newline */
    struct lvx_buf *capture;         /* non-NULL: output goes here instead (object API) */
    char *config;                    /* lvx_config_override() text (malloc'd) */
    int err;                         /* negative errno of the last call, 0 if it succeeded */
    char errmsg[1024];
    unsigned open_vgs;
};

/* Set the handle's error (negative errno returned). */
int lvx_api_fail(lvx_handle *h, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Start a call: clear the error. */
void lvx_api_begin(lvx_handle *h);
/* Run a command given as words; returns the lvx exit code (0 ok, 2, 3, 5).  With capture
 * non-NULL its output is appended there instead of being delivered. */
int lvx_api_exec(lvx_handle *h, int argc, const char *const *argv, struct lvx_buf *capture);
/* Map an exit code and the recorded message to a negative errno (0 for success). */
int lvx_api_errno_of(lvx_handle *h, int exit_code);

#endif
