#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0961-completion: the bash completion generated from the command and option tables
# (tools/docgen.c, `make man`: completion/lvx next to $LVX), run by bash itself: a fresh
# bash sources the file, gets COMP_WORDS/COMP_CWORD, calls the function, prints
# COMPREPLY.  Expected values come from lvx itself (`lvx help`, its reports):
#   - the first word: every command of `lvx help`; options: for every command exactly
#     the options `lvx help CMD` lists (short and long forms);
#   - option values: fixed words from the value kinds (y|n, --type, --alloc, --units,
#     --reportformat, config --type), "--opt=val" and bash's "--opt = val" split, file
#     names for -f/--file, comma lists of files for --devices; none after a flag;
#   - names: VGs, VG/LVs, PVs, per positional argument (lvcreate VG then PVs, lvextend
#     only VG/LV, lvremove both), listed by `lvx vgs/lvs/pvs --noheadings` with the
#     command line's --devices passed on (image files: found only with it);
#   - called as an LVM2 name (a link pvs/lvremove -> lvx, names listed through the lvm
#     link beside it) and as `lvm CMD`; the file registers those names only when they
#     are links to the lvx found in PATH, never LVM2's own programs;
#   - on loop devices (root): a VG made by lvx and one made by LVM2 (with its LV), seen
#     without --devices through the test's lvm.conf filter.
# -o/-O complete the field names of the command's report (pvs, vgs, lvs; fullreport all).
# Costs about 20 s (80-odd bash runs, a few lvx reports per name completion).
source "$(dirname "$0")/../lib.sh"

need_lvx
COMP=$(dirname "$LVX")/completion/lvx
[[ -f $COMP ]] || skip_all "$COMP not generated (make man)"

# comp WORD...: complete the last WORD of the command line WORD... ("" = a new word);
# prints COMPREPLY sorted, one line, space separated
comp() {
    bash -c 'source "$1" || exit 1; shift
             COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
             COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
             _lvx; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMP" "$@" | sort | paste -sd' '
}
# ccheck DESC WANT WORD...: the completion of WORD... is WANT
ccheck() {
    local desc=$1 want=$2
    shift 2
    test_eq "$desc" "$(comp "$@")" "$want"
}

test_ok "the completion file is valid bash" bash -n "$COMP"
if command -v shellcheck >/dev/null 2>&1; then
    test_ok "shellcheck finds nothing in it" shellcheck -s bash "$COMP"
fi
# "lvx" typed on the command line is the lvx of PATH
mkdir -p "$SCRATCH/path"
ln -s "$LVX" "$SCRATCH/path/lvx"
export PATH=$SCRATCH/path:$PATH

# ---- commands and options, against lvx help ----------------------------------------
mapfile -t cmds < <(lvx help 2>&1 | awk '/^  [a-z][a-z0-9]* +[^ ]/ && !/^  Use / && !/^  Available/ {print $1}')
test_ok "lvx help lists commands (${#cmds[@]})" test "${#cmds[@]}" -ge 20
ccheck "lvx <TAB>: every command" "$(printf '%s\n' "${cmds[@]}" | sort | paste -sd' ')" lvx ""
ccheck "lvx lvc<TAB>" "lvchange lvconvert lvcreate" lvx lvc

# the "-s" and "--long" words of the usage lines of `lvx help CMD`
help_words() {
    lvx help "$1" 2>&1 | grep -E '^[[:space:]]*\[ ' | grep -oE -- '-[A-Za-z]\||--[a-z][a-z0-9-]*' |
        tr -d '|' | sort -u | paste -sd' '
}
for c in "${cmds[@]}"; do
    ccheck "lvx $c -<TAB>: the options of lvx help $c" "$(help_words "$c")" lvx "$c" -
done
ccheck "lvx lvcreate --st<TAB>" "--stripes --stripesize" lvx lvcreate --st

