#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0940-lvm-compat: lvx as the system's `lvm` (issue 15), side by side with the real
# LVM2 on the same loop devices (sandboxed; LVM2's "Activation disabled" warning, which
# it prints for every command in the sandbox, is left out of the comparisons):
#   - called through links named lvm, pvs, lvscan: LVM2's conventions; a link named
#     after an LVM2 command lvx lacks (lvmsadc) is "no such command", exit 2, and never
#     the shell; `lvm help` lists the commands on stderr (nothing on stdout) under
#     LVM2's heading, every name in it is one of LVM2's; `help nosuch` as LVM2;
#   - pvscan (plain, -s, -u, -n, -e, -e -n), vgscan, lvscan (-a, refused argument),
#     formats, segtypes (lvx lists what it creates: a subset of LVM2's list, its order), lvmconfig /
#     dumpconfig / config (a key, --typeconfig full, an unknown key): same bytes and
#     exit codes (--withcomments: LVM2's lines without its comments, which lvx lacks,
#     with a warning saying so; --type full/default/list/missing/new/profilable with
#     --withversions and --ignoreadvanced: LVM2's table, byte for byte);
#   - pvscan --cache DEV (-aay): the same lines as LVM2 (PIDs aside), in the same
#     sequence: incomplete (need 1), complete + run autoactivation, then skip; lvx keeps
#     its records in its own run directory.  LVM2 runs only with a DEV (a full
#     `pvscan --cache` would clear /run/lvm for the whole machine) and its records of
#     this test's PVs/VG are removed at the end;
#   - --nolocking / --readonly / --ignorelockingfailure on reports as LVM2;
#     --commandprofile/--profile: a missing or broken profile is exit 5 with
#     "Failed to apply command profile", a good one is merged (lvmconfig shows it);
#     with an unusable lock directory a writing command fails, --ignorelockingfailure
#     (vgchange) and --nolocking (lvcreate) go on without the lock.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

need_loop
need_lvx
need_cmd lvm

VG=vgcompat$$
D=()
for i in 0 1 2; do D+=("$(make_loop 64M)"); done
lvm_sandbox "${D[@]}"
mkdir -p -m 0700 "$SCRATCH/run"

t0940_cleanup() {
    local pv
    # LVM2's online records of this test's PVs and VG (its pvscan --cache below)
    for pv in "${PVIDS[@]}"; do rm -f "/run/lvm/pvs_online/$pv" "/run/lvm/pvs_lookup/$VG"; done
    rm -f "/run/lvm/vgs_online/$VG"
    cleanup
}
PVIDS=()
trap t0940_cleanup EXIT

lvm2 pvcreate -q "${D[@]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 lvcreate -q -n one -L 8m "$VG" >/dev/null 2>&1
lvm2 lvcreate -q -n two -L 12m --alloc contiguous "$VG" >/dev/null 2>&1
test_eq "LVM2 made a VG with two LVs" "2" \
    "$(lvm2 vgs --noheadings -o lv_count "$VG" 2>/dev/null | tr -d ' ')"
# one device at a time: pvs sorts its lines by device name, not in the order of D
for d in "${D[@]}"; do PVIDS+=("$(lvm2 pvs --noheadings -o pv_uuid "$d" 2>/dev/null | tr -d ' -')"); done

