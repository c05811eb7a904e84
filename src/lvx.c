/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvx.c - the lvx binary: hands argv to the command dispatcher (cmd/dispatch.c),
 * or runs the shell (cmd/shell.c) when asked (`lvx shell [FILE]`) or when started
 * without arguments with a terminal or a pipe/file on stdin.  On a terminal the shell
 * reads lines with GNU readline (line editing, history in ~/.lvx_history); that is
 * why the reader lives here, in the GPL binary, and not in liblvx.  The program (not
 * the library) also chooses the I/O seam: the test wrapper when an LVX_TEST_* variable
 * asks for it (dev/io.h), for its commands, its shell and the daemon it runs.
 * LVX_PHASES=1: the time of each phase of a command on stderr at its end
 * (util/phase.h), for bench/scale.
 */
#include "cmd/cmd.h"
#include "cmd/commands.h"
#include "cmd/shell.h"
#include "dev/io.h"
#include "util/hugeheap.h"
#include "util/phase.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#define HISTORY_FILE ".lvx_history"
#define HISTORY_MAX 500

/* ---- readers ------------------------------------------------------------------- */

/* Longest line of a script (file or stdin) taken as a command: the kernel's own limit
 * for one exec's arguments is 2 MiB (a quarter of the default 8 MiB stack), so no
 * command line that could be typed elsewhere is refused; a longer line (/dev/zero as
 * the script) ends the input with an error instead of growing memory without end. */
#define SCRIPT_LINE_MAX ((size_t)2 << 20)
static bool script_line_too_long;
/* LVM2's "lvm> " prompt printed on a pipe too (see run_shell), or NULL */
static const char *pipe_prompt;

static char *read_file_line(void *arg, const char *prompt)
{
    FILE *f = arg;
    size_t cap = 256, n = 0;
    char *line = malloc(cap);
    int c = EOF;
    (void)prompt;
    if (!line)
        abort();
    if (pipe_prompt) {
        fputs(pipe_prompt, stdout);
        fflush(stdout);
    }
    while ((c = getc_unlocked(f)) != EOF && c != '\n') {
        if (n == SCRIPT_LINE_MAX) {
            fprintf(stderr, "  Input line longer than %zu bytes: input ends here.\n",
                    SCRIPT_LINE_MAX);
            script_line_too_long = true;
            free(line);
            return NULL;
        }
        if (n + 1 >= cap && !(line = realloc(line, cap *= 2)))
            abort();
        line[n++] = (char)c;
    }
    if (c == EOF && n == 0) {
        free(line);
        return NULL;
    }
    line[n] = '\0';
    return line;
}

static char *read_terminal_line(void *arg, const char *prompt)
{
    (void)arg;
    char *line = readline(prompt);
    if (line && *line && line[strspn(line, " \t")])
        add_history(line);
    return line;
}

/* Complete the first word of a line with command names (and quit/exit). */
static char *command_generator(const char *text, int state)
{
    static unsigned idx;
    static size_t len;
    unsigned n;
    const struct lvx_command *table = lvx_command_table(&n);
    if (!state) {
        idx = 0;
        len = strlen(text);
    }
    while (idx < n + 2) {
        unsigned i = idx++;
        const char *name = i < n ? table[i].name : i == n ? "quit" : "exit";
        if (strncmp(name, text, len) == 0)
            return strdup(name);
    }
    return NULL;
}

static char **complete_command(const char *text, int start, int end)
{
    (void)end;
    if (start != 0)
        return NULL;          /* file names for the arguments */
    return rl_completion_matches(text, command_generator);
}

static const char *history_path(void)
{
    static char path[4096];
    const char *home = getenv("HOME");
    if (!home || !*home)
        return NULL;
    snprintf(path, sizeof(path), "%s/%s", home, HISTORY_FILE);
    return path;
}

/* ---- `lvx shell [--status-fd N] [--no-cache] [FILE]` ----------------------------- */

static int shell_usage(const char *msg)
{
    fprintf(stderr, "  %s\n  Usage: lvx shell [--status-fd N] [--no-cache] [FILE]\n", msg);
    return 3;
}

