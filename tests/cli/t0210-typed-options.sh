#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0210-typed-options: every option value is checked once, by its kind, as LVM2 does.
#  - bad values of every kind (y|n, numbers, sizes with and without sign, extents with
#    percentages, tags, readahead): lvx exits with LVM2's code, and its one-line message
#    holds LVM2's "Invalid argument for --X: V" line and LVM2's reason line (when LVM2
#    prints one) before any device is touched;
#  - getopt's forms: abbreviations, "--flag=value", ambiguous prefixes, as LVM2;
#  - '@tag' is accepted by vgcreate, vgchange, pvchange and lvchange alike, and a size
#    with a trailing 'b' ("4mb") by VG and PV options as by LV ones; the metadata written
#    is what LVM2 writes for the same commands.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later

D=()
for _ in 0 1 2 3; do D+=("$(make_loop 64M)") || skip_all "cannot make loop devices"; done
lvm_sandbox "${D[@]}"
export LVM_SYSTEM_DIR=$SCRATCH/lvm LVM_SUPPRESS_FD_WARNINGS=1
VG=typ$$
lvm2 pvcreate -y "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 vgcreate "$VG" "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 lvcreate -an -Zn -y -n lv1 -L 8m "$VG" >/dev/null 2>&1
before=$(sha_devs "${D[@]}")

# same_as_lvm2 "description" ARGS...: exit codes equal; LVM2's "Invalid argument" line
# and its reason line (the line before it, when there is one) in lvx's single line.
same_as_lvm2() {
    local desc=$1 lrc=0 xrc=0 want reason
    shift
    lvm2 "$@" >/dev/null 2>"$SCRATCH/l.err" || lrc=$?
    lvx "$@" >/dev/null 2>"$SCRATCH/x.err" || xrc=$?
    grep -v 'WARNING: Activation disabled' "$SCRATCH/l.err" | sed 's/^ *//' >"$SCRATCH/l.msg"
    want=$(grep -m1 '^Invalid argument for' "$SCRATCH/l.msg" || true)
    reason=$(grep -B1 -m1 '^Invalid argument for' "$SCRATCH/l.msg" | grep -v '^Invalid argument' || true)
    if [[ $xrc -eq $lrc && -n $want && $(wc -l <"$SCRATCH/x.err") -eq 1 ]] &&
        grep -qF -- "$want" "$SCRATCH/x.err" &&
        { [[ -z $reason ]] || grep -qF -- "($reason)" "$SCRATCH/x.err"; } &&
        ! sanitizer_report "$SCRATCH/x.err"; then
        _tap_result 0 "$desc"
        return
    fi
    _tap_result 1 "$desc"
    diag "args: $*" "LVM2 exit $lrc, lvx exit $xrc"
    _diag_file "LVM2 stderr" "$SCRATCH/l.err"
    _diag_file "lvx stderr" "$SCRATCH/x.err"
}

same_as_lvm2 "bad y|n (--zero)" lvcreate --zero foo -L 4m "$VG"
same_as_lvm2 "bad y|n (vgchange -x)" vgchange -x maybe "$VG"
same_as_lvm2 "bad y|n (pvchange -x)" pvchange -x maybe "${D[0]}"
same_as_lvm2 "bad number (-i abc)" lvcreate -i abc -L 4m "$VG"
same_as_lvm2 "number with a sign (-i -1)" lvcreate -i -1 -L 4m "$VG"
same_as_lvm2 "number with a sign (vgcreate -l -1)" vgcreate -l -1 "new$VG" "${D[2]}"
same_as_lvm2 "size too big (-L 16E)" lvcreate -L 16E "$VG"
same_as_lvm2 "size with a bad unit (-L 4x)" lvcreate -L 4x "$VG"
same_as_lvm2 "negative size for lvcreate (-L -1)" lvcreate -L -1 "$VG"
same_as_lvm2 "bytes not a multiple of 512 (-L 1000b)" lvcreate -L 1000b "$VG"
same_as_lvm2 "empty size (-L '')" lvcreate -L '' "$VG"
same_as_lvm2 "unknown %type (-l 5%XX)" lvcreate -l 5%XX "$VG"
same_as_lvm2 "negative extents for lvcreate (-l -5)" lvcreate -l -5 "$VG"
same_as_lvm2 "extent count too big" lvcreate -l 99999999999999999999 "$VG"
same_as_lvm2 "bad extent size (-s 4q)" vgcreate -s 4q "new$VG" "${D[2]}"
same_as_lvm2 "two decimal points (-s 4.5.6m)" vgcreate -s 4.5.6m "new$VG" "${D[2]}"
same_as_lvm2 "signed PV size (--metadatasize -1)" pvcreate --metadatasize -1 "${D[2]}"
same_as_lvm2 "signed PV size (--metadatasize +1)" pvcreate --metadatasize +1 "${D[2]}"
same_as_lvm2 "bad tag (lvchange --addtag b@d)" lvchange --addtag 'b@d' "$VG/lv1"
same_as_lvm2 "bad tag (vgchange --deltag 'a b')" vgchange --deltag 'a b' "$VG"
same_as_lvm2 "bad tag (pvchange --addtag b@d)" pvchange --addtag 'b@d' "${D[0]}"
same_as_lvm2 "bad readahead (-r 12q)" lvcreate -r 12q -L 4m "$VG"
test_eq "no device changed by any refused command line" "$(sha_devs "${D[@]}")" "$before"