# ---- listings
same "pvscan" pvscan
same "pvscan -s" pvscan -s
same "pvscan -u" pvscan -u
same "pvscan -n" pvscan -n
same "pvscan -e (no exported VG)" pvscan -e
side pvscan -e -n
test_eq "pvscan -e -n: exit 3 as LVM2" "$(cat "$SCRATCH/l.rc")" "$(cat "$SCRATCH/x.rc")"
test_eq "... LVM2's error line" "$(head -n 1 "$SCRATCH/l.err")" "$(head -n 1 "$SCRATCH/x.err")"
same "vgscan" vgscan
same "lvscan" lvscan
same "lvscan -a" lvscan -a
same "lvscan -b" lvscan -b
same "lvscan VG: argument refused" lvscan "$VG"
same "pvs --nolocking" pvs --nolocking
same "vgs --readonly" vgs --readonly "$VG"
same "lvs --ignorelockingfailure" lvs --ignorelockingfailure "$VG"
same "formats" formats
side segtypes
test_eq "segtypes: exit 0" "0 0" "$(cat "$SCRATCH/l.rc") $(cat "$SCRATCH/x.rc")"
# lvx lists the types it creates: each in LVM2's list, in LVM2's order
test_eq "... lvx lists LVM2's types it creates (linear ... thin), in LVM2's order" \
    "$(grep -Fx -f "$SCRATCH/x.out" "$SCRATCH/l.out")" "$(cat "$SCRATCH/x.out")"
test_eq "... 28 of them (not cache, vdo, writecache, integrity, raid10_near)" \
    "$(wc -l <"$SCRATCH/x.out")" 28

# ---- configuration
same "lvmconfig devices/global_filter" lvmconfig devices/global_filter
same "lvmconfig --typeconfig full global/activation" lvmconfig --typeconfig full global/activation
same "lvmconfig --type current backup" lvmconfig --type current backup
side lvmconfig --withcomments --mergedconfig backup/archive
test_eq "lvmconfig --withcomments --mergedconfig: LVM2's setting line (lvx has no comment texts)" \
    "$(grep -v -e '^#' -e '^$' "$SCRATCH/l.out")" "$(cat "$SCRATCH/x.out")"
test_ok "... and lvx says on stderr that it prints none" \
    grep -q "^  WARNING: --withcomments: lvx has no comment texts" "$SCRATCH/x.err"
side lvmconfig --withsummary --type default devices/dir
test_eq "lvmconfig --withsummary --type default: LVM2's setting line (lvx has no summaries)" \
    "$(grep -v -e '^# [A-Z]' -e '^$' "$SCRATCH/l.out")" "$(cat "$SCRATCH/x.out")"
test_ok "... and lvx says on stderr that it prints none" \
    grep -q "^  WARNING: --withsummary: lvx has no comment texts" "$SCRATCH/x.err"
# LVM2's settings table (config/lvm2_settings.c): every type but current/diff/full, with
# --withversions and --ignoreadvanced, a section or a setting, the same bytes
for t in default list missing new profilable; do
    same "lvmconfig --type $t" lvmconfig --type "$t"
    same "lvmconfig --type $t --withversions" lvmconfig --type "$t" --withversions
    same "lvmconfig --type $t --ignoreadvanced" lvmconfig --type "$t" --ignoreadvanced
done
same "lvmconfig --type list backup" lvmconfig --type list backup
test_eq "... LVM2's six backup settings" "$(wc -l <"$SCRATCH/x.out")" 6
same "lvmconfig --type default --withversions --ignoreadvanced devices" \
    lvmconfig --type default --withversions --ignoreadvanced devices
same "lvmconfig --type default allocation/cache_settings" lvmconfig --type default allocation/cache_settings
same "lvmconfig --type missing with --config: what the --config text lacks" \
    lvmconfig --type missing --withversions --config 'global { units = "k" }'
same "lvmconfig --type profilable allocation" lvmconfig --type profilable allocation
same "lvmconfig --type list backup/archive" lvmconfig --type list backup/archive
same "lvmconfig --type default nosuch" lvmconfig --type default nosuch
same "lvmconfig --type missing --mergedconfig: refused as LVM2" lvmconfig --type missing --mergedconfig
# --type full: lvm.conf and --config merged into LVM2's defaults in LVM2's order
same "lvmconfig --type full" lvmconfig --type full
# (stdout and exit code: LVM2 warns here about this sandbox's lvm.conf and logs with
# verbose=1 on stderr)
side lvmconfig --type full --config 'global { units = "k" test = 0 } devices { filter = [ "a|x|", "r|.*|" ] sysfs_scan = 0 } report { aligned = 0 buffered = 0 }'
test_ok "lvmconfig --type full --config (new settings, an array, a new section): LVM2's stdout" \
    bash -c "cmp '$SCRATCH/l.out' '$SCRATCH/x.out' && cmp '$SCRATCH/l.rc' '$SCRATCH/x.rc'"