# ---- option values ----------------------------------------------------------------
ccheck "lvcreate --type <TAB>" "linear striped" lvx lvcreate --type ""
ccheck "lvcreate --type=st<TAB>" "--type=striped" lvx lvcreate --type=st
ccheck "lvcreate --type = l<TAB> (bash splits at =)" "linear" lvx lvcreate --type = l
ccheck "lvcreate --alloc cl<TAB>" "cling" lvx lvcreate --alloc cl
ccheck "lvcreate -Z <TAB> (y|n)" "n y" lvx lvcreate -Z ""
ccheck "lvchange -a <TAB>" "n y" lvx lvchange -a ""
ccheck "lvchange -p <TAB>" "r rw" lvx lvchange -p ""
ccheck "lvchange -r <TAB> (auto|none|Number)" "auto none" lvx lvchange -r ""
ccheck "config --type <TAB>" "current default diff full list missing new profilable" lvx config --type ""
ccheck "vgs --reportformat <TAB>" "basic json" lvx vgs --reportformat ""
units=$(comp lvx vgs --units "" | wc -w)
test_eq "vgs --units <TAB>: the 20 unit letters" "$units" 20
ccheck "daemon st<TAB>" "start status stop" lvx daemon st
ccheck "help pvc<TAB>" "pvchange pvck pvcreate" lvx help pvc
ccheck "lvcreate --size <TAB>: nothing (a number)" "" lvx lvcreate --size ""
mkdir -p "$SCRATCH/f"
: >"$SCRATCH/f/backup.vg"
: >"$SCRATCH/f/other"
ccheck "vgcfgrestore -f <file><TAB>" "$SCRATCH/f/backup.vg" lvx vgcfgrestore -f "$SCRATCH/f/b"
ccheck "vgcfgbackup --file=<file><TAB>" "--file=$SCRATCH/f/backup.vg" lvx vgcfgbackup "--file=$SCRATCH/f/b"
ccheck "--devices A,<file><TAB>: the list kept" "$SCRATCH/f/backup.vg,$SCRATCH/f/other" \
    lvx vgs --devices "$SCRATCH/f/backup.vg,$SCRATCH/f/o"
ccheck "daemon -f: a flag there, st<TAB> is the argument" "start status stop" lvx daemon -f st

# ---- names, on image files (--devices) ------------------------------------------------
VG=vgcomp$$
truncate -s 64M "$SCRATCH/a.img" "$SCRATCH/b.img"
IMGS=$SCRATCH/a.img,$SCRATCH/b.img
test_ok "vgcreate on two image files" lvx vgcreate "$VG" "$SCRATCH/a.img" "$SCRATCH/b.img" --devices "$IMGS"
test_ok "lvcreate lvone" lvx lvcreate -n lvone -L 8m "$VG" --devices "$IMGS"

ccheck "vgs --devices IMGS vgc<TAB>" "$VG" lvx vgs --devices "$IMGS" vgc
ccheck "vgs vgc<TAB> without --devices: the images are not seen" "" lvx vgs vgc
ccheck "lvremove --devices=IMGS <TAB>: VGs and VG/LVs" "$VG $VG/lvone" lvx lvremove "--devices=$IMGS" ""
ccheck "lvextend <TAB>: only VG/LVs" "$VG/lvone" lvx lvextend --devices "$IMGS" ""
ccheck "lvchange -a y <TAB>" "$VG $VG/lvone" lvx lvchange -a y --devices "$IMGS" ""
ccheck "lvchange -ay <TAB> (value in the cluster)" "$VG $VG/lvone" lvx lvchange -ay --devices "$IMGS" ""
ccheck "pvchange <TAB>: the PVs" "$SCRATCH/a.img $SCRATCH/b.img" lvx pvchange --devices "$IMGS" ""
ccheck "lvcreate -n x -L 4m <TAB>: first the VG" "$VG" lvx lvcreate --devices "$IMGS" -n x -L 4m ""
ccheck "lvcreate VG <TAB>: then PVs" "$SCRATCH/a.img $SCRATCH/b.img" lvx lvcreate --devices "$IMGS" "$VG" ""
ccheck "vgrename VG <TAB>: the new name, nothing offered" "" lvx vgrename --devices "$IMGS" "$VG" ""
ccheck "lvs -- -<TAB>: after --, no options (no VG named so)" "" lvx lvs --devices "$IMGS" -- -

