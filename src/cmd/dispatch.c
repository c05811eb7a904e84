/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/dispatch.c - lvx_main(): find the command (argv[0]'s basename when called
 * through a symlink such as "pvs", else argv[1]), set up the context (log sink
 * on stderr/stdout as LVM2 prints, the I/O seam from the environment), parse the
 * options the command accepts, run it and return its exit code.
 *
 * Exit codes (LVM2's): 0 ok, 2 no such command, 3 invalid command line,
 * 5 command failed.
 */
#include "cmd/cmd.h"
#include "cmd/commands.h"

#include <stdio.h>
#include <string.h>

#include "dev/io.h"

/* Log sink: LVM2 indents every message by two spaces; informative messages
 * (log_print) go to stdout, everything else to stderr. */
static void log_to_stdio(void *arg, int level, const char *msg)
{
    (void)arg;
    if (level == LVX_LOG_NOTICE) {
        printf("  %s\n", msg);
        return;
    }
    fflush(stdout);
    if (level == LVX_LOG_WARN && strncmp(msg, "WARNING:", 8) != 0)
        fprintf(stderr, "  WARNING: %s\n", msg);
    else if (level >= LVX_LOG_INFO)
        fprintf(stderr, "      %s\n", msg);
    else
        fprintf(stderr, "  %s\n", msg);
}

static int log_level_for(const struct lvx_cmd_args *args)
{
    if (args->count[LVX_OPT_DEBUG] || args->count[LVX_OPT_VERBOSE] >= 2)
        return LVX_LOG_DEBUG;
    if (args->count[LVX_OPT_VERBOSE])
        return LVX_LOG_INFO;
    if (args->count[LVX_OPT_QUIET])
        return LVX_LOG_WARN;
    return LVX_LOG_NOTICE;
}

static void print_parse_error(const char *msg)
{
    /* getopt-style messages ("lvx pvs: ...") are not indented, LVM2's own are */
    if (strncmp(msg, "lvx ", 4) == 0)
        fprintf(stderr, "%s\n", msg);
    else
        fprintf(stderr, "  %s\n", msg);
}

static int run_command(const struct lvx_command *cmd, int argc, char **argv)
{
    struct lvx_ctx ctx;
    struct lvx_cmd_args args;
    struct lvx_cmd_env env = { .ctx = &ctx, .args = &args, .command = cmd };
    int rc;

    lvx_ctx_init(&ctx);
    ctx.log_fn = log_to_stdio;
    ctx.io = lvx_dev_ops_from_env();
    env.pool = lvx_pool_create();

    if (lvx_opts_parse(&ctx, env.pool, cmd->name, cmd->opts, argc, argv, &args) < 0) {
        print_parse_error(ctx.errmsg);
        rc = LVX_EXIT_INVALID;
    } else if (args.count[LVX_OPT_HELP]) {
        struct lvx_buf b = LVX_BUF_INIT;
        lvx_command_usage(&b, cmd);
        rc = lvx_cmd_output(&b);
        lvx_buf_free(&b);
    } else if (args.count[LVX_OPT_VERSION]) {
        rc = lvx_cmd_version(&env);
    } else {
        ctx.log_level = log_level_for(&args);
        rc = cmd->fn(&env);
    }
    fflush(stdout);
    lvx_pool_destroy(env.pool);
    return rc;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int lvx_main(int argc, char **argv)
{
    const struct lvx_command *cmd = NULL;

    if (argc >= 1 && argv[0])
        cmd = lvx_command_find(base_name(argv[0]));
    if (cmd)
        return run_command(cmd, argc, argv);

    if (argc < 2) {
        struct lvx_buf b = LVX_BUF_INIT;
        lvx_command_list(&b);
        fputs(lvx_buf_str(&b), stderr);
        lvx_buf_free(&b);
        return LVX_EXIT_INVALID;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0)
        name = "version";
    else if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        name = "help";
    cmd = lvx_command_find(name);
    if (!cmd) {
        fprintf(stderr, "  No such command '%s'.  Try 'lvx help'.\n", name);
        return LVX_EXIT_NO_SUCH_CMD;
    }
    return run_command(cmd, argc - 1, argv + 1);
}
