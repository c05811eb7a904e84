#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0853-shared-vg-locktype: vgchange --locktype none|sanlock (lvmlockd(8) "Changing a
# local VG to a shared VG" and back; issue 19).  Host a runs lvx with sanlock, host c
# LVM2 with lvmlockd (tests/tools/sanlock_host.sh), the sandbox itself has no lvmlockd.
# Checked: a local VG with an LV made shared (lvmlock LV, lock_type/lock_args, the LV's
# lease, lockspace left joined), LVM2 reads it and its vgck passes, lvcreate in it
# gives a lease; back to none (lockspace started: lvmlock LV gone, every lock_args
# cleared, lockspace left) and the plain VG used by lvx and LVM2 without lvmlockd; the
# forced recovery change (--lockopt force) by lvx and by LVM2 gives the same VG; the
# errors with LVM2's exit codes and nothing written.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/sanlock_host.sh
. "$LVX_ROOT/tests/tools/sanlock_host.sh"

host_needs
plan_later

hx() {
    local h=$1
    shift
    mkdir -p -m 0700 "$SCRATCH/host-$h/lvxrun"
    host_run "$h" env LVX_RUN_DIR="$SCRATCH/host-$h/lvxrun" LVX_SANLOCK_IO_TIMEOUT=5 \
        LVX_ACTIVATION_BACKEND=none "$LVX" "$@"
}
trap 'hosts_stop; cleanup' EXIT
mapfile -t D < <(make_loops 2 300M)
((${#D[@]} == 2)) || skip_all "cannot attach loop devices"
lvm_sandbox "${D[@]}"
host_start a 1 || skip_all "no sanlock in a mount namespace"
HAVE_C=0
if command -v lvmlockd >/dev/null && command -v lvm >/dev/null && host_start c 3 lvmlockd; then
    HAVE_C=1
fi

# rc_err CMD...: "rc first-error-line" (warnings and LVM2's lock warnings left out)
rc_err() {
    local rc=0
    "$@" >/dev/null 2>"$SCRATCH/e" </dev/null || rc=$?
    printf '%s %s' "$rc" "$(grep -v 'WARNING: \|Reading VG' "$SCRATCH/e" | head -1 | sed 's/^ *//')"
}
rc_of() {
    local rc=0
    "$@" >/dev/null 2>&1 </dev/null || rc=$?
    echo "$rc"
}
vgf() { hx a vgs --noheadings -o "$1" sv 2>/dev/null | tr -d ' '; }
# state: what both tools should agree on (LVs with -a, lock fields)
state() {
    "$@" lvs -a --noheadings -o lv_name,lv_lock_args,vg_lock_type,vg_lock_args sv 2>/dev/null |
        awk '{$1=$1; print}' | sort
}
joined() { host_run a sanlock client status 2>/dev/null | awk '$1 == "s" {split($2, f, ":"); print f[1]}'; }

test_ok "local VG sv with lv1" "$LVX" vgcreate sv "${D[@]}"
test_ok "lvcreate -an lv1" "$LVX" lvcreate -an -Zn -l4 -n lv1 sv
S0=$(sha_devs "${D[@]}")

# ---- errors, nothing written
# LVM2 2.03.16 prints these refusals but exits 0 (its vgchange_locktype_cmd returns 0):
# lvx exits 5 (README); that LVM2 refuses too is checked by the shas
test_eq "no use_lvmlockd: refused, exit 5" \
    "$(rc_err "$LVX" vgchange --locktype sanlock sv)" \
    "5 Using a shared lock type requires lvmlockd (lvm.conf use_lvmlockd.)"
lvm2 vgchange --locktype sanlock sv >/dev/null 2>&1
test_eq "unknown lock type: LVM2's exit code" "$(rc_err "$LVX" vgchange --locktype foo sv)" \
    "$(rc_of lvm2 vgchange --locktype foo sv) Invalid argument for --locktype: foo"
test_eq "forced to sanlock refused (LVM2's line)" \
    "$(rc_err "$LVX" vgchange --locktype sanlock --lockopt force -y sv)" \
    "5 Lock type can only be forced to \"none\" for recovery."
lvm2 vgchange --locktype sanlock --lockopt force -y sv >/dev/null 2>&1
test_eq "forced, answer n: LVM2's question (on stderr), not changed" \
    "$(echo n | "$LVX" vgchange --locktype none --lockopt force sv 2>&1 >/dev/null | sed 's/^ *//')" \
    "Forcibly change VG lock type to none? [y/n]:   VG lock type not changed."
test_eq "none on a local VG: a warning, exit 0" "$(rc_err hx a vgchange --locktype none sv)" "0 "
test_eq "... LVM2's warning" "$(hx a vgchange --locktype none sv 2>&1 | sed 's/^ *//')" \
    "WARNING: New lock type none matches the current lock type none."
test_eq "nothing written by any of them" "$(sha_devs "${D[@]}")" "$S0"

# ---- local -> sanlock
test_ok "host a: vgchange --locktype sanlock sv" hx a vgchange --locktype sanlock sv
test_eq "vg_lock_type sanlock, vg_lock_args 1.0.0:lvmlock" \
    "$(vgf vg_lock_type) $(vgf vg_lock_args)" "sanlock 1.0.0:lvmlock"
test_eq "the hidden lvmlock LV, 256 MiB" \
    "$(hx a lvs -a --noheadings --units m -o lv_name,lv_size sv/lvmlock 2>/dev/null | awk '{$1=$1; print}')" \
    "[lvmlock] 256.00m"
A1=$(hx a lvs --noheadings -o lv_lock_args sv/lv1 2>/dev/null | tr -d ' ')
test_ok "lv1 got a lease: lock_args 1.0.0:<offset> ($A1)" grep -Eq '^1\.0\.0:[0-9]+$' <<<"$A1"
test_eq "the lockspace stays joined on a" "$(joined)" "lvm_sv"
test_eq "vg_attr has the s" "$(vgf vg_attr | cut -c6)" "s"
test_ok "host a: lvcreate lv2 in the shared VG" hx a lvcreate -an -Zn -l4 -n lv2 sv
test_ok "... lv2 has lock_args too" \
    grep -Eq '^1\.0\.0:[0-9]+$' <<<"$(hx a lvs --noheadings -o lv_lock_args sv/lv2 2>/dev/null | tr -d ' ')"
test_eq "sanlock to dlm: LVM2's refusal, exit 5" "$(rc_err hx a vgchange --locktype dlm sv)" \
    "5 Cannot change lock type directly from \"sanlock\" to \"dlm\"."
if ((HAVE_C)); then
    test_ok "LVM2 (lvmlockd) reads lvx's converted VG: vgck sv" host_run c vgck sv
    test_eq "LVM2 sees the same LVs and lock fields" "$(state host_run c lvm)" "$(state hx a)"
else
    test_skip "LVM2 reads the converted VG" "no lvmlockd or lvm"
    test_skip "LVM2 sees the same fields" "no lvmlockd or lvm"
fi

# ---- sanlock -> none: the lockspace must be started here
test_ok "host a: vgchange --lockstop sv" hx a vgchange --lockstop sv
S1=$(sha_devs "${D[@]}")
test_eq "to none with the lockspace stopped: refused, exit 5 (as LVM2)" \
    "$(rc_err hx a vgchange --locktype none sv)" "5 Cannot access VG sv due to failed lock."
if ((HAVE_C)); then
    host_run c vgchange --locktype none sv >/dev/null 2>&1    # LVM2 refuses (exit 0)
fi
test_eq "... nothing written (by lvx nor LVM2)" "$(sha_devs "${D[@]}")" "$S1"
test_ok "host a: vgchange --lockstart sv" hx a vgchange --lockstart sv
test_ok "host a: vgchange --locktype none sv" hx a vgchange --locktype none sv
test_eq "lock type none (reported blank, as by LVM2), lock_args cleared, lvmlock gone" "$(state hx a)" \
    "$(printf 'lv1\nlv2')"
test_eq "the lockspace left" "$(joined)" ""
test_ok "plain VG: lvx without lvmlockd creates lv3" "$LVX" lvcreate -an -Zn -l4 -n lv3 sv
test_ok "LVM2 without lvmlockd: vgck sv" lvm2 vgck sv
test_eq "LVM2 sees what lvx sees" "$(state lvm2)" "$(state "$LVX")"
test_eq "vg_attr without s" "$("$LVX" vgs --noheadings -o vg_attr sv | tr -d ' ' | cut -c6)" "-"

# ---- forced recovery: lvx and LVM2 leave the same VG
test_ok "host a: back to sanlock (lvx)" hx a vgchange --locktype sanlock sv
test_ok "lvx: --locktype none --lockopt force -y (no lvmlockd)" \
    "$LVX" vgchange --locktype none --lockopt force -y sv
LVX_FORCED=$(state "$LVX")
test_eq "lock fields cleared, the lvmlock LV kept" "$LVX_FORCED" \
    "$(printf '[lvmlock]\nlv1\nlv2\nlv3')"
test_ok "LVM2 vgck of lvx's forced VG" lvm2 vgck sv
hx a vgchange --lockstop sv >/dev/null 2>&1
test_ok "host a: to sanlock again (the stale lvmlock LV replaced)" \
    hx a vgchange --locktype sanlock sv
test_eq "... one lvmlock LV, every LV with lock_args" \
    "$(hx a lvs -a --noheadings -o lv_name,lv_lock_args sv 2>/dev/null | awk '$2 == "" || $1 == "[lvmlock]"' | wc -l)" "1"
hx a vgchange --lockstop sv >/dev/null 2>&1
test_ok "LVM2: --locktype none --lockopt force -y" lvm2 vgchange --locktype none --lockopt force -y sv
test_eq "LVM2's forced VG equals lvx's" "$(state "$LVX")" "$LVX_FORCED"

test_ok "vgremove sv" "$LVX" vgremove -f sv
done_testing
