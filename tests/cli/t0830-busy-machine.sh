#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0830-busy-machine: the tests are immune to other users of loop devices and never act
# on a device name they no longer hold (tests/lib.sh, tests/tools/loops.sh, the lvx
# daemon's loop devices).  A "neighbour" here is a loop device attached by this script
# to a file outside the test's scratch directory, at a number the test used before:
#   - detach_loop of a name the test no longer holds is refused and the neighbour stays
#     attached; at exit a test detaches only the devices still backed by its files (a
#     child test run leaves the neighbour alone and detaches its own);
#   - the default lvm.conf of lib.sh (exported LVM_SYSTEM_DIR): another run's VG of the
#     same name on another loop device is not seen by lvx or LVM2 system scans;
#   - the cleanup removes the test's VGs before detaching its devices;
#   - the lvx daemon (user activation): after the LV's loop device was detached behind
#     its back and the number taken by a neighbour, lvchange -an and daemon stop -f leave
#     the neighbour attached, and activation attaches a new device of its own (the
#     daemon's check of its loop devices' backing files, lvxd_volume_loop_ours).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/uspace-env.sh
. "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
need_cmd lvm
plan_later

# the neighbour's files live outside $SCRATCH (not ours by lib.sh's rule); removed at exit
NB=$(mktemp -d /tmp/lvx-t0830-neighbour.XXXXXX)
NB=$(realpath "$NB")
truncate -s 16M "$NB/n.img"
VG=vgbusy$$
# shellcheck disable=SC2317  # (the EXIT trap)
t0830_cleanup() {
    uspace_cleanup
    cleanup
    loops_detach_under "$NB"
    rm -rf "$NB"
}
trap t0830_cleanup EXIT

# neighbour_at DEV: attach the neighbour's file at DEV (just freed); fails when someone
# else took the number first (a busy machine)
neighbour_at() {
    local i
    for i in $(seq 20); do
        losetup "$1" "$NB/n.img" 2>/dev/null && loop_holds "$1" "$NB/n.img" && return 0
        loop_backing "$1" >/dev/null && return 1      # taken by someone else
        sleep 0.05                                    # still being cleared
    done
    return 1
}

# ---------------------------------------------------------------- lib.sh: a reused name
A=$(make_loop 16M) && B=$(make_loop 16M) || { _tap_result 1 "attach two loop devices"; done_testing; }
FA=$(loop_backing "$A")
test_eq "attach_loop records the device with its backing file" \
    "$(awk -v d="$A" '$1 == d {print $2}' "$SCRATCH/.loops")" "$FA"
test_eq "loops_of finds it by its file" "$(loops_of "$FA")" "$A"
losetup -d "$A"                             # detached behind lib.sh's back...
if neighbour_at "$A"; then                  # ...and the number taken by a neighbour
    test_fail "detach_loop of a name no longer ours is refused" detach_loop "$A"
    test_ok "... the neighbour is still attached" loop_holds "$A" "$NB/n.img"
    test_eq "our_loops no longer lists it" "$(our_loops | awk '{print $1}' | grep -cx "$A")" 0
    losetup -d "$A"
else
    test_skip "detach_loop of a name no longer ours is refused" "$A taken by someone else"
    test_skip "... the neighbour is still attached" "$A taken by someone else"
    test_skip "our_loops no longer lists it" "$A taken by someone else"
fi
test_ok "detach_loop of our own device works" detach_loop "$B"
test_fail "... and a second time it is refused" detach_loop "$B"

# ---------------------------------------------------------------- a child test's exit
# The child makes two devices, prints them, lets one go behind lib.sh's back and exits;
# the parent gives that number to the neighbour before the child's cleanup runs.
cat >"$SCRATCH/child.sh" <<'EOF'
. "$LVX_ROOT/tests/lib.sh"
X=$(make_loop 16M) && Y=$(make_loop 16M) || exit 1
lvx pvcreate -q "$X" "$Y" >/dev/null 2>&1 && lvx vgcreate -q "$CHILD_VG" "$X" "$Y" >/dev/null 2>&1 &&
    lvx lvcreate -q -an -Zn -L 8m -n l "$CHILD_VG" >/dev/null 2>&1
FY=$(loop_backing "$Y")
losetup -d "$X"
echo "$X $Y $FY $SCRATCH"
read -r _                                   # the parent attached the neighbour at X
exit 0
EOF
coproc CHILD { CHILD_VG=$VG bash "$SCRATCH/child.sh" 2>&1; }
read -r X _ FY CS <&"${CHILD[0]}"
if [[ -n $X ]] && neighbour_at "$X"; then
    echo go >&"${CHILD[1]}"
    wait "$CHILD_PID"
    test_ok "a test's exit leaves a name it no longer holds alone" loop_holds "$X" "$NB/n.img"
    test_eq "... and detaches its own devices" "$(loops_of "$FY")" ""
    test_ok "... and removes its scratch directory" test ! -e "$CS"
    losetup -d "$X"
else
    [[ -n $X ]] && echo go >&"${CHILD[1]}"
    wait "$CHILD_PID"
    for t in "a test's exit leaves a name it no longer holds alone" "... and detaches its own devices" \
        "... and removes its scratch directory"; do test_skip "$t" "${X:-the child} not available"; done
