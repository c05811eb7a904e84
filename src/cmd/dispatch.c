/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/dispatch.c - lvx_main() and lvx_main_opts(): find the command (argv[0]'s
 * basename when called through a symlink such as "pvs", else argv[1]; a symlink named
 * after an LVM2 command lvx lacks, "lvmsadc", is "no such command", exit 2, not the
 * multi-command program), set up the
 * context (log sink and output: the caller's callbacks, or stderr/stdout as LVM2
 * prints; the I/O seam the caller gives, else the default: the test wrapper is the
 * lvx program's choice (src/lvx.c), never the library's; --config), parse the options the
 * command accepts, run it and return its exit code.
 *
 * Exit codes (LVM2's): 0 ok, 2 no such command, 3 invalid command line,
 * 4 lvm.conf cannot be loaded, 5 command failed.
 *
 * As LVM2, the configuration is checked before the command runs (and before --help):
 * an lvm.conf that does not parse (or is not a regular file) fails every command but
 * `version` with exit 4, a --config text that does not parse with exit 3.  Commands
 * read the configuration again when they need it; without this check a command that
 * never looked at it would accept any text.
 */
#include "cmd/cmd.h"
#include "cmd/commands.h"
#include "cmd/cmdlog.h"

#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "config/profile.h"
#include "meta/lockd.h"
#include "util/file.h"

/* As LVM2 2.03: -q overrides -v and -d and prints what a plain command prints; -qq
 * also leaves out the messages (warnings and errors stay). */
static int log_level_for(const struct lvx_cmd_args *args, int base)
{
    int level = base ? base : LVX_LOG_NOTICE;
    if (args->count[LVX_OPT_QUIET] >= 2)
        return LVX_LOG_WARN;
    if (args->count[LVX_OPT_QUIET])
        return level;
    if (args->count[LVX_OPT_DEBUG] || args->count[LVX_OPT_VERBOSE] >= 2)
        return level > LVX_LOG_DEBUG ? level : LVX_LOG_DEBUG;
    if (args->count[LVX_OPT_VERBOSE])
        return level > LVX_LOG_INFO ? level : LVX_LOG_INFO;
    return level;
}

/* One line, as every lvx error: LVM2's reason line goes in parentheses after the
 * message ("Invalid argument for --size: 4x (Can't parse size argument.)"). */
static void print_parse_error(const struct lvx_cmd_args *args, const char *msg)
{
    /* getopt-style messages ("lvx pvs: ...") are not indented, LVM2's own are */
    if (strncmp(msg, "lvx ", 4) == 0)
        lvx_cmd_error_raw(msg);
    else if (args->reason)
        lvx_cmd_errorf("%s (%s)", msg, args->reason);
    else
        lvx_cmd_errorf("%s", msg);
    if (args->parse_error)
        lvx_cmd_errorf("Error during parsing of command line.");
}

static void setup_ctx(struct lvx_ctx *ctx, const struct lvx_run_opts *o)
{
    lvx_ctx_init(ctx);
    ctx->log_fn = lvx_cmd_log_stdio;     /* ctx->io NULL: the default seam (dev/io.h) */
    if (!o)
        return;
    if (o->log_fn) {
        ctx->log_fn = o->log_fn;
        ctx->log_arg = o->log_arg;
    }
    ctx->out_fn = o->out_fn;
    ctx->out_arg = o->out_arg;
    ctx->ask_fn = o->ask_fn;
    ctx->ask_arg = o->ask_arg;
    if (o->io)
        ctx->io = o->io;
    ctx->cache = o->cache;
    ctx->config_override = o->config_override;
}

/* lvm.conf, and the --config text of the session, load (0), else the error printed and
 * the exit code: 4 for lvm.conf, 3 for --config (as LVM2). */
static int check_system_config(struct lvx_ctx *ctx, const struct lvx_command *cmd)
{
    if (strcmp(cmd->name, "version") == 0)
        return 0;
    const char *override = ctx->config_override;
    ctx->config_override = NULL;
    struct lvx_config *cfg = NULL;
    int r = lvx_config_load(ctx, &cfg);
    lvx_config_free(cfg);
    ctx->config_override = override;
    if (r < 0) {
        lvx_cmd_errorf("%s", ctx->errmsg);      /* names the file */
        return LVX_EXIT_INIT;
    }
    if (override && lvx_config_check_override(ctx, override) < 0) {
        lvx_cmd_errorf("%s", ctx->errmsg);
        return LVX_EXIT_INVALID;
    }
    return 0;
}

/* global/units of the effective configuration must be a unit LVM2 knows: else its two
 * lines and exit 5, before the command runs (shell/lvm-init).  Without --units it is the
 * unit of the command's sizes (the display commands, pvscan, lvmdiskscan), as in LVM2. */
static int check_units_setting(struct lvx_ctx *ctx, const struct lvx_command *cmd,
                               struct lvx_cmd_args *args)
{
    if (strcmp(cmd->name, "version") == 0)
        return 0;
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0) {
        lvx_error_clear(ctx);
        return 0;                  /* reported by the command's own load */
    }
    const char *units = lvx_config_str(cfg, "global/units", NULL);
    char u;
    uint64_t ub;
    int rc = 0;
    if (units && lvx_opts_parse_units(units, &u, &ub) < 0) {
        lvx_cmd_errorf("Unrecognised configuration setting for global/units: %s", units);
        lvx_cmd_errorf("Updated config file invalid. Aborting.");
        rc = LVX_EXIT_FAILED;
    } else if (units && !args->count[LVX_OPT_UNITS]) {
        args->units = u;
        args->unit_bytes = ub;
    }
    lvx_config_free(cfg);
    return rc;
}

