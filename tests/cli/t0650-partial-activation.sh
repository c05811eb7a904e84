#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0650-partial-activation: activation of an LV with a missing PV (issue 14, item 5),
# through the user-space backend (the lvx daemon), on three loop devices.  The LV spans
# all three (10 + 10 + 5 extents of 4 MiB); a second LV lies on the first PV only.
# With the middle PV hidden (--devices) or its loop device detached:
#   - vgchange -ay / lvchange -ay (also --activationmode degraded|complete) refuse the
#     partial LV with LVM2's message and exit 5; vgchange still activates the whole LV;
#   - --activationmode partial, -P/--partial, lvm.conf activation/activation_mode
#     activate it, printing LVM2's "PARTIAL MODE" line (compared with LVM2's own);
#     the present parts read back what was written before (direct I/O), the missing
#     part fails reads and writes with EIO, writes to the present parts land;
#   - bad modes and -P with another --activationmode: LVM2's messages, exit 3, no write
#     even when the command also changes metadata;
#   - a daemon killed while serving the partial LV: the next command's daemon restores
#     it from its state file, still partial;
#   - with the PV back, the whole LV holds the data of before plus the partial-mode
#     writes.
# LVM2 runs with activation off, so it cannot show its refusal's exit code; its lines
# for the mode are compared here, the refusal text is the one of LVM2's
# lib/activate/activate.c.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
need_cmd lvm dd
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

VG=vgpart$$
t0650_cleanup() {
    if [[ -n ${LVX_RUN_DIR:-} ]]; then
        "$LVX" vgchange -an "$VG" >/dev/null 2>&1
        "$LVX" vgremove -ff "$VG" >/dev/null 2>&1
        uspace_cleanup
    fi
    cleanup
}
trap t0650_cleanup EXIT
[[ -e /dev/$VG ]] && skip_all "/dev/$VG exists"

D=()
mapfile -t D < <(make_loops 3 64M)
uspace_env "$SCRATCH/us" "${D[@]}"
lvm_sandbox "${D[0]}" "${D[2]}"       # LVM2 sees the VG with the middle PV missing
HIDE="--devices=${D[0]},${D[2]}"

# rc_lines DESC WANT_RC PATTERN CMD...: exit WANT_RC and a stderr line matching PATTERN
rc_lines() {
    local desc=$1 want=$2 pat=$3 rc=0
    shift 3
    "$@" >"$SCRATCH/o" 2>"$SCRATCH/e" || rc=$?
    if [[ $rc == "$want" ]] && grep -qF -- "$pat" "$SCRATCH/e" && ! sanitizer_report "$SCRATCH/e"; then
        _tap_result 0 "$desc"
    else
        _tap_result 1 "$desc"
        diag "exit $rc (want $want), want a line with: $pat"
        _diag_file stderr "$SCRATCH/e"
    fi
}
state() { lvx lvs "$HIDE" --noheadings -o lv_attr "$VG/$1" 2>/dev/null | tr -d ' ' | cut -c5; }
MB=1048576
# rd LV SKIP_MIB COUNT_MIB OUT: direct read through the LV's device
rd() { dd if="/dev/$VG/$1" of="$4" bs=1M skip="$2" count="$3" iflag=direct status=none; }

test_ok "pvcreate, vgcreate" sh -c "'$LVX' pvcreate -q ${D[*]} && '$LVX' vgcreate -q $VG ${D[*]}"
test_ok "lv: 10 extents on each of the first two PVs, 5 on the third" sh -c \
    "'$LVX' lvcreate -an -Zn -n lv -l 10 $VG ${D[0]} && '$LVX' lvextend -l +10 $VG/lv ${D[1]} &&
     '$LVX' lvextend -l +5 $VG/lv ${D[2]}"
test_ok "whole: 2 extents on the first PV" lvx lvcreate -an -Zn -n whole -l 2 "$VG" "${D[0]}"
head -c $((100 * MB)) /dev/urandom >"$SCRATCH/data"
test_ok "activate lv (all PVs present)" lvx lvchange -ay "$VG/lv"
test_ok "write 100 MiB through /dev/$VG/lv" \
    dd if="$SCRATCH/data" of="/dev/$VG/lv" bs=1M oflag=direct conv=fsync status=none
test_ok "deactivate" lvx vgchange -an "$VG"

