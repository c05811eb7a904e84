#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tools/lvm-names.sh - install or remove the LVM2 command names as links to lvx
# (`make install-lvm-names`, `make install LVM2_NAMES=1`, `make uninstall`):
#
#   lvm-names.sh install NAMES-FILE   for each name of NAMES-FILE (`lvx-docgen lvm2-names`:
#                                     lvm, pvs, lvcreate, ...): SBINDIR/NAME -> lvx,
#                                     MANDIR/man8/NAME.8 -> lvx-NAME.8 (lvm.8 -> lvx.8),
#                                     BASHCOMPDIR/NAME -> lvx
#   lvm-names.sh uninstall            removes every link of those three directories that
#                                     points at lvx's file (and nothing else)
#
# Environment: DESTDIR, SBINDIR, MANDIR, BASHCOMPDIR (from the Makefile), FORCE=1.
# A name that exists and is not already that link (LVM2's own lvm, a page of LVM2's) is
# refused, before anything is changed, unless FORCE=1.
set -eu

: "${SBINDIR:?}" "${MANDIR:?}" "${BASHCOMPDIR:?}"
DESTDIR=${DESTDIR:-}
FORCE=${FORCE:-}
sbin=$DESTDIR$SBINDIR
man8=$DESTDIR$MANDIR/man8
comp=$DESTDIR$BASHCOMPDIR

TAB=$(printf '\t')
# each link: "DIR<TAB>NAME<TAB>TARGET" (DESTDIR may hold spaces)
links() {
    while read -r name; do
        [ -n "$name" ] || continue
        page=lvx-$name.8
        [ "$name" = lvm ] && page=lvx.8
        printf '%s\t%s\t%s\n' "$sbin" "$name" lvx
        printf '%s\t%s\t%s\n' "$man8" "$name.8" "$page"
        printf '%s\t%s\t%s\n' "$comp" "$name" lvx
    done <"$1"
}

case ${1:-} in
install)
    [ $# -eq 2 ] || { echo "usage: $0 install NAMES-FILE" >&2; exit 2; }
    [ -s "$2" ] || { echo "lvm-names.sh: $2 is missing or empty (make man)" >&2; exit 1; }
    [ -e "$sbin/lvx" ] || { echo "lvm-names.sh: $sbin/lvx is not installed (make install)" >&2; exit 1; }
    bad=0
    tmp=$(mktemp)
    trap 'rm -f "$tmp"' EXIT
    links "$2" >"$tmp"
    while IFS=$TAB read -r dir name target; do
        if [ -e "$dir/$name" ] || [ -L "$dir/$name" ]; then
            if [ -L "$dir/$name" ] && [ "$(readlink "$dir/$name")" = "$target" ]; then
                continue
            fi
            if [ "$FORCE" != 1 ]; then
                echo "lvm-names.sh: $dir/$name exists and is not a link to $target (FORCE=1 replaces it)" >&2
                bad=1
            fi
        fi
    done <"$tmp"
    if [ $bad = 1 ]; then
        exit 1
    fi
    mkdir -p "$sbin" "$man8" "$comp"
    while IFS=$TAB read -r dir name target; do
        ln -sfn "$target" "$dir/$name"
    done <"$tmp"
    ;;
uninstall)
    for dir in "$sbin" "$comp" "$man8"; do
        [ -d "$dir" ] || continue
        for f in "$dir"/*; do
            [ -L "$f" ] || continue
            case $(readlink "$f") in
            lvx | lvx.8 | lvx-*.8) rm -f "$f" ;;
            esac
        done
    done
    ;;
*)
    echo "usage: $0 install NAMES-FILE | uninstall" >&2
    exit 2
    ;;
esac