static void say_profile_item(void *arg, const char *line)
{
    (void)arg;
    lvx_cmd_errorf("%s", line);
}

/* --commandprofile/--profile NAME: <system dir>/profile/NAME.profile, read and checked
 * as LVM2 does before the command runs (missing, unreadable, or holding an item a
 * profile of its kind may not set: LVM2's lines, exit 5), then merged by every
 * configuration load of the command (config/config.c).  --profile is a metadata
 * profile for the commands that attach one to a VG or LV (as in LVM2), a command
 * profile elsewhere. */
static int load_profile(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *name,
                        enum lvx_profile_kind kind, bool check)
{
    const char *path = lvx_pool_printf(pool, "%s/profile/%s.profile", lvx_config_system_dir(),
                                       name);
    const char *what = kind == LVX_PROFILE_METADATA ? "metadata" : "command";
    size_t len = 0;
    struct lvx_cfg_node *root = NULL;
    char *text = lvx_pool_read_file(ctx, pool, path, LVX_FILE_MAX_CONFIG, &len);
    if (!text || (len && (lvx_config_check_override(ctx, text) < 0 ||
                          lvx_cfg_parse(ctx, pool, text, len, &root) < 0))) {
        lvx_cmd_errorf("%s", ctx->errmsg);
        lvx_error_clear(ctx);
        lvx_cmd_errorf("Failed to apply %s profile %s.", what, name);
        return LVX_EXIT_FAILED;
    }
    bool named = lvx_config_flag(ctx, "config/checks", true);    /* the bad items */
    if (check && !lvx_profile_check(root, kind, named ? say_profile_item : NULL, NULL)) {
        lvx_cmd_errorf("Ignoring invalid %s profile %s.", what, name);
        lvx_cmd_errorf("Failed to apply %s profile %s.", what, name);
        return LVX_EXIT_FAILED;
    }
    ctx->config_profile = len ? text : NULL;
    return 0;
}

/* The profiles the command line names, checked and read before the command runs:
 * the command profile (--commandprofile, or --profile where it is not a metadata
 * profile), then the metadata profile; LVM2's refusal of both --profile and
 * --metadataprofile.  The last one read is merged into the configuration. */
