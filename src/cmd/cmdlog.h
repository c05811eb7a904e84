/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/cmdlog.h - the command log (lvm.conf log/report_command_log = 1) of a command run
 * on its own, as LVM2 prints it: the command's messages (errors, warnings, prints) and
 * one status line per object it processed, each naming the object (VG, LV, PV; its
 * UUID and its VG), after the report: in JSON a "log" array in the report's object
 * ({"log": [...]} alone for commands without a report), in text a "Command Log" table
 * after the report (which then gets its "Volume Group"-style heading).  The shell's
 * report channel has its own (cmd/shell_report.c) and shares the JSON form here.
 *
 * Object context: the walks (cmd/toolkit.c, cmd/common.c's pickers, the VG update
 * begin of cmd/vg_common.c and cmd/lvcmd_common.c) say which object is being processed
 * (lvx_cmdlog_object) and how it ended (lvx_cmdlog_status).  Every call is a no-op
 * when the log is off.
 *
 * Entry points: lvx_cmdlog_begin(), lvx_cmdlog_end(), lvx_cmdlog_object(),
 * lvx_cmdlog_object_at(), lvx_cmdlog_object_id(), lvx_cmdlog_status(),
 * lvx_cmdlog_json(), lvx_cmdlog_splice().
 */
#ifndef LVX_CMD_CMDLOG_H
#define LVX_CMD_CMDLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

struct lvx_cmd_env;

/* One item of a command log (LVM2's log report row). */
struct lvx_cmdlog_entry {
    unsigned seq;                 /* log_seq_num (0: the position in the list) */
    const char *type;             /* "error", "warn", "print", "status" */
    const char *context;          /* "processing", "shell" */
    const char *object_type, *object_name, *object_id, *object_group, *object_group_id;
    const char *message;
    int err;                      /* log_errno */
    int ret_code;                 /* log_ret_code: 1 success, else the exit code; 0 messages */
};

/* The JSON "log" array (LVM2's layout, six spaces deep) of the entries keep() accepts
 * (NULL: all).  lvm2_commas: as LVM2's one-shot log, a comma after an entry whenever
 * any entry follows, shown or not (its JSON is then not valid); else only between the
 * entries shown. */
void lvx_cmdlog_json(struct lvx_buf *b, const struct lvx_cmdlog_entry *es, unsigned n,
                     bool (*keep)(const struct lvx_cmdlog_entry *e, void *arg), void *arg,
                     bool lvm2_commas);
/* The report JSON in `report` (may be empty) with the log section `log` added inside
 * its object, as LVM2 (`,` then the log), or as an object of its own. */
void lvx_cmdlog_splice(struct lvx_buf *out, const struct lvx_buf *report, const struct lvx_buf *log);

/* A report of a report group in text (the log on): "  Volume Group", its underline, the
 * report in body, a blank line; nothing when body is empty.  prefix: log/prefix. */
void lvx_cmdlog_section(struct lvx_buf *out, const char *prefix, const char *title,
                        const struct lvx_buf *body);

/* Start the log of the command in env when the configuration asks for it (one-shot
 * commands: the messages and output of env->ctx are taken over until the end). */
void lvx_cmdlog_begin(struct lvx_cmd_env *env);
/* The command ended with rc: the report (held back) and the log printed. */
void lvx_cmdlog_end(struct lvx_cmd_env *env, int rc);

/* The object being processed from now on ("vg", "lv", "pv", "orphan"): its name, UUID,
 * the VG it is in and that VG's UUID (NULL = ""); any previous object without a status
 * gets one (failure if it had an error).  _at: the position of the object in LVM2's
 * order of processing (entries are printed in that order, then in time order). */
void lvx_cmdlog_object(const char *type, const char *name, const char *id, const char *group,
                       const char *group_id);
void lvx_cmdlog_object_at(unsigned long key, const char *type, const char *name, const char *id,
                          const char *group, const char *group_id);
/* Positions (keys) of LVM2's order in a read walk: argument i, an LV j of the VG at
 * key k (k + j + 1), an LV argument not found in it, the VG's own status last. */
#define LVX_CMDLOG_ARG_KEY(i) (((unsigned long)(i) + 1) << 20)
#define LVX_CMDLOG_MISSING_LV 0xFFFF0ul
#define LVX_CMDLOG_VG_LAST 0xFFFFFul
/* No current object any more (its status, if any, left out). */
void lvx_cmdlog_object_done(void);
/* Did an object of VG group get a failure status (an LV argument not found)? */
bool lvx_cmdlog_group_failed(const char *group);
/* The current LV was removed: its line is written (success), the messages from now on
 * name an LV without name or UUID in its VG, as LVM2's lvremove; lvx_cmdlog_lv_gone()
 * says whether that is the current object. */
void lvx_cmdlog_lv_removed(void);
bool lvx_cmdlog_lv_gone(void);
/* The current object's UUID, once known. */
void lvx_cmdlog_object_id(const char *id);
/* The current object is done: rc 0 success, else failure with that exit code. */
void lvx_cmdlog_status(int rc);
/* Is the log on (callers that build object names only then)? */
bool lvx_cmdlog_on(void);

#endif
