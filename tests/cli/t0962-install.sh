#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0962-install: `make install` into DESTDIR temp directories (PREFIX=/usr/local), with
# the build $LVX belongs to (build-asan/ -> SAN=1, build/ -> SAN=0; nothing is rebuilt
# when it is current):
#   - lvx, its man pages (lvx.8, lvx-CMD.8 for every command of `lvx help`) and the bash
#     completion are installed; without LVM2_NAMES no LVM2 name is;
#   - LVM2_NAMES=1: lvm and every name of lvm2-names (LVM2 programs lvx implements) is a
#     link to lvx that resolves; the installed names run as those commands (--version,
#     `lvm version`, pvcreate/vgcreate/lvcreate/lvs on an image file); `man -w 8 lvcreate`,
#     `man lvm` and `man lvx-vgs` find the pages with MANPATH; the completion is
#     registered for the names (through the completions/NAME links, as bash-completion
#     loads them);
#   - every LVM2 command name of the table is installed (a name of LVM2 that lvx has and
#     no link for it would be a gap), and none that lvx lacks;
#   - a file that is not lvx's link (LVM2's own lvm) is not replaced: install fails
#     before changing anything; FORCE=1 replaces it; installing twice is fine;
#   - make uninstall leaves no file behind (only empty directories).
# Costs about 20 s (four make runs that only copy files, a few lvx commands).
source "$(dirname "$0")/../lib.sh"

need_lvx
need_cmd make man install
case $(basename "$(dirname "$LVX")") in
build-asan) SANV=1 ;;
build) SANV=0 ;;
*) skip_all "LVX=$LVX is not build/lvx or build-asan/lvx" ;;
esac
BUILDDIR=$(dirname "$LVX")
[[ -s $BUILDDIR/lvm2-names && -f $BUILDDIR/man/.stamp ]] || skip_all "$BUILDDIR/man not generated (make man)"

mk() {  # mk DESTDIR [VAR=VALUE...] [TARGET]: make in the repository, output in $SCRATCH/make.log
    local d=$1
    shift
    make --no-print-directory -C "$LVX_ROOT" SAN="$SANV" PREFIX=/usr/local DESTDIR="$d" "$@" \
        >"$SCRATCH/make.log" 2>&1
}

mapfile -t cmds < <(lvx help 2>&1 | awk '/^  [a-z][a-z0-9]* +[^ ]/ && !/^  Use / && !/^  Available/ {print $1}')
mapfile -t names <"$BUILDDIR/lvm2-names"
test_ok "lvx help lists commands (${#cmds[@]}), lvm2-names has lvm and ${#names[@]} names" \
    test "${#cmds[@]}" -ge 20 -a "${names[0]}" = lvm -a "${#names[@]}" -ge 20

# ---- plain install --------------------------------------------------------------------
D=$SCRATCH/plain
test_ok "make install DESTDIR=plain" mk "$D" install
P=$D/usr/local
test_ok "sbin/lvx installed, runs" "$P/sbin/lvx" version
missing=()
for c in "${cmds[@]}"; do [[ -f $P/share/man/man8/lvx-$c.8 ]] || missing+=("$c"); done
[[ -f $P/share/man/man8/lvx.8 ]] || missing+=(lvx.8)
test_eq "a man page per command and lvx.8 installed" "${missing[*]}" ""
test_ok "completion installed" test -f "$P/share/bash-completion/completions/lvx"
test_ok "no LVM2 name without LVM2_NAMES" test ! -e "$P/sbin/lvm" -a ! -e "$P/sbin/pvs" \
    -a ! -e "$P/share/man/man8/lvcreate.8"
test_ok "make uninstall DESTDIR=plain" mk "$D" uninstall
test_eq "nothing left after uninstall" "$(find "$D" ! -type d)" ""

# ---- with the LVM2 names ----------------------------------------------------------------
D=$SCRATCH/dest
P=$D/usr/local
test_ok "make install LVM2_NAMES=1" mk "$D" LVM2_NAMES=1 install
bad=()
for n in "${names[@]}"; do
    [[ -L $P/sbin/$n && $P/sbin/$n -ef $P/sbin/lvx ]] || bad+=("$n")
done
test_eq "every name is a link resolving to sbin/lvx (${#names[@]})" "${bad[*]}" ""
bad=()
for n in "${names[@]}"; do
    page=lvx-$n.8
    [[ $n == lvm ]] && page=lvx.8
    [[ -L $P/share/man/man8/$n.8 && $P/share/man/man8/$n.8 -ef $P/share/man/man8/$page ]] || bad+=("$n.8")
    [[ $P/share/bash-completion/completions/$n -ef $P/share/bash-completion/completions/lvx ]] || bad+=("completions/$n")
done
test_eq "every name has its man page link and completion link" "${bad[*]}" ""

# the names are the table's LVM2 commands: each name is a command of lvx, and each
# command of lvx that LVM2 installs as a program (per LVM2's own man page list, where
# installed) has its name
extra=()
for n in "${names[@]:1}"; do
    printf '%s\n' "${cmds[@]}" | grep -qx "$n" || extra+=("$n")