static int run_shell(int argc, char **argv, const struct lvx_dev_ops *io, bool as_lvm)
{
    struct lvx_shell_opts o = { .status_fd = -1, .io = io };
    const char *file = NULL;

    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--status-fd") == 0 && i + 1 < argc) {
            char *end;
            long fd = strtol(argv[++i], &end, 10);
            if (*end || fd < 0 || fd > 1023)
                return shell_usage("Invalid --status-fd.");
            o.status_fd = (int)fd;
        } else if (strcmp(argv[i], "--no-cache") == 0) {
            o.no_cache = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return shell_usage("Unknown option.");
        } else if (!file) {
            file = argv[i];
        } else {
            return shell_usage("Too many arguments.");
        }
    }
    if (file && strcmp(file, "-") != 0) {
        FILE *f = fopen(file, "re");
        if (!f) {
            fprintf(stderr, "  Cannot open %s: %s\n", file, strerror(errno));
            return 5;
        }
        o.read = read_file_line;
        o.read_arg = f;
        int rc = lvx_shell_loop(&o);
        fclose(f);
        return script_line_too_long ? 5 : rc;
    }
    if (!isatty(STDIN_FILENO)) {
        /* programs that drive the shell through pipes (lvm2-dbusd's lvm_shell_proxy.py)
         * wait for "lvm> " after each command: printed when they ask for the report
         * channel (LVM_REPORT_FD) or run lvx as `lvm` */
        if (getenv("LVM_REPORT_FD") || as_lvm)
            pipe_prompt = "lvm> ";
        o.read = read_file_line;
        o.read_arg = stdin;
        int rc = lvx_shell_loop(&o);
        return script_line_too_long ? 5 : rc;
    }
    const char *hist = history_path();
    rl_readline_name = "lvx";
    rl_attempted_completion_function = complete_command;
    using_history();
    stifle_history(HISTORY_MAX);
    if (hist)
        read_history(hist);
    o.read = read_terminal_line;
    o.prompt = "lvx> ";
    int rc = lvx_shell_loop(&o);
    if (hist)
        write_history(hist);
    return rc;
}

/* Without arguments: the shell when stdin is a terminal, a pipe or a file; the command
 * list otherwise (stdin closed or /dev/null). */
static bool stdin_wants_shell(void)
{
    struct stat st;
    if (isatty(STDIN_FILENO))
        return true;
    if (fstat(STDIN_FILENO, &st) < 0)
        return false;
    return S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode) || S_ISSOCK(st.st_mode);
}

/* Large VGs: parsing, importing and printing the text of a thousand PVs and LVs
 * allocates megabytes in short-lived arenas; keeping freed memory in the process (no
 * trimming, no per-allocation mmap) spares the page faults of taking it back each time,
 * which otherwise cost more than the work itself. */
static void tune_malloc(void)
{
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TOP_PAD, 8 << 20);
    lvx_hugeheap_reserve(48 << 20);      /* one fault per 2 MiB of heap (util/hugeheap.h) */
}

/* The I/O seam from the environment (the test wrapper, or the default); NULL after
 * printing why when LVX_TEST_DP_FAULT is malformed (an ignored fault would make a
 * test pass for the wrong reason). */
static const struct lvx_dev_ops *io_from_env(void)
{
    const char *spec = getenv("LVX_TEST_DP_FAULT");
    char err[256];
    if (spec && lvx_dev_dp_fault_check(spec, err, sizeof(err)) < 0) {
        fprintf(stderr, "  Invalid LVX_TEST_DP_FAULT: %s\n", err);
        return NULL;
    }
    return lvx_dev_ops_from_env();
}

int main(int argc, char **argv)
{
    tune_malloc();
    const struct lvx_dev_ops *io = io_from_env();
    if (!io)
        return 3;
    struct lvx_run_opts run = { .io = io };
    const char *base = argc > 0 && argv[0] ? strrchr(argv[0], '/') : NULL;
    base = base ? base + 1 : argc > 0 && argv[0] ? argv[0] : "lvx";
    /* not called as "pvs" (or "lvmsadc", an LVM2 command lvx lacks) through a symlink */
    bool as_lvx = !lvx_command_find(base) && !lvx_lvm2_command_name(base);

    if (as_lvx && argc >= 2 && strcmp(argv[1], "shell") == 0)
        return run_shell(argc - 2, argv + 2, io, false);
    if (as_lvx && argc == 1 && stdin_wants_shell())
        return run_shell(0, NULL, io, strcmp(base, "lvm") == 0);
    const char *phases = getenv("LVX_PHASES");    /* profiling: util/phase.h */
    if (!phases || strcmp(phases, "1") != 0)
        return lvx_main_opts(&run, argc, argv);
    lvx_phase_enable();
    int rc = lvx_main_opts(&run, argc, argv);
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_phase_report(&b);
    fputs(lvx_buf_str(&b), stderr);
    lvx_buf_free(&b);
    return rc;
}