# ---- refusals without partial mode
want="Refusing activation of partial LV $VG/lv.  Use '--activationmode partial' to override."
rc_lines "vgchange -ay with a PV missing: refused, exit 5" 5 "$want" lvx vgchange -ay "$HIDE" "$VG"
test_eq "... the LV on present PVs was activated" "a" "$(state whole)"
test_eq "... the partial LV was not" "-" "$(state lv)"
grep -qF "1 logical volume(s) in volume group \"$VG\" now active" "$SCRATCH/o"
_tap_result $? "... vgchange reports 1 LV now active"
test_ok "vgchange -an" lvx vgchange -an "$HIDE" "$VG"
rc_lines "lvchange -ay: refused, exit 5" 5 "$want" lvx lvchange -ay "$HIDE" "$VG/lv"
for m in degraded complete; do
    rc_lines "lvchange -ay --activationmode $m: refused, exit 5" 5 "$want" \
        lvx lvchange -ay --activationmode "$m" "$HIDE" "$VG/lv"
done
rc_lines "lvm.conf activation_mode = complete: refused" 5 "$want" \
    lvx lvchange -ay --config 'activation/activation_mode="complete"' "$HIDE" "$VG/lv"
test_eq "lv still inactive" "-" "$(state lv)"

# ---- bad modes: LVM2's messages and exit codes
lvm_line() {  # first stderr line of LVM2 without the activation warning, and its exit code
    local rc=0
    lvm2 "$@" >/dev/null 2>"$SCRATCH/le" || rc=$?
    printf '%s %s\n' "$rc" "$(grep -v 'Activation disabled' "$SCRATCH/le" | head -n 1)"
}
lvx_line() {
    local rc=0
    lvx "$@" >/dev/null 2>"$SCRATCH/xe" || rc=$?
    printf '%s %s\n' "$rc" "$(head -n 1 "$SCRATCH/xe")"
}
for args in "lvchange -ay --activationmode bogus $VG/lv" \
    "lvchange -ay -P --activationmode complete $VG/lv" \
    "vgchange -ay --partial --activationmode degraded $VG"; do
    # shellcheck disable=SC2086
    test_eq "$args: as LVM2" "$(lvx_line $args)" "$(lvm_line $args)"
done
before=$(sha_devs "${D[@]}")
rc_lines "lvchange --addtag with a bad mode: exit 3" 3 "Invalid activation mode given." \
    lvx lvchange --addtag t1 -ay --activationmode bogus "$HIDE" "$VG/lv"
test_eq "... nothing written" "$before" "$(sha_devs "${D[@]}")"
rc_lines "vgchange -x n with a bad mode: exit 3" 3 "Invalid activation mode given." \
    lvx vgchange -x n -ay --activationmode bogus "$HIDE" "$VG"
test_eq "... nothing written" "$before" "$(sha_devs "${D[@]}")"
test_eq "lvm.conf activation_mode = \"bad\": as LVM2" \
    "$(lvx_line lvchange -ay --config 'activation/activation_mode="bad"' "$VG/lv")" \
    "$(lvm_line lvchange -ay --config 'activation/activation_mode="bad"' "$VG/lv")"

# ---- partial mode
lvx lvchange -ay --activationmode partial "$HIDE" "$VG/lv" >"$SCRATCH/o" 2>"$SCRATCH/e"
test_eq "lvchange -ay --activationmode partial: exit 0" "0" "$?"
lvm2 lvchange -ay --activationmode partial "$VG/lv" >/dev/null 2>"$SCRATCH/le"
test_eq "... its PARTIAL MODE line is LVM2's" "$(grep 'PARTIAL' "$SCRATCH/e")" \
    "$(grep 'PARTIAL' "$SCRATCH/le")"
test_ok "... /dev/$VG/lv is a block device" test -b "/dev/$VG/lv"
attr=$(lvx lvs "$HIDE" --noheadings -o lv_attr "$VG/lv" 2>/dev/null | tr -d ' ')
test_eq "lv_attr: active and partial" "a p" "${attr:4:1} ${attr:8:1}"
test_eq "the size is the whole LV's" "$((100 * MB))" "$(blockdev --getsize64 "/dev/$VG/lv")"

head -c $((40 * MB)) "$SCRATCH/data" >"$SCRATCH/want0"
tail -c $((20 * MB)) "$SCRATCH/data" >"$SCRATCH/want2"
test_ok "read the part on the first PV" rd lv 0 40 "$SCRATCH/got0"
test_eq "... it holds what was written before" "$(sha256sum <"$SCRATCH/want0")" \
    "$(sha256sum <"$SCRATCH/got0")"
test_ok "read the part on the third PV" rd lv 80 20 "$SCRATCH/got2"
test_eq "... it holds what was written before" "$(sha256sum <"$SCRATCH/want2")" \
    "$(sha256sum <"$SCRATCH/got2")"