done
test_eq "no name lvx does not implement" "${extra[*]}" ""
if [[ -x /sbin/lvm || -x /usr/sbin/lvm ]]; then
    lvm2_dir=$(dirname "$(command -v lvm || echo /usr/sbin/lvm)")
    gap=()
    for c in "${cmds[@]}"; do
        # an LVM2 program of the same name is a link to LVM2's lvm
        if [[ -L $lvm2_dir/$c && $lvm2_dir/$c -ef $lvm2_dir/lvm ]]; then
            [[ -L $P/sbin/$c ]] || gap+=("$c")
        fi
    done
    test_eq "every command LVM2 installs as a program ($lvm2_dir) is installed" "${gap[*]}" ""
else
    test_skip "LVM2 programs compared" "LVM2 not installed"
fi

# the installed names run as those commands
out=$("$P/sbin/pvs" --version 2>&1)
test_ok "sbin/pvs --version: LVM version line" grep -q "^  LVM version:.*lvx" <<<"$out"
out=$("$P/sbin/lvm" version 2>&1)
test_ok "sbin/lvm version" grep -q "^  LVM version:.*lvx" <<<"$out"
IMG=$SCRATCH/disk.img
truncate -s 64M "$IMG"
test_ok "sbin/pvcreate on an image" "$P/sbin/pvcreate" --devices "$IMG" "$IMG"
test_ok "sbin/vgcreate" "$P/sbin/vgcreate" --devices "$IMG" vginst$$ "$IMG"
test_ok "sbin/lvcreate" "$P/sbin/lvcreate" --devices "$IMG" -n lvi -L 8m vginst$$
out=$("$P/sbin/lvs" --devices "$IMG" --noheadings -o lv_full_name,lv_size --units m 2>&1)
test_eq "sbin/lvs reports the LV" "$(echo $out)" "vginst$$/lvi 8.00m"
out=$("$P/sbin/lvm" vgs --devices "$IMG" --noheadings -o vg_name,lv_count 2>&1)
test_eq "sbin/lvm vgs" "$(echo $out)" "vginst$$ 1"
rc=0; "$P/sbin/lvcreate" --no-such-option >/dev/null 2>&1 || rc=$?
test_eq "sbin/lvcreate with a bad option: exit 3" "$rc" 3

# man finds the pages
export MANPATH=$P/share/man
w=$(man -w 8 lvcreate 2>&1)
test_ok "man -w 8 lvcreate: the lvcreate.8 link or its target ($w)" \
    test "$w" -ef "$P/share/man/man8/lvx-lvcreate.8" -a "${w#"$P"/share/man/man8/}" != "$w"
test_eq "man -w lvx-vgs" "$(man -w lvx-vgs 2>&1)" "$P/share/man/man8/lvx-vgs.8"
out=$(MANWIDTH=100 man 8 lvcreate 2>&1 | col -b)
test_ok "man 8 lvcreate shows lvx-lvcreate" grep -q "^ *lvx-lvcreate - " <<<"$out"
out=$(MANWIDTH=100 man lvm 2>&1 | col -b)
test_ok "man lvm shows lvx(8)" grep -q "^ *lvx - logical volume manager" <<<"$out"
unset MANPATH

# the completion, as bash-completion loads it: completions/NAME, with sbin in PATH
reg=$(PATH=$P/sbin:$PATH bash -c 'source "$1"; for n in lvx lvm pvs lvcreate; do
          complete -p "$n" 2>/dev/null | grep -q " _lvx " && echo "$n"; done' _ \
      "$P/share/bash-completion/completions/pvs" | paste -sd' ')
test_eq "completion registered for lvx, lvm, pvs, lvcreate" "$reg" "lvx lvm pvs lvcreate"

test_ok "installing again over the same links" mk "$D" LVM2_NAMES=1 install

# ---- an LVM2 already there ------------------------------------------------------------------
D3=$SCRATCH/lvm2there
P3=$D3/usr/local
mkdir -p "$P3/sbin"
printf '#!/bin/sh\necho LVM2\n' >"$P3/sbin/lvm"
chmod 755 "$P3/sbin/lvm"
test_fail "install LVM2_NAMES=1 refuses to replace a foreign sbin/lvm" mk "$D3" LVM2_NAMES=1 install
grep -q "sbin/lvm exists and is not a link to lvx" "$SCRATCH/make.log" && r=0 || r=1
_tap_result "$r" "... saying why"
test_eq "sbin/lvm untouched, no name linked" "$("$P3/sbin/lvm"; ls "$P3/sbin" | paste -sd' ')" \
    "LVM2
lvm lvx"
test_ok "FORCE=1 replaces it" mk "$D3" LVM2_NAMES=1 FORCE=1 install
test_ok "sbin/lvm is now lvx" test "$P3/sbin/lvm" -ef "$P3/sbin/lvx"

# ---- uninstall ---------------------------------------------------------------------------------
test_ok "make uninstall" mk "$D" uninstall
test_eq "nothing left after uninstall (LVM2 names included)" "$(find "$D" ! -type d)" ""

done_testing
