#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0610-layout-parity: a script of LV steps (create linear/striped with various sizes,
# stripe counts and sizes, PV lists with ranges and policies; extend; reduce; remove;
# rename) run on twin VGs (tests/tools/lv_twin.sh): side A by lvx, side B by LVM2
# (`lvm lvcreate -an -Zn ...`).  After every step:
#   * both sides give the same exit status;
#   * lvx's VG passes LVM2's vgck and LVM2 reads it;
#   * the layouts are compared by LVM2's own `lvs -a --segments -o lv_name,seg_start_pe,
#     seg_pe_ranges,stripes,stripe_size --reportformat json` and `pvs --segments`;
#     a step that differs must still give every LV the same size as LVM2 and obey the
#     placement rules (tests/tools/lv_policy_check.py).
# Prints how many steps matched exactly and lists the others; after a differing step
# LVM2's twin is rewritten from lvx's metadata (vgcfgrestore) so every step is compared
# from the same starting layout.  At the end LVM2 extends,
# reduces and removes lvx's LVs and lvx does the same to LVM2's.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

need_loop
need_cmd lvm "$PYTHON"
need_lvx
plan_later

CHECK="$LVX_ROOT/tests/tools/lv_policy_check.py"
twin_setup 4 1G vg1 || { _tap_result 1 "set up twin VGs"; done_testing; }
test_ok "twin VGs start equal" twin_same

STEPS=0
MATCHED=0
DIFFERENT=()

sizes() { "lvm_$1" lvs --noheadings --units s -o lv_name,lv_size vg1 2>/dev/null; }

policy_ok() {
    lvm_a lvs -a --segments --reportformat json \
        -o lv_name,seg_start_pe,seg_pe_ranges,stripes,lv_allocation_policy vg1 2>/dev/null |
        "$PYTHON" "$CHECK"
}

# step ARGS...: the same command on both sides ("%N" = device N of the side).
step() {
    local args_a args_b rc_a=0 rc_b=0 desc="$*"
    mapfile -d '' args_a < <(twin_args a "$@")
    mapfile -d '' args_b < <(twin_args b "$@")
    STEPS=$((STEPS + 1))
    lvx_a "${args_a[@]}" >"$SCRATCH/a.out" 2>"$SCRATCH/a.err" </dev/null || rc_a=$?
    lvm_b "${args_b[@]}" >"$SCRATCH/b.out" 2>"$SCRATCH/b.err" </dev/null || rc_b=$?
    if sanitizer_report "$SCRATCH/a.err"; then
        _tap_result 1 "step $STEPS: lvx $desc: no sanitizer report"
        _diag_file stderr "$SCRATCH/a.err"
    fi
    if ! test_eq "step $STEPS: $desc: same exit status as LVM2" "$rc_a" "$rc_b"; then
        _diag_file "lvx stderr" "$SCRATCH/a.err"
        _diag_file "LVM2 stderr" "$SCRATCH/b.err"
    fi
    test_ok "step $STEPS: LVM2 vgck accepts lvx's VG" lvm_a vgck vg1
    test_ok "step $STEPS: LVM2 reads lvx's VG" lvm_a vgs vg1
    if twin_same; then
        MATCHED=$((MATCHED + 1))
        return
    fi
    DIFFERENT+=("$STEPS: $desc")
    diag "step $STEPS differs from LVM2: $desc" "$(twin_diff)"
    test_eq "step $STEPS: every LV has LVM2's size" "$(sizes a)" "$(sizes b)"
    test_ok "step $STEPS: placement obeys the policies" policy_ok
    # start the next step from the same layout on both sides
    test_ok "step $STEPS: re-synchronize LVM2's twin from lvx's metadata" twin_resync
    test_ok "step $STEPS: twins equal again" twin_same
}