for off in 40 60 79; do
    rc_lines "read 1 MiB at $off MiB (missing PV): EIO" 1 "Input/output error" \
        rd lv "$off" 1 "$SCRATCH/bad"
done
rc_lines "read across the boundary 39-41 MiB: EIO" 1 "Input/output error" \
    rd lv 39 2 "$SCRATCH/bad"
rc_lines "write 1 MiB at 50 MiB (missing PV): EIO" 1 "Input/output error" \
    dd if=/dev/zero of="/dev/$VG/lv" bs=1M seek=50 count=1 oflag=direct status=none
head -c $MB /dev/urandom >"$SCRATCH/new"
test_ok "write 1 MiB at 10 MiB (present PV)" \
    dd if="$SCRATCH/new" of="/dev/$VG/lv" bs=1M seek=10 count=1 oflag=direct conv=fsync status=none
test_ok "... reads back" rd lv 10 1 "$SCRATCH/gotnew"
test_eq "... with the new data" "$(sha256sum <"$SCRATCH/new")" "$(sha256sum <"$SCRATCH/gotnew")"
# a daemon killed while serving the partial LV: the next command's daemon restores it
# from the state file, partial flag included
read -r sup worker <<<"$(uspace_daemon_pids)"
kill -9 "$sup" "$worker" 2>/dev/null
for i in $(seq 50); do [[ -d /proc/$sup ]] || break; sleep 0.1; done
test_eq "daemon killed: the next lvx command brings lv back" "a" "$(state lv)"
test_ok "... a new daemon serves it" test -n "$(uspace_daemon_pids)"
test_ok "... the present part reads back" rd lv 10 1 "$SCRATCH/gotnew"
test_eq "... unchanged" "$(sha256sum <"$SCRATCH/new")" "$(sha256sum <"$SCRATCH/gotnew")"
rc_lines "... the missing part still fails with EIO" 1 "Input/output error" \
    rd lv 60 1 "$SCRATCH/bad"
test_ok "deactivate the partial LV" lvx lvchange -an "$HIDE" "$VG/lv"
test_ok "/dev/$VG/lv is gone" test ! -e "/dev/$VG/lv"

rc_lines "lvchange -ay -P: activates, PARTIAL MODE" 0 "PARTIAL MODE." lvx lvchange -ay -P "$HIDE" "$VG/lv"
test_eq "... active" "a" "$(state lv)"
test_ok "vgchange -an" lvx vgchange -an "$HIDE" "$VG"
rc_lines "vgchange -ay with lvm.conf activation_mode = partial: both LVs, PARTIAL MODE" 0 \
    "PARTIAL MODE." lvx vgchange -ay --config 'activation/activation_mode="partial"' "$HIDE" "$VG"
test_eq "... lv active" "a" "$(state lv)"
test_eq "... whole active" "a" "$(state whole)"
test_ok "vgchange -an" lvx vgchange -an "$HIDE" "$VG"

# ---- the PV really gone: its loop device detached
cp "$SCRATCH/data" "$SCRATCH/data.now"
dd if="$SCRATCH/new" of="$SCRATCH/data.now" bs=1M seek=10 count=1 conv=notrunc status=none
img1=$(losetup -nO BACK-FILE "${D[1]}" | sed 's/ *$//')
test_ok "detach the middle PV's loop device" detach_loop "${D[1]}"
rc_lines "vgchange -ay: refused" 5 "$want" lvx vgchange -ay "$VG"
rc_lines "vgchange -ay --activationmode partial: activates" 0 "PARTIAL MODE." \
    lvx vgchange -ay --activationmode partial "$VG"
test_ok "read the part on the third PV" rd lv 80 20 "$SCRATCH/got2"
test_eq "... as before" "$(sha256sum <"$SCRATCH/want2")" "$(sha256sum <"$SCRATCH/got2")"
rc_lines "read at 45 MiB: EIO" 1 "Input/output error" rd lv 45 1 "$SCRATCH/bad"
test_ok "vgchange -an" lvx vgchange -an "$VG"

# ---- the PV back
newdev=$(attach_loop "$img1")
uspace_env "$SCRATCH/us" "${D[0]}" "$newdev" "${D[2]}"
test_ok "with the PV back (as $newdev): lvchange -ay without partial mode" lvx lvchange -ay "$VG/lv"
test_ok "read the whole LV" rd lv 0 100 "$SCRATCH/all"
test_eq "... it holds the data of before and the partial-mode write" \
    "$(sha256sum <"$SCRATCH/data.now")" "$(sha256sum <"$SCRATCH/all")"
test_ok "vgchange -an" lvx vgchange -an "$VG"
test_ok "vgremove" lvx vgremove -ff "$VG"
done_testing
