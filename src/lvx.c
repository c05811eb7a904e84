/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvx.c - the lvx binary: hands argv to the command dispatcher (cmd/dispatch.c).
 */
#include "cmd/cmd.h"

int main(int argc, char **argv)
{
    return lvx_main(argc, argv);
}
