# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/loops.sh - loop devices known by their backing files; sourced by
# tests/lib.sh and by the bench/demo scripts.  Loop devices are shared by everything on
# the machine and a freed number is taken again at once (losetup -f gives the lowest),
# so a name remembered from an earlier attach may be someone else's device now: act on
# a device only while the kernel says it is still backed by our file.
#   loop_backing DEV        the file the kernel says DEV is attached to (fails if none)
#   loop_holds DEV FILE     DEV is attached to FILE now (sysfs backing_file, or the inode
#                           match of `losetup -j FILE` when the kernel names it otherwise)
#   loops_of FILE           the loop devices attached to FILE now, one per line
#   loops_under DIR         "DEV FILE" of every loop device backed by a file under DIR
#   loop_detach_own DEV FILE   detach DEV if it is attached to FILE (else leave it: 1)
#   loops_detach_under DIR  detach every loop device backed by a file under DIR (a
#                           private mktemp directory: they are all ours)

loop_backing() {
    local n=${1#/dev/} f=
    [[ $n =~ ^loop[0-9]+$ ]] || return 1
    { IFS= read -r f <"/sys/block/$n/loop/backing_file"; } 2>/dev/null
    [[ -n $f ]] && printf '%s\n' "$f"
}

loop_holds() {
    local bf
    bf=$(loop_backing "$1") || return 1
    [[ $bf == "$2" ]] && return 0
    [[ -e $2 ]] && losetup -j "$2" 2>/dev/null | cut -d: -f1 | grep -qx -- "$1"
}

loops_of() {
    local dev
    [[ -e $1 ]] || return 0
    for dev in $(losetup -j "$1" 2>/dev/null | cut -d: -f1); do
        loop_holds "$dev" "$1" && printf '%s\n' "$dev"
    done
    return 0
}

loops_under() {
    local dir=${1%/} bf file dev
    [[ -n $dir ]] || return 0
    for bf in /sys/block/loop*/loop/backing_file; do
        file=
        { IFS= read -r file <"$bf"; } 2>/dev/null
        [[ $file == "$dir"/* ]] || continue
        dev=${bf#/sys/block/}
        printf '/dev/%s %s\n' "${dev%%/*}" "$file"
    done
}

loop_detach_own() {
    loop_holds "$1" "$2" || return 1
    losetup -d "$1"
}

loops_detach_under() {
    local dev file
    while read -r dev file; do
        losetup -d "$dev" 2>/dev/null
    done < <(loops_under "$1")
    return 0
}