static int load_profiles(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    const char *profile = a->value[LVX_OPT_PROFILE];
    const char *mda = lvx_cmd_metadata_profile(env);
    const char *cmd = a->value[LVX_OPT_COMMANDPROFILE];
    bool profile_is_mda = profile && mda && !a->value[LVX_OPT_METADATAPROFILE];
    if (profile && a->value[LVX_OPT_METADATAPROFILE] && lvx_cmd_attaches_profile(env)) {
        lvx_cmd_errorf("Only one of --profile or  --metadataprofile allowed.");    /* sic */
        return LVX_EXIT_FAILED;
    }
    if (profile && !profile_is_mda && !lvx_cmd_attaches_profile(env)) {
        if (cmd) {
            lvx_cmd_errorf("Only one of --profile or --commandprofile allowed.");
            return LVX_EXIT_FAILED;
        }
        cmd = profile;
    }
    /* the configuration commands print a --profile, unchecked (as LVM2) */
    bool shown = profile == cmd && env->command->fn == lvx_cmd_config;
    int rc = 0;
    if (cmd && (rc = load_profile(env->ctx, env->pool, cmd, LVX_PROFILE_COMMAND, !shown)))
        return rc;
    if (mda && (rc = load_profile(env->ctx, env->pool, mda, LVX_PROFILE_METADATA, true)))
        return rc;
    return 0;
}

/* Commands that change the VG namespace or the orphan PVs take lvmlockd's global lock
 * first, as LVM2's (meta/lockd.h); 0 or LVM2's failure. */
