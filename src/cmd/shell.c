/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/shell.c - sessions and the shell loop (see shell.h).  A session runs command
 * lines in-process through lvx_main_opts() with its own sinks; it counts the error
 * messages of each command (for LVM2's "Command failed with status code N." line)
 * and owns the scan cache (meta/cache.h) handed to every command it runs.
 */
#include "cmd/shell.h"
#include "cmd/commands.h"
#include "cmd/shell_report.h"
#include "meta/cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- word splitting ---------------------------------------------------------- */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* One word starting at *p (not a blank); appended to w.  Advances *p. */
static int split_word(const char **p, struct lvx_buf *w, const char **err)
{
    const char *s = *p;
    while (*s && !is_blank(*s)) {
        if (*s == '\'') {
            const char *end = strchr(s + 1, '\'');
            if (!end) {
                *err = "unterminated quote (')";
                return -EINVAL;
            }
            lvx_buf_append(w, s + 1, (size_t)(end - s - 1));
            s = end + 1;
        } else if (*s == '"') {
            s++;
            while (*s && *s != '"') {
                if (*s == '\\' && s[1] && strchr("\"\\$`", s[1]))
                    s++;
                lvx_buf_putc(w, *s++);
            }
            if (*s != '"') {
                *err = "unterminated quote (\")";
                return -EINVAL;
            }
            s++;
        } else if (*s == '\\' && s[1]) {
            lvx_buf_putc(w, s[1]);
            s += 2;
        } else {
            lvx_buf_putc(w, *s++);
        }
    }
    *p = s;
    return 0;
}

int lvx_shell_split(struct lvx_pool *pool, const char *line, int *argc, char ***argv,
                    const char **err)
{
    char **v = lvx_pool_alloc(pool, sizeof(*v));
    int n = 0;
    const char *p = line;
    struct lvx_buf w = LVX_BUF_INIT;

    *err = NULL;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (!*p || *p == '#')
            break;
        lvx_buf_reset(&w);
        if (split_word(&p, &w, err) < 0) {
            lvx_buf_free(&w);
            return -EINVAL;
        }
        v = lvx_pool_realloc(pool, v, (size_t)(n + 1) * sizeof(*v), (size_t)(n + 2) * sizeof(*v));
        v[n++] = lvx_pool_strndup(pool, lvx_buf_str(&w), w.len);
    }
    v[n] = NULL;
    lvx_buf_free(&w);
    *argc = n;
    *argv = v;
    return 0;
}

/* ---- sessions ------------------------------------------------------------------ */

static void session_log(void *arg, int level, const char *msg)
{
    struct lvx_session *s = arg;
    if (level <= LVX_LOG_ERROR)
        s->errors++;
    if (s->rep && lvx_shrep_message(s->rep, level, msg))
        return;                      /* in the command log of the report channel */
    if (s->user_log)
        s->user_log(s->user_log_arg, level, msg);
    else
        lvx_cmd_log_stdio(NULL, level, msg);
}

void lvx_session_init(struct lvx_session *s, lvx_log_cb log_fn, void *log_arg, bool use_cache)
{
    memset(s, 0, sizeof(*s));
    s->user_log = log_fn;
    s->user_log_arg = log_arg;
    s->run.log_fn = session_log;
    s->run.log_arg = s;
    s->use_cache = use_cache;
    if (use_cache)
        s->run.cache = lvx_cache_new();
}

void lvx_session_fini(struct lvx_session *s)
{
    if (s->run.cache)
        lvx_cache_free(s->run.cache);
    s->run.cache = NULL;
}

static bool is_quit(const char *w)
{
    return strcmp(w, "quit") == 0 || strcmp(w, "exit") == 0;
}

/* Report an error line through the session's sink (outside any command). */
static void session_error(struct lvx_session *s, const char *msg)
{
    session_log(s, LVX_LOG_ERROR, msg);
}