side lvmconfig --type full --config log/verbose=1 devices
test_ok "lvmconfig --type full --config log/verbose=1 devices: LVM2's stdout" \
    bash -c "cmp '$SCRATCH/l.out' '$SCRATCH/x.out' && cmp '$SCRATCH/l.rc' '$SCRATCH/x.rc'"
same "lvmconfig --type full backup/retain_days" lvmconfig --type full backup/retain_days
same "lvmconfig of an unknown key" lvmconfig nosuch/key
same "dumpconfig global" dumpconfig global
same "config backup" config backup
same "vgs --commandprofile of a missing profile" vgs --commandprofile nope "$VG"
same "vgs --profile of a missing profile" vgs --profile nope "$VG"
mkdir -p "$SCRATCH/lvm/profile"
printf 'report {\n\tcompact_output=1\n}\n' >"$SCRATCH/lvm/profile/p.profile"
same "lvmconfig --commandprofile: the profile's setting" lvmconfig --commandprofile p report/compact_output
test_eq "... it is there" "compact_output=1" "$(cat "$SCRATCH/x.out")"
echo 'global { activation = 1' >"$SCRATCH/lvm/profile/bad.profile"
side vgs --commandprofile bad "$VG"
test_eq "a broken profile: exit 5 as LVM2" "$(cat "$SCRATCH/l.rc")" "$(cat "$SCRATCH/x.rc")"
test_eq "... LVM2's last line" "$(tail -n 1 "$SCRATCH/l.err")" "$(tail -n 1 "$SCRATCH/x.err")"

# ---- help and program names
side help
test_eq "help: exit 0, nothing on stdout" "0 0 0 0" \
    "$(cat "$SCRATCH/l.rc") $(cat "$SCRATCH/x.rc") $(wc -c <"$SCRATCH/l.out") $(wc -c <"$SCRATCH/x.out")"
mkdir -p "$SCRATCH/bin"
for n in lvm pvs lvscan lvmsadc; do ln -s "$LVX" "$SCRATCH/bin/$n"; done
"$SCRATCH/bin/lvm" help >"$SCRATCH/h.out" 2>"$SCRATCH/h.err"
test_eq "lvm help (as lvm): LVM2's three heading lines on stderr" \
    "$(head -n 3 "$SCRATCH/l.err")" "$(head -n 3 "$SCRATCH/h.err")"
lvm_names=$(sed -n '4,$p' "$SCRATCH/l.err" | awk '{print $1}' | sort)
extra=$(sed -n '4,$p' "$SCRATCH/h.err" | awk '{print $1}' | sort | comm -13 <(echo "$lvm_names") - |
        grep -vx -e daemon -e shell -e lvtable -e jobs)
test_eq "every command lvx lists is LVM2's (but lvx's own daemon, shell, lvtable, jobs)" "" "$extra"
for c in pvscan vgscan lvscan lvmconfig segtypes formats vgmknodes; do
    grep -q "^  $c " "$SCRATCH/h.err"
    _tap_result $? "help lists $c"
done
same "help nosuch" help nosuch
test_eq "pvs through a link named pvs = LVM2's pvs" \
    "$(lvm2 pvs -o pv_name,vg_name 2>/dev/null)" "$("$SCRATCH/bin/pvs" -o pv_name,vg_name 2>&1)"
test_eq "lvscan through a link" "$(lvm2 lvscan 2>/dev/null)" \
    "$("$SCRATCH/bin/lvscan" 2>&1)"
