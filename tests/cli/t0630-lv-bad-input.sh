#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0630-lv-bad-input: LV commands given bad input (not enough space, more stripes than
# PVs with free space, bad stripe sizes, name clashes, reserved names, reducing to zero,
# sizes that overflow, unknown options, activation requests) print exactly one error
# line on stderr, exit non-zero without crashing, and leave every device byte unchanged.
# Then the default -Z y really zeroes the first 4 KiB of a new LV (and only those),
# and -Z n leaves them alone.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

need_loop
need_cmd lvm "$PYTHON"
need_lvx
plan_later

twin_setup 4 32M vg1 || { _tap_result 1 "set up the VG"; done_testing; }
C=(lvcreate -an -Zn)
test_ok "an LV to clash with" lvx_a "${C[@]}" -L 8m -n lv1 vg1
test_ok "a striped LV" lvx_a "${C[@]}" -L 12m -i 3 -n st vg1
test_ok "fill the first PV" lvx_a "${C[@]}" -l 100%PVS -n full vg1 "${TWIN_A[0]}"
test_eq "the last PV is still empty" \
    "$(lvm_a pvs --noheadings -o pv_used --units s --nosuffix "${TWIN_A[3]}" 2>/dev/null | tr -d ' ')" 0

# The devices' checksums as left by the last successful change (refreshed by the
# callers that change them; bad commands must not).
BEFORE=$(sha_devs "${TWIN_A[@]}")

# bad "description" EXIT-STATUS PATTERN lvx-args...
# MAX_LINES (default 1): stderr lines allowed.
bad() {
    local desc=$1 want=$2 pattern=$3 rc=0 lines after before=$BEFORE
    shift 3
    lvx_a "$@" >"$SCRATCH/b.out" 2>"$SCRATCH/b.err" </dev/null || rc=$?
    after=$(sha_devs "${TWIN_A[@]}")
    # a question left unanswered (LVM2's prompt on stderr, "[n]" at the end of input)
    # is not an error line
    lines=$(grep -cv '\[y/n\]: \[n\]$' "$SCRATCH/b.err" || true)
    if [[ $rc -eq $want && $lines -ge 1 && $lines -le ${MAX_LINES:-1} && $before == "$after" ]] &&
        grep -Eq -- "$pattern" "$SCRATCH/b.err" && ! sanitizer_report "$SCRATCH/b.err"; then
        _tap_result 0 "$desc"
        return
    fi
    _tap_result 1 "$desc"
    diag "lvx $*" "exit status $rc (want $want), $lines stderr line(s), want /$pattern/"
    [[ $before == "$after" ]] || diag "device contents changed"
    _diag_file stderr "$SCRATCH/b.err"
}

