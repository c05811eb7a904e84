#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0651-activation-off: lvm.conf / --config global/activation = 0 (issue 14, item 8), lvx
# side by side with LVM2 (whose sandbox always runs with activation off: its outputs are
# the oracle), on one VG of two loop devices:
#   - lvcreate (also -ay) writes the LV and leaves it inactive, exit 0, with LVM2's
#     "WARNING: Activation disabled. ..." line; LVM2 reads the LV lvx made with the same
#     size, attributes and segment type as its own;
#   - vgchange -ay/-an and lvchange -ay/-an succeed without making a device, vgchange
#     reporting as LVM2 ("0 logical volume(s) ... now active"); an unknown LV is still
#     exit 5;
#   - activation = 0 wins over LVX_ACTIVATION_BACKEND=user (exported through the whole
#     test): no daemon is started, no /dev entry appears; `--config global/activation=0`
#     does the same over an lvm.conf that allows activation, which otherwise activates;
#   - deliberate difference: lvx still zeroes the first 4 KiB of the new LV through its
#     own mapping (LVM2 skips zeroing without activation), checked after activating it.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
need_cmd lvm dd
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

VG=vgoff$$
t0651_cleanup() {
    if [[ -n ${LVX_RUN_DIR:-} ]]; then
        LVM_SYSTEM_DIR=$SCRATCH/us/etc "$LVX" vgchange -an "$VG" >/dev/null 2>&1
        "$LVX" vgremove -ff "$VG" >/dev/null 2>&1
        uspace_cleanup
    fi
    cleanup
}
trap t0651_cleanup EXIT
[[ -e /dev/$VG ]] && skip_all "/dev/$VG exists"

D=()
mapfile -t D < <(make_loops 2 64M)
uspace_env "$SCRATCH/us" "${D[@]}"        # exports LVX_ACTIVATION_BACKEND=user
lvm_sandbox "${D[@]}"
# lvx's configuration with activation off: the uspace one plus global/activation = 0
mkdir -p "$SCRATCH/off"
{ echo "global { activation = 0 }"; cat "$SCRATCH/us/etc/lvm.conf"; } >"$SCRATCH/off/lvm.conf"
xoff() { LVM_SYSTEM_DIR=$SCRATCH/off "$LVX" "$@"; }
xon() { LVM_SYSTEM_DIR=$SCRATCH/us/etc "$LVX" "$@"; }

# side CMD ARGS...: run lvx (activation off) and LVM2 with the same arguments, results in
# $SCRATCH/{x,l}.{out,err,rc}
side() { LVX_CMD=xoff both "$@"; }
no_dev() { [[ ! -e /dev/$VG/$1 && ! -e /dev/mapper/$VG-$1 ]]; }
no_daemon() { [[ -z $(uspace_daemon_pids) ]]; }
warn="  WARNING: Activation disabled. No device-mapper interaction will be attempted."

test_ok "pvcreate, vgcreate" sh -c "'$LVX' pvcreate -q ${D[*]} && '$LVX' vgcreate -q $VG ${D[*]}"
pe_start=$(lvm2 pvs --noheadings --units b --nosuffix -o pe_start "${D[0]}" 2>/dev/null | tr -d ' ')
test_ok "fill the first PV's data area with a pattern" "$PYTHON" -c "
f = open('${D[0]}', 'r+b'); f.seek($pe_start); f.write(b'\xa5' * (8 << 20)); f.close()"