# getopt's forms, as LVM2 reads them
for args in "lvs --noheading --nosuf $VG" "lvs --unit=k --nosuffix $VG" "vgs -ovg_name --no-h $VG"; do
    lrc=0 xrc=0
    # shellcheck disable=SC2086
    lvm2 $args >"$SCRATCH/l.out" 2>/dev/null || lrc=$?
    # shellcheck disable=SC2086
    lvx $args >"$SCRATCH/x.out" 2>"$SCRATCH/x.err" || xrc=$?
    test_eq "'$args': exit as LVM2" "$xrc" "$lrc"
    [[ $lrc -eq 0 ]] && test_eq "'$args': output as LVM2" "$(cat "$SCRATCH/x.out")" "$(cat "$SCRATCH/l.out")"
done
xrc=0
lvx lvs --no "$VG" >/dev/null 2>"$SCRATCH/x.err" || xrc=$?
test_eq "lvs --no: ambiguous, exit 3" "$xrc" 3
test_ok "... names the possibilities as getopt" grep -q "option '--no' is ambiguous; possibilities: '--noheadings'" "$SCRATCH/x.err"
xrc=0
lvx lvs --all=3 "$VG" >/dev/null 2>"$SCRATCH/x.err" || xrc=$?
test_eq "lvs --all=3: exit 3" "$xrc" 3
test_ok "... \"doesn't allow an argument\" as getopt" grep -q "option '--all' doesn't allow an argument" "$SCRATCH/x.err"

# '@tag' everywhere, "4mb" for VG and PV sizes: the same metadata as LVM2's commands
lvx vgchange --addtag @vt1 --addtag vt2 "$VG" >/dev/null 2>"$SCRATCH/e1" 
test_eq "vgchange --addtag @vt1: tags as given without '@'" \
    "$(lvm2 vgs --noheadings -o vg_tags "$VG" 2>/dev/null | xargs)" "vt1,vt2"
lvx vgchange --deltag @vt1 "$VG" >/dev/null 2>>"$SCRATCH/e1"
test_eq "vgchange --deltag @vt1" "$(lvm2 vgs --noheadings -o vg_tags "$VG" 2>/dev/null | xargs)" "vt2"
lvx pvchange --addtag @pt "${D[0]}" >/dev/null 2>>"$SCRATCH/e1"
test_eq "pvchange --addtag @pt" "$(lvm2 pvs --noheadings -o pv_tags "${D[0]}" 2>/dev/null | xargs)" "pt"
lvx lvchange --addtag @lt "$VG/lv1" >/dev/null 2>>"$SCRATCH/e1"
test_eq "lvchange --addtag @lt" "$(lvm2 lvs --noheadings -o lv_tags "$VG/lv1" 2>/dev/null | xargs)" "lt"
# (backups are off in the sandbox: LVM2's backup warning, checked by t0949, aside)
test_eq "no messages from the tag changes" \
    "$(sandbox_noise <"$SCRATCH/e1")" ""

lvm2 pvcreate -y --metadatasize 4mb "${D[2]}" >/dev/null 2>&1
lvm2 vgcreate -s 8mb --addtag @a "l$VG" "${D[2]}" >/dev/null 2>&1
want=$(lvm2 pvs --noheadings --units b -o pe_start,pv_mda_size,vg_extent_size,vg_tags "${D[2]}" 2>/dev/null | xargs)
test_ok "lvx pvcreate --metadatasize 4mb" lvx pvcreate -y --metadatasize 4mb "${D[3]}"
test_ok "lvx vgcreate -s 8mb --addtag @a" lvx vgcreate -s 8mb --addtag @a "x$VG" "${D[3]}"
test_eq "PV and VG made by lvx with 4mb/8mb/@a = LVM2's" \
    "$(lvm2 pvs --noheadings --units b -o pe_start,pv_mda_size,vg_extent_size,vg_tags "${D[3]}" 2>/dev/null | xargs)" "$want"
test_ok "LVM2's vgck accepts the VG lvx made" lvm2 vgck "x$VG"

lvm2 vgremove -f "$VG" "l$VG" "x$VG" >/dev/null 2>&1
done_testing