# called as LVM2 names: links in a bin directory
mkdir -p "$SCRATCH/bin" "$SCRATCH/other"
for n in lvm lvx lvremove vgs; do ln -s "$LVX" "$SCRATCH/bin/$n"; done   # not in PATH
ccheck "lvremove (link) <TAB>" "$VG $VG/lvone" "$SCRATCH/bin/lvremove" --devices "$IMGS" ""
ccheck "lvremove (link) --dev<TAB>" "--devices --devicesfile" "$SCRATCH/bin/lvremove" --dev
ccheck "lvm vgs v<TAB>" "$VG" "$SCRATCH/bin/lvm" vgs --devices "$IMGS" v
ccheck "lvm lvcr<TAB>" "lvcreate" "$SCRATCH/bin/lvm" lvcr

reg() {  # reg PATH NAME...: which NAMEs the sourced file registers with PATH
    PATH=$1 bash -c 'source "$1"; shift; for n; do complete -p "$n" >/dev/null 2>&1 && echo "$n"; done' \
        _ "$COMP" "${@:2}" | paste -sd' '
}
ccheck_reg() { test_eq "$1" "$(reg "${@:3}")" "$2"; }
ccheck_reg "registered: lvx, and the LVM2 names that are links to it" "lvx lvm lvremove vgs" \
    "$SCRATCH/bin:$PATH" lvx lvm lvremove vgs pvs
printf '#!/bin/sh\nexit 0\n' >"$SCRATCH/other/vgs"
chmod +x "$SCRATCH/other/vgs"
ccheck_reg "not registered: a vgs in PATH that is not lvx (LVM2's)" "lvx lvm lvremove" \
    "$SCRATCH/other:$SCRATCH/bin:$PATH" lvx lvm lvremove vgs

# ---- -o/-O: the report's field names (after ',' and a leading '+' or '-') ------------
ccheck "lvs -o lv_na<TAB>" "lv_name" lvx lvs -o lv_na
ccheck "lvs -o +lv_name,vg_ex<TAB>" \
    "+lv_name,vg_exported +lv_name,vg_extendable +lv_name,vg_extent_count +lv_name,vg_extent_size" \
    lvx lvs -o +lv_name,vg_ex
ccheck "lvs -O -lv_si<TAB>" "-lv_size" lvx lvs -O -lv_si
ccheck "vgs -o lv_na<TAB>: no LV fields in vgs" "" lvx vgs -o lv_na
ccheck "fullreport -o pvseg_s<TAB>" "pvseg_size pvseg_start" lvx fullreport -o pvseg_s
truncate -s 1M "$SCRATCH/empty.img"
for r in pvs vgs lvs; do
    fields=$(comp lvx "$r" -o "" | tr ' ' ',')
    test_ok "$r -o <TAB>: $(tr ',' '\n' <<<"$fields" | wc -l) names, every one accepted by lvx $r" \
        "$LVX" "$r" -o "$fields" --devices "$SCRATCH/empty.img"
done

# ---- names on loop devices, without --devices ---------------------------------------
if [[ $(id -u) -eq 0 ]] && command -v lvm >/dev/null 2>&1 && losetup -f >/dev/null 2>&1; then
    D0=$(make_loop 64M)
    D1=$(make_loop 64M)
    VX=vgcx$$ VL=vgcl$$
    test_ok "lvx: vgcreate $VX on $D0, lvcreate" \
        bash -c "'$LVX' vgcreate $VX $D0 && '$LVX' lvcreate -n lx -L 4m $VX"
    test_ok "LVM2: vgcreate $VL on $D1, lvcreate" \
        bash -c "LVM_SYSTEM_DIR='$SCRATCH/lvm' lvm vgcreate $VL $D1 && LVM_SYSTEM_DIR='$SCRATCH/lvm' lvm lvcreate -an -Zn -n ll -L 4m $VL"
    ccheck "loops: vgremove vgc<TAB>" "$VL $VX" lvx vgremove vgc
    ccheck "loops: lvremove <TAB>" "$VL $VL/ll $VX $VX/lx" lvx lvremove ""
    ccheck "loops: lvextend $VL/<TAB>" "$VL/ll" lvx lvextend "$VL/"
    ccheck "loops: pvs <TAB>" "$(printf '%s\n' "$D0" "$D1" | sort | paste -sd' ')" lvx pvs ""
    ccheck "loops: vgs (link) <TAB>" "$VL $VX" "$SCRATCH/bin/vgs" ""
else
    test_skip "names on loop devices" "needs root, loop devices and LVM2"
fi

done_testing