bad "not enough free space" 5 "insufficient free space" "${C[@]}" -L 2g -n big vg1
bad "more stripes than PVs" 5 "Number of stripes \(5\) must not exceed" "${C[@]}" -L 20m -i 5 vg1
bad "more stripes than PVs with free space" 5 "Insufficient|stripes" "${C[@]}" -L 20m -i 4 vg1
bad "stripe size 3k" 3 "Invalid stripe size 3.00 KiB" "${C[@]}" -L 20m -i 2 -I 3k vg1
bad "stripe size 2k (below a page)" 3 "Invalid stripe size 2.00 KiB" "${C[@]}" -L 20m -i 2 -I 2k vg1
bad "stripe size 6 sectors" 3 "Invalid stripe size" "${C[@]}" -L 20m -i 2 -I 6s vg1
bad "stripe size without stripes" 3 "stripesize" "${C[@]}" -L 20m -I 64k vg1
bad "zero stripes" 3 "stripes" "${C[@]}" -L 20m -i 0 vg1
bad "name clash" 5 'Logical Volume "lv1" already exists in volume group "vg1"' "${C[@]}" -L 8m -n lv1 vg1
bad "reserved name snapshot" 3 'Names starting "snapshot" are reserved' "${C[@]}" -L 8m -n snapshot vg1
bad "reserved name pvmove0" 3 'Names starting "pvmove" are reserved' "${C[@]}" -L 8m -n pvmove0 vg1
bad "reserved name x_mlog" 3 'Names including "_mlog" are reserved' "${C[@]}" -L 8m -n x_mlog vg1
bad "reserved name x_rimage_0" 3 'Names including "_rimage" are reserved' "${C[@]}" -L 8m -n x_rimage_0 vg1
bad "invalid name" 3 "is invalid" "${C[@]}" -L 8m -n 'a b' vg1
bad "size 16E overflows" 3 "too big" "${C[@]}" -L 16E vg1
bad "99999999999 extents" 5 "too large" "${C[@]}" -l 99999999999 vg1
bad "size zero" 3 "may not be zero" "${C[@]}" -L 0 vg1
bad "negative size" 3 "negative" "${C[@]}" -L -4m vg1
bad "size with a bad unit" 3 "Invalid argument for --size" "${C[@]}" -L 4x vg1
bad "no size" 3 "size or extents" "${C[@]}" -n nosize vg1
bad "%LV for a new LV" 5 "%FREE, %PVS or %VG" "${C[@]}" -l 10%LV vg1
bad "unknown option" 3 "unrecognized option '--foo'" lvcreate -an --foo -L 8m vg1
bad "no VG" 3 "volume group" "${C[@]}" -L 8m
# LVM2 follows the not-found line with its toolkit's "Cannot process volume group nope"
MAX_LINES=2 bad "unknown VG" 5 'Volume group "nope" not found' "${C[@]}" -L 8m nope
bad "PV not in the VG" 5 "not found in Volume Group" "${C[@]}" -L 8m vg1 /dev/null
# activation is off in the sandbox (lvm.conf global/activation = 0): lvcreate without
# -an and lvchange -ay succeed there as LVM2's do (tests/cli/t0651-activation-off.sh)
bad "reduce to zero" 5 "below 1 extent" lvreduce -f -l -2 vg1/lv1
bad "reduce by more than the size" 5 "below 1 extent" lvreduce -f -L -100m vg1/lv1
bad "lvreduce without -f and no answer" 5 "NOT reduced" lvreduce -L -4m vg1/lv1
bad "lvreduce with a plus sign" 3 "lvextend" lvreduce -f -L +4m vg1/lv1
bad "lvextend with a minus sign" 3 "lvreduce" lvextend -L -4m vg1/lv1
bad "lvextend to a smaller size" 5 "not larger than existing size" lvextend -L 4m vg1/lv1
bad "lvresize to the same size" 5 "matches existing size" lvresize -L 8m vg1/lv1
bad "lvreduce of a striped LV by less than a stripe row" 5 "matches existing size" lvreduce -f -l -1 vg1/st
bad "lvextend beyond the free space" 5 "nsufficient" lvextend -L +2g vg1/lv1
bad "lvextend of an unknown LV" 5 'Failed to find logical volume "vg1/nope"' lvextend -L +4m vg1/nope
bad "lvremove of an unknown LV" 5 'Failed to find logical volume "vg1/nope"' lvremove -f vg1/nope
bad "lvrename to an existing name" 5 'already exists' lvrename vg1 lv1 st
bad "lvrename to a reserved name" 3 'reserved' lvrename vg1 lv1 snapshot0
bad "lvrename of an unknown LV" 5 'not found' lvrename vg1 nope other
bad "lvrename across VGs" 3 'same volume group' lvrename vg1/lv1 vg2/lv1
test_ok "lvchange -p r" lvx_a lvchange -p r vg1/lv1
BEFORE=$(sha_devs "${TWIN_A[@]}")
bad "lvchange -p r again" 5 'already read only' lvchange -p r vg1/lv1
bad "lvchange without a change" 3 'No change' lvchange vg1/lv1
bad "lvchange with a bad tag" 3 'Invalid argument for --addtag' lvchange --addtag 'a b' vg1/lv1
test_ok "LVM2 vgck accepts the VG after all that" lvm_a vgck vg1

# ---- zeroing through the LV's mapping
pe_start=$(lvm_a pvs --noheadings --units s --nosuffix -o pe_start "${TWIN_A[3]}" 2>/dev/null | tr -d ' ')
test_ok "fill a PV with a pattern where the next LV goes" \
    "$PYTHON" -c "
import sys
f = open('${TWIN_A[3]}', 'r+b'); f.seek(0, 2); end = f.tell()
start = $pe_start * 512
f.seek(start); f.write(b'\xa5' * (end - start)); f.close()" 
test_ok "lvcreate -an (zeroing by default) on the last PV" \
    lvx_a lvcreate -an -L 8m -n zeroed vg1 "${TWIN_A[3]}:0-1"
test_ok "lvcreate -an -Zn on the last PV" lvx_a lvcreate -an -Zn -L 8m -n kept vg1 "${TWIN_A[3]}:2-3"
count_zero() { # count_zero DEV SECTOR LEN-BYTES -> number of zero bytes
    "$PYTHON" -c "
f = open('$1', 'rb'); f.seek($2 * 512); b = f.read($3); print(b.count(0))"
}
ext=$(lvm_a vgs --noheadings --units s --nosuffix -o vg_extent_size vg1 2>/dev/null | tr -d ' ')
test_eq "the first 4 KiB of the new LV are zero" "$(count_zero "${TWIN_A[3]}" "$pe_start" 4096)" 4096
test_eq "the byte after them is not" "$(count_zero "${TWIN_A[3]}" $((pe_start + 8)) 512)" 0
test_eq "-Z n leaves the start alone" "$(count_zero "${TWIN_A[3]}" $((pe_start + 2 * ext)) 4096)" 0

done_testing