C=(lvcreate -an -Zn)
step "${C[@]}" -L 8m -n a vg1
step "${C[@]}" -L 12m -n b -i 2 vg1
step "${C[@]}" -l 10 -n c vg1
step lvextend -L +8m vg1/a
step "${C[@]}" -L 100m -n d -i 3 -I 128k vg1
step lvextend -l +5 vg1/c
step lvreduce -f -L -4m vg1/a
step "${C[@]}" -L 40m -n e vg1 %1
step "${C[@]}" -L 40m -n f vg1 %2:100-199
step lvextend -L +20m vg1/e %3
step "${C[@]}" -L 16m -n g --alloc contiguous vg1
step lvextend -L +16m vg1/g
step "${C[@]}" -L 16m -n h --alloc cling vg1
step lvextend -L +64m vg1/h
step "${C[@]}" -L 16m -n i --alloc anywhere vg1
step lvremove -f vg1/b
step "${C[@]}" -L 20m -n j vg1
step lvrename vg1 j jj
step lvrename vg1/jj vg1/j2
step lvresize -f -L 40m vg1/c
step lvresize -f -L 8m vg1/c
step lvextend -i 2 -L +16m vg1/a
step lvreduce -f -l -1 vg1/a
step "${C[@]}" -l 5%VG -n k vg1
step "${C[@]}" -l 10%FREE -n l -i 2 vg1
step lvextend -l +50%LV vg1/k
step "${C[@]}" -L 4m -n m -C y vg1
step "${C[@]}" -L 1g -n big -i 4 -I 64k vg1
step lvreduce -f -L 500m vg1/big
step lvremove -f vg1/d vg1/e
step "${C[@]}" -L 300m -n n -i 2 vg1 %0 %1
step lvextend -L +100m vg1/n %2 %3
step "${C[@]}" -L 64m -n o vg1 %3:0-9 %3:200-
step lvremove -f vg1/a
step "${C[@]}" -l 30 -n p -i 3 -I 4k vg1
step lvextend -l +30 vg1/p
step lvreduce -f -l 15 vg1/p
step lvchange -p r vg1/p
step "${C[@]}" -L 12m -n q --alloc cling vg1 %1
step lvextend -L +1g vg1/q
step lvremove -f vg1/c vg1/g
step "${C[@]}" -L 8m vg1
step "${C[@]}" -L 8m -i 2 vg1
step "${C[@]}" -l 100%FREE -n rest -i 2 vg1
step lvremove -f vg1/rest
step "${C[@]}" -l 50%FREE -n half vg1 %0 %1
step lvextend -l +100%FREE vg1/half
step lvremove -f vg1/big vg1/o

diag "steps matching LVM2 exactly: $MATCHED of $STEPS"
for d in "${DIFFERENT[@]}"; do diag "differs: $d"; done
test_ok "at least 40 steps ran" test "$STEPS" -ge 40

# ---- interoperation: LVM2 changes lvx's LVs, lvx changes LVM2's
test_ok "LVM2 extends an LV made by lvx" lvm_a lvextend -L +8m vg1/half
test_ok "LVM2 reduces an LV made by lvx" lvm_a lvreduce -f -L -4m vg1/half
test_ok "LVM2 removes an LV made by lvx" lvm_a lvremove -f vg1/half
test_ok "lvx extends an LV made by LVM2" lvx_b lvextend -L +8m vg1/half
test_ok "lvx reduces an LV made by LVM2" lvx_b lvreduce -f -L -4m vg1/half
test_ok "lvx removes an LV made by LVM2" lvx_b lvremove -f vg1/half
test_ok "LVM2 vgck accepts the VG lvx changed" lvm_b vgck vg1
test_ok "LVM2 creates an LV after lvx's changes" lvm_a lvcreate -an -Zn -L 8m -n back vg1
test_ok "lvx removes everything" lvx_a lvremove -f vg1
test_eq "nothing left in lvx's VG" "$(lvm_a vgs --noheadings -o lv_count vg1 2>/dev/null | tr -d ' ')" "0"

done_testing
