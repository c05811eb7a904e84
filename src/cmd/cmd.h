/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/cmd.h - the command layer: one table of commands (cmd/commands.c), one
 * option parser (cmd/options.c), one file per command (cmd/pvs.c, ...).
 * lvx_main() is what the binary and (later) the shell call.
 */
#ifndef LVX_CMD_CMD_H
#define LVX_CMD_CMD_H

/* Run one command line: argv[0] is "lvx" (or a command name when called through a
 * symlink such as "pvs").  Returns the process exit status (0 ok, 5 failure as LVM2,
 * 3 usage error ...). */
int lvx_main(int argc, char **argv);

#endif