static int global_lock(struct lvx_cmd_env *env, int *hold)
{
    static const char *const changers[] = {
        "vgcreate", "vgremove", "vgrename", "vgsplit", "vgmerge", "vgextend", "vgreduce",
        "pvcreate", "pvremove", "vgimportclone",
    };
    bool listed = false;
    for (size_t i = 0; i < sizeof(changers) / sizeof(*changers); i++)
        listed |= strcmp(env->command->name, changers[i]) == 0;
    if (!listed || env->ctx->lock_mode == LVX_LOCK_MODE_NONE || env->args->count[LVX_OPT_TEST])
        return 0;
    if (lvx_lockd_gl_lock(env->ctx, hold) < 0) {
        lvx_cmd_errorf("%s", env->ctx->errmsg);
        lvx_error_clear(env->ctx);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

static int run_command(const struct lvx_run_opts *o, const struct lvx_command *cmd, int argc,
                       char **argv, const char *prog)
{
    struct lvx_ctx ctx;
    struct lvx_cmd_args args;
    struct lvx_cmd_env env = { .ctx = &ctx, .args = &args, .command = cmd, .prog = prog };
    int rc;

    setup_ctx(&ctx, o);
    struct lvx_ctx *outer = lvx_cmd_bind_ctx(&ctx);
    env.pool = lvx_pool_create();

    if ((rc = check_system_config(&ctx, cmd)) != 0) {
        ;
    } else if (lvx_opts_parse(&ctx, env.pool, cmd->name, cmd->opts, argc, argv, &args) < 0) {
        print_parse_error(&args, ctx.errmsg);
        rc = LVX_EXIT_INVALID;
    } else if (args.value[LVX_OPT_CONFIG] &&
               lvx_config_check_override(&ctx, args.value[LVX_OPT_CONFIG]) < 0) {
        lvx_cmd_errorf("%s", ctx.errmsg);
        rc = LVX_EXIT_INVALID;
    } else if (args.count[LVX_OPT_HELP] || args.count[LVX_OPT_LONGHELP]) {
        struct lvx_buf b = LVX_BUF_INIT;
        lvx_command_usage(&b, cmd);
        rc = lvx_cmd_output(&b);
        lvx_buf_free(&b);
    } else if (args.count[LVX_OPT_VERSION]) {
        rc = lvx_cmd_version(&env);
    } else {
        ctx.log_level = log_level_for(&args, o ? o->log_level : 0);
        /* LVM2's one line for --test, before anything the command does */
        if (args.count[LVX_OPT_TEST])
            lvx_warn(&ctx, "TEST MODE: Metadata will NOT be updated and volumes will not be "
                     "(de)activated.");
        if (args.value[LVX_OPT_CONFIG])
            ctx.config_override = args.value[LVX_OPT_CONFIG];
        if (args.count[LVX_OPT_DEVICESFILE])
            ctx.devices_file = args.value[LVX_OPT_DEVICESFILE];
        ctx.command_name = cmd->name;
        int gl = 0;
        bool both_lists = args.count[LVX_OPT_DEVICES] && ctx.devices_file && ctx.devices_file[0];
        /* stale PVIDs of the devices file: corrected after the scan, as LVM2 (lvmdevices
         * and vgimportdevices do their own checking) */
        if (strcmp(cmd->name, "lvmdevices") && strcmp(cmd->name, "vgimportdevices"))
            ctx.devices_file_check = args.count[LVX_OPT_TEST] ? LVX_DFCHECK_WARN : LVX_DFCHECK_FIX;
        if (args.count[LVX_OPT_NOLOCKING] || args.count[LVX_OPT_READONLY])
            ctx.lock_mode = LVX_LOCK_MODE_NONE;
        else if (args.count[LVX_OPT_IGNORELOCKINGFAILURE])
            ctx.lock_mode = LVX_LOCK_MODE_IGNORE_FAILURE;

        if (both_lists) {
            lvx_cmd_errorf("A --devices list cannot be used with --devicesfile.");   /* LVM2 */
            rc = LVX_EXIT_INVALID;
        } else if ((rc = load_profiles(&env)) == 0 &&
            (rc = check_units_setting(&ctx, cmd, &args)) == 0 && (rc = global_lock(&env, &gl)) == 0) {
            /* a one-shot command's log report (the shell's report channel has its own) */
            if (!o || (!o->log_fn && !o->out_fn))
                lvx_cmdlog_begin(&env);
            rc = cmd->fn(&env);
            lvx_cmdlog_end(&env, rc);
        }
        lvx_lockd_vg_unlock(&gl);
    }
    if (!ctx.out_fn)
        fflush(stdout);
    lvx_cmd_bind_ctx(outer);
    lvx_pool_destroy(env.pool);
    return rc;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Messages printed before any command runs go through a context with the caller's sinks. */
static void say(const struct lvx_run_opts *o, int level, const char *text)
{
    struct lvx_ctx ctx;
    setup_ctx(&ctx, o);
    struct lvx_ctx *outer = lvx_cmd_bind_ctx(&ctx);
    if (level == LVX_LOG_ERROR_RAW)
        lvx_cmd_error_raw(text);
    else
        lvx_cmd_errorf("%s", text);
    lvx_cmd_bind_ctx(outer);
}

int lvx_main_opts(const struct lvx_run_opts *o, int argc, char **argv)
{
    const struct lvx_command *cmd = NULL;
    const char *base = argc >= 1 && argv[0] ? base_name(argv[0]) : "lvx";
    /* called as "lvm": LVM2's name in the messages that name the program */
    const char *prog = strcmp(base, "lvm") == 0 ? "lvm" : "lvx";

    if ((cmd = lvx_command_find(base)))
        return run_command(o, cmd, argc, argv, "lvm");
    if (lvx_lvm2_command_name(base)) {        /* an LVM2 command lvx does not have */
        char msg[512];
        snprintf(msg, sizeof(msg), "No such command '%s'.  Try 'lvx help'.", base);
        say(o, LVX_LOG_ERROR, msg);
        return LVX_EXIT_NO_SUCH_CMD;
    }

    if (argc < 2) {
        struct lvx_buf b = LVX_BUF_INIT;
        lvx_command_list_as(&b, prog);
        if (b.len && b.data[b.len - 1] == '\n')
            b.data[--b.len] = '\0';
        say(o, LVX_LOG_ERROR_RAW, lvx_buf_str(&b));
        lvx_buf_free(&b);
        return LVX_EXIT_INVALID;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0)
        name = "version";
    else if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        name = "help";
    cmd = lvx_command_find(name);
    if (!cmd && name[0] == '-') {        /* "lvx --config ... pvs": LVM2's line and code */
        char msg[128];
        snprintf(msg, sizeof(msg), "Specify options after a command: %s [command] [options].",
                 prog);
        say(o, LVX_LOG_ERROR, msg);
        return LVX_EXIT_INVALID;
    }
    if (!cmd) {
        char msg[512];
        if (strcmp(prog, "lvm") == 0)     /* LVM2's lvm names no command there */
            snprintf(msg, sizeof(msg), "No such command.  Try 'lvm help'.");
        else
            snprintf(msg, sizeof(msg), "No such command '%s'.  Try 'lvx help'.", name);
        say(o, LVX_LOG_ERROR, msg);
        return LVX_EXIT_NO_SUCH_CMD;
    }
    return run_command(o, cmd, argc - 1, argv + 1, prog);
}

int lvx_main(int argc, char **argv)
{
    return lvx_main_opts(NULL, argc, argv);
}