fi

# ---------------------------------------------------------------- same VG name elsewhere
# a neighbour VG named like ours on a device outside this test (its own private config)
N=$(losetup -f --show "$NB/n.img")
mkdir -p "$NB/lvm"
printf 'devices { global_filter = [ "a|^%s$|", "r|.*|" ] }\nbackup { backup = 0 archive = 0 }\nglobal { activation = 0 }\n' \
    "$N" >"$NB/lvm/lvm.conf"
LVM_SYSTEM_DIR=$NB/lvm LVM_SUPPRESS_FD_WARNINGS=1 lvm vgcreate -q "$VG" "$N" >/dev/null 2>&1
test_ok "the neighbour has a VG named $VG" bash -c "LVM_SYSTEM_DIR=$NB/lvm LVM_SUPPRESS_FD_WARNINGS=1 lvm vgs $VG"
C=$(make_loop 16M) && D=$(make_loop 16M)
test_ok "lvx vgcreate $VG on our devices (no --devices)" lvx vgcreate -q "$VG" "$C" "$D"
test_eq "lvx pvs (system scan) lists only this test's PVs" \
    "$(lvx pvs --noheadings -o pv_name 2>/dev/null | xargs -n1 | sort | xargs)" \
    "$(printf '%s\n' "$C" "$D" | sort | xargs)"
test_eq "lvx vgs sees one $VG, ours" "$(lvx vgs --noheadings -o vg_name,pv_count 2>/dev/null | xargs)" "$VG 2"
test_eq "LVM2 (the default sandbox) agrees" "$(lvm2 vgs --noheadings -o vg_name,pv_count 2>/dev/null | xargs)" "$VG 2"
test_ok "lvx lvcreate on our $VG" lvx lvcreate -q -an -Zn -L 8m -n l "$VG"
test_eq "the neighbour's $VG is untouched (no LV)" \
    "$(LVM_SYSTEM_DIR=$NB/lvm LVM_SUPPRESS_FD_WARNINGS=1 lvm vgs --noheadings -o lv_count "$VG" 2>/dev/null | xargs)" 0

# ---------------------------------------------------------------- cleanup order
_cleanup_vgs
test_eq "the cleanup removes the test's VGs before detaching" \
    "$(lvx pvs --noheadings -o vg_name --devices "$C,$D" 2>/dev/null | xargs)" ""
test_ok "... the neighbour's VG is still there" \
    bash -c "LVM_SYSTEM_DIR=$NB/lvm LVM_SUPPRESS_FD_WARNINGS=1 lvm vgs $VG"
losetup -d "$N"

# ---------------------------------------------------------------- the lvx daemon
if [[ ! -c /dev/fuse ]]; then
    for t in "lvcreate activates" "lvchange -an leaves the neighbour attached" \
        "lvchange -ay attaches a device of its own" "daemon stop -f leaves the neighbour attached"; do
        test_skip "daemon: $t" "no /dev/fuse"
    done
    done_testing
fi
E=$(make_loop 64M)
uspace_env "$SCRATCH/us" "$E"
UVG=vgbusyu$$
lvx pvcreate -q "$E" >/dev/null 2>&1
lvx vgcreate -q "$UVG" "$E" >/dev/null 2>&1
test_ok "daemon: lvcreate activates" lvx lvcreate -q -Zn -L 16m -n lv "$UVG"
FL=$LVX_RUN_DIR/vol/$UVG-lv
# the LV's loop device detached behind the daemon's back and its number given to the
# neighbour (again with a new device when someone else took the number first)
for try in 1 2 3 4 5; do
    L=$(readlink "/dev/$UVG/lv" 2>/dev/null)
    [[ -n $L ]] && loop_holds "$L" "$FL" && losetup -d "$L" && neighbour_at "$L" && break
    L=
    lvx lvchange -an "$UVG/lv" >/dev/null 2>&1
    lvx lvchange -ay "$UVG/lv" >/dev/null 2>&1
done
((try > 1)) && diag "daemon part: try $try"
if [[ -n $L ]]; then
    test_ok "daemon: lvchange -an leaves the neighbour attached" \
        bash -c "'$LVX' lvchange -an $UVG/lv >/dev/null 2>&1; losetup -j '$NB/n.img' | grep -q '^$L:'"
    test_ok "daemon: lvchange -ay attaches a device of its own" lvx lvchange -ay "$UVG/lv"
    L2=$(readlink "/dev/$UVG/lv" 2>/dev/null)
    test_ok "... not the neighbour's ($L2 is backed by the LV's file)" loop_holds "${L2:-none}" "$FL"
    "$LVX" daemon stop -f >/dev/null 2>&1
    for _ in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
    test_ok "daemon: daemon stop -f leaves the neighbour attached" loop_holds "$L" "$NB/n.img"
    losetup -d "$L"
else
    for t in "lvchange -an leaves the neighbour attached" "lvchange -ay attaches a device of its own" \
        "... not the neighbour's" "daemon stop -f leaves the neighbour attached"; do
        test_skip "daemon: $t" "the LV's loop device was taken by someone else 5 times"
    done
fi
done_testing