# ---- lvcreate
xoff lvcreate -n a -L 8m "$VG" "${D[0]}" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err"
test_eq "lvcreate with activation off: exit 0" "0" "$?"
test_eq "... the first stderr line is LVM2's warning" "$warn" "$(head -n 1 "$SCRATCH/x.err")"
test_eq "... LVM2's words for the creation" '  Logical volume "a" created.' "$(cat "$SCRATCH/x.out")"
lvm2 lvcreate -n b -L 8m "$VG" "${D[1]}" >"$SCRATCH/l.out" 2>"$SCRATCH/l.err"
test_eq "LVM2's lvcreate there: exit 0" "0" "$?"
test_eq "... the same warning first" "$warn" "$(head -n 1 "$SCRATCH/l.err")"
grep -q 'Logical volume "b" created.' "$SCRATCH/l.out"
_tap_result $? "... the same creation line"
test_ok "no device for the new LV" no_dev a
test_ok "no daemon was started (LVX_ACTIVATION_BACKEND=user is ignored)" no_daemon
rep() { lvm2 lvs --noheadings -o lv_size,lv_attr,segtype,seg_count "$VG/$1" 2>/dev/null | tr -s ' '; }
test_eq "LVM2 reads lvx's LV as its own" "$(rep b)" "$(rep a)"
test_eq "... inactive for lvx's report too" "-" \
    "$(xoff lvs --noheadings -o lv_attr "$VG/a" 2>/dev/null | tr -d ' ' | cut -c5 | tr X -)"
xoff lvcreate -ay -Zn -n c -L 4m "$VG" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err"
test_eq "lvcreate -ay with activation off: exit 0, inactive" "0 yes" \
    "$? $(no_dev c && echo yes)"

# ---- vgchange / lvchange
for args in "vgchange -ay $VG" "vgchange -an $VG" "lvchange -ay $VG/a" "lvchange -an $VG/a" \
    "lvchange -ay $VG" "lvchange -ay $VG/a $VG/b"; do
    # shellcheck disable=SC2086
    side $args
    test_eq "$args: exit code as LVM2 (0)" "$(cat "$SCRATCH/l.rc")" "$(cat "$SCRATCH/x.rc")"
    test_eq "$args: stdout as LVM2" "$(cat "$SCRATCH/l.out")" "$(cat "$SCRATCH/x.out")"
    test_eq "$args: stderr as LVM2" "$(cat "$SCRATCH/l.err")" "$(cat "$SCRATCH/x.err")"
done
nothing_made() { no_dev a && no_dev b && no_dev c && no_daemon; }
test_ok "still no device, no daemon" nothing_made
side lvchange -ay "$VG/nope"
test_eq "lvchange -ay of an unknown LV: exit 5 as LVM2" "$(cat "$SCRATCH/l.rc")" "$(cat "$SCRATCH/x.rc")"
test_eq "... the same message" "$(grep -v Activation "$SCRATCH/l.err")" \
    "$(grep -v Activation "$SCRATCH/x.err")"

# ---- --config over an lvm.conf that allows activation
xon lvcreate --config 'global/activation=0' -n d -L 4m "$VG" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err"
test_eq "lvcreate --config global/activation=0: exit 0, inactive, no daemon" "0 yes yes" \
    "$? $(no_dev d && echo yes) $(no_daemon && echo yes)"
test_eq "... with the warning" "$warn" "$(head -n 1 "$SCRATCH/x.err")"
xon vgchange -ay --config 'global { activation = 0 }' "$VG" >"$SCRATCH/x.out" 2>&1
test_eq "vgchange -ay --config 'global { activation = 0 }': exit 0, nothing active" "0 yes" \
    "$? $(no_dev a && no_dev d && echo yes)"

# ---- activation allowed: the user backend works (the checks above could fail)
test_ok "activation on: lvchange -ay activates a (user backend)" xon lvchange -ay "$VG/a"
test_ok "... /dev/$VG/a is a block device" test -b "/dev/$VG/a"
dd if="/dev/$VG/a" of="$SCRATCH/head" bs=4096 count=2 iflag=direct status=none
test_eq "lvx zeroed the first 4 KiB of a although activation was off" \
    "$(head -c 4096 /dev/zero | sha256sum)" "$(head -c 4096 "$SCRATCH/head" | sha256sum)"
test_eq "... and only those (the pattern follows)" \
    "$("$PYTHON" -c "import sys; sys.stdout.buffer.write(b'\xa5' * 4096)" | sha256sum)" \
    "$(tail -c 4096 "$SCRATCH/head" | sha256sum)"
test_ok "lvchange -an" xon lvchange -an "$VG/a"
test_ok "vgremove" xoff vgremove -ff "$VG"
done_testing