test_eq "lvm vgs through a link named lvm" "$(lvm2 vgs "$VG" 2>/dev/null)" \
    "$("$SCRATCH/bin/lvm" vgs "$VG" 2>&1)"
out=$(echo "vgs" | "$SCRATCH/bin/lvmsadc" 2>&1)
test_eq "a link named lvmsadc (not in lvx): exit 2, not a shell on a pipe" "2" "$?"
test_eq "... says so" "  No such command 'lvmsadc'.  Try 'lvx help'." "$out"
out=$("$SCRATCH/bin/lvm" nosuch 2>&1)
test_eq "lvm nosuch: exit 2" "2" "$?"
test_eq "... LVM2's line" "  No such command.  Try 'lvm help'." "$out"

# ---- pvscan --cache: LVM2 with a device each time, lvx in its own run directory
export LVX_RUN_DIR=$SCRATCH/run
same "pvscan --cache -aay PV1: VG incomplete (need 1)" pvscan --cache -aay "${D[0]}"
same "pvscan --cache -aay PV2: complete, run autoactivation" pvscan --cache -aay "${D[1]}"
grep -q "run autoactivation" "$SCRATCH/x.out"
_tap_result $? "... lvx ran the autoactivation"
same "pvscan --cache -aay PV1 again: skip autoactivation" pvscan --cache -aay "${D[0]}"
same "pvscan --cache PV3 (in no VG): not used" pvscan --cache "${D[2]}"
same "pvscan --cache PV1 without -aay: online" pvscan --cache "${D[0]}"
test_eq "lvx's records: LVM2's content (MAJ:MIN, vg:, dev:)" \
    "$(printf '%s\nvg:%s\ndev:%s' "$(stat -c '%t:%T' "${D[0]}" | { IFS=: read -r a b; echo $((16#$a)):$((16#$b)); })" "$VG" "${D[0]}")" \
    "$(cat "$SCRATCH/run/pvs_online/${PVIDS[0]}")"
lvx pvscan --cache >"$SCRATCH/x.out" 2>&1
test_eq "lvx pvscan --cache (all): one line per PV" "3" \
    "$(grep -c -E 'PV /dev/[^ ]+ (online|not used)\.' "$SCRATCH/x.out")"
test_eq "... the VG's autoactivation record is gone (made again from nothing)" "no" \
    "$([[ -e $SCRATCH/run/vgs_online/$VG ]] && echo yes || echo no)"
lvx pvscan --cache -aay >"$SCRATCH/x.out" 2>&1
grep -q "VG $VG run autoactivation" "$SCRATCH/x.out"
_tap_result $? "lvx pvscan --cache -aay (all): runs the autoactivation again"
test_eq "... and prints vgchange's line" "  0 logical volume(s) in volume group \"$VG\" now active" \
    "$(tail -n 1 "$SCRATCH/x.out")"

# ---- locking options on a writing command
: >"$SCRATCH/notadir"
LVX_LOCK_DIR=$SCRATCH/notadir/x lvx vgchange -an "$VG" >/dev/null 2>"$SCRATCH/e"
test_eq "an unusable lock directory: vgchange fails (exit 5)" "5" "$?"
LVX_LOCK_DIR=$SCRATCH/notadir/x lvx vgchange -an --ignorelockingfailure "$VG" >/dev/null 2>"$SCRATCH/e"
test_eq "... --ignorelockingfailure goes on (exit 0)" "0" "$?"
grep -q "WARNING: Cannot create lock directory" "$SCRATCH/e"
_tap_result $? "... with a warning"
LVX_LOCK_DIR=$SCRATCH/notadir/x lvx lvcreate --nolocking -n three -L 4m "$VG" >/dev/null 2>&1
test_eq "lvcreate --nolocking takes no lock (exit 0)" "0" "$?"
test_eq "... LVM2 sees the new LV" "three" \
    "$(lvm2 lvs --noheadings -o lv_name "$VG/three" 2>/dev/null | tr -d ' ')"

done_testing