int lvx_session_run_line(struct lvx_session *s, const char *line)
{
    struct lvx_pool *pool = lvx_pool_create();
    const char *err;
    int argc, rc;
    char **argv;

    s->errors = 0;
    if (lvx_shell_split(pool, line, &argc, &argv, &err) < 0) {
        char msg[128];
        snprintf(msg, sizeof(msg), "Parse error: %s.", err);
        session_error(s, msg);
        lvx_pool_destroy(pool);
        return LVX_EXIT_INVALID;
    }
    /* "lvx vgs" = "vgs" ("lvm vgs" too, as LVM2's shell accepts its own name) */
    if (argc > 0 && (strcmp(argv[0], "lvx") == 0 || strcmp(argv[0], "lvm") == 0) && argc > 1) {
        argv++;
        argc--;
    }
    if (argc == 0) {
        lvx_pool_destroy(pool);
        return LVX_LINE_EMPTY;
    }
    if (argc == 1 && is_quit(argv[0])) {
        if (s->rep)
            lvx_shrep_exit(s->rep, argv[0]);
        lvx_pool_destroy(pool);
        return LVX_LINE_QUIT;
    }
    if (s->rep && strcmp(argv[0], "lastlog") == 0) {
        rc = lvx_shrep_lastlog(s->rep);      /* the log it shows stays the last one */
        lvx_pool_destroy(pool);
        return rc;
    }
    if (s->rep)
        lvx_shrep_begin(s->rep);
    /* lvx_main_opts wants argv[0] = the program */
    char **full = lvx_pool_alloc(pool, (size_t)(argc + 2) * sizeof(*full));
    full[0] = "lvx";
    memcpy(full + 1, argv, (size_t)(argc + 1) * sizeof(*full));
    if (strcmp(argv[0], "lvx") == 0 || strcmp(argv[0], "lvm") == 0)
        rc = lvx_main_opts(&s->run, 1, full);       /* the bare name: the command list */
    else
        rc = lvx_main_opts(&s->run, argc + 1, full);
    if (rc != LVX_EXIT_OK && s->errors == 0) {
        char msg[64];
        snprintf(msg, sizeof(msg), "Command failed with status code %d.", rc);
        session_error(s, msg);
    }
    if (s->rep)
        lvx_shrep_end(s->rep, argv[0], rc);
    lvx_pool_destroy(pool);
    return rc;
}

/* ---- the shell loop -------------------------------------------------------------- */

static void write_status(int fd, int rc)
{
    char line[16];
    int n = snprintf(line, sizeof(line), "%d\n", rc);
    if (write(fd, line, (size_t)n) != n)
        return;   /* best effort: a test channel */
}

/* Prompts of commands run by the shell: on a terminal the answer is read like a
 * command line; otherwise the answer is no (run the command with -y or -f). */
static bool shell_ask(void *arg, const char *question)
{
    const struct lvx_shell_opts *o = arg;
    if (!o->prompt) {
        printf("%s [y/n]: [n]\n", question);
        fflush(stdout);
        return false;
    }
    char prompt[1100];
    snprintf(prompt, sizeof(prompt), "%s [y/n]: ", question);
    fflush(stdout);
    char *line = o->read(o->read_arg, prompt);
    bool yes = line && (line[0] == 'y' || line[0] == 'Y');
    free(line);
    return yes;
}

static void report_out(void *arg, const char *data, size_t len)
{
    lvx_shrep_output(arg, data, len);
}

int lvx_shell_loop(const struct lvx_shell_opts *o)
{
    struct lvx_session s;
    lvx_session_init(&s, NULL, NULL, !o->no_cache);
    s.rep = lvx_shrep_open();          /* LVM_REPORT_FD: reports (and the log) go there */
    if (s.rep) {
        s.run.out_fn = report_out;
        s.run.out_arg = s.rep;
    }
    s.run.ask_fn = shell_ask;
    s.run.ask_arg = (void *)o;
    s.run.io = o->io;
    for (;;) {
        char *line = o->read(o->read_arg, o->prompt);
        if (!line) {
            fflush(stderr);
            printf("\n");            /* as LVM2's shell at the end of input */
            break;
        }
        int rc = lvx_session_run_line(&s, line);
        free(line);
        if (rc == LVX_LINE_QUIT) {
            fflush(stdout);
            if (!s.rep || !s.rep->log_report)     /* else it is in the command log */
                fprintf(stderr, "  Exiting.\n");
            break;
        }
        if (rc != LVX_LINE_EMPTY && o->status_fd >= 0)
            write_status(o->status_fd, rc);
        fflush(stdout);
    }
    fflush(stdout);
    lvx_shrep_close(s.rep);
    lvx_session_fini(&s);
    return 0;
}

/* `shell` reached through the dispatcher: from inside a shell or through liblvx's
 * lvx_run() (the lvx binary starts the shell itself, before dispatching). */
int lvx_cmd_shell(struct lvx_cmd_env *env)
{
    (void)env;
    lvx_cmd_errorf("The shell runs from the lvx binary only (already in a shell or library).");
    return LVX_EXIT_FAILED;
}
