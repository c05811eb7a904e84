/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvm_names.c - the names of LVM2's commands (`lvm help` of LVM2 2.03), so that
 * lvx called through a link named after one it does not have ("lvmsadc", "pvck")
 * says so instead of acting as the multi-command program.
 */
#include "cmd/commands.h"

#include <string.h>

static const char *const lvm2_names[] = {
    "config", "devtypes", "dumpconfig", "formats", "fullreport", "help", "lastlog",
    "lvchange", "lvconvert", "lvcreate", "lvdisplay", "lvextend", "lvmchange", "lvmconfig",
    "lvmdevices", "lvmdiskscan", "lvmsadc", "lvmsar", "lvpoll", "lvreduce", "lvremove",
    "lvrename", "lvresize", "lvs", "lvscan", "pvchange", "pvck", "pvcreate", "pvdata",
    "pvdisplay", "pvmove", "pvremove", "pvresize", "pvs", "pvscan", "segtypes", "systemid",
    "tags", "version", "vgcfgbackup", "vgcfgrestore", "vgchange", "vgck", "vgconvert",
    "vgcreate", "vgdisplay", "vgexport", "vgextend", "vgimport", "vgimportclone",
    "vgimportdevices", "vgmerge", "vgmknodes", "vgreduce", "vgremove", "vgrename", "vgs",
    "vgscan", "vgsplit",
};

bool lvx_lvm2_command_name(const char *name)
{
    for (size_t i = 0; i < sizeof(lvm2_names) / sizeof(lvm2_names[0]); i++)
        if (strcmp(lvm2_names[i], name) == 0)
            return true;
    return false;
}
