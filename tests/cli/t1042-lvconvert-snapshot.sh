#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1042-lvconvert-snapshot: lvconvert --splitsnapshot VG/SNAP (a COW snapshot becomes a
# plain LV) and lvconvert -s|--type snapshot VG/ORIGIN VG/LV (the reverse), on the host
# (the kernel side is t0764):
#   - every refusal of LVM2's lvconvert-snapshot.sh and lvconvert-snapshot-thin.sh
#     prints LVM2's lines with LVM2's exit code, run by both tools on the same
#     metadata, and writes nothing (seqno);
#   - the metadata each form writes equals LVM2's (LVM2 converts with -Zn here: it
#     cannot zero without device-mapper);
#   - in the user-space backend, active: the converted LV is a snapshot that keeps the
#     origin's old data; --splitsnapshot leaves it active as a plain LV with the
#     exception store's bytes; an open COW is refused ("in use"), nothing written.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

lvm2_pair_begin 64M
VG=vgcs$$
mkdir -p "$SCRATCH/dev"
seqno() { lvm2 vgs --noheadings -o vg_seqno "$1" 2>/dev/null | tr -d ' '; }
quiet() { grep -v "Activation disabled\|NOT backed up\|for more information" "$@"; }
meta() {  # meta TOOL VG: the LV section of the metadata, ids and times left out
    rm -f "$SCRATCH/m.vg"
    "$1" vgcfgbackup -f "$SCRATCH/m.vg" "$2" >/dev/null 2>&1
    sed -n '/logical_volumes {/,$p' "$SCRATCH/m.vg" | grep -vE '^\s*(id|creation_time|creation_host) = '
}
same_refusal() {  # same_refusal DESC ARGS...: both refuse with the same lines and code, no write
    local s0 desc=$1
    shift
    s0=$(seqno "$VG")
    both "$@"
    test_eq "$desc: lvx's lines and exit code equal LVM2's; nothing written" \
        "$(cat "$SCRATCH/x.rc") $(quiet "$SCRATCH/x.err") $(seqno "$VG")" \
        "$(cat "$SCRATCH/l.rc") $(quiet "$SCRATCH/l.err") $s0" || diag "lvx: $(cat "$SCRATCH/x.err")"
}

test_ok "$VG (4 KiB extents): lv1 sparse snapshot, lv2 with snapshot lv3, lv4 (1 extent), lv5, lv6, a thin pool with th, cow" sh -c "
    $LVX vgcreate -q -s 4k $VG $D1 $D2 >/dev/null &&
    $LVX lvcreate -q --type snapshot -V50 -L1 -n lv1 -s $VG &&
    $LVX lvcreate -q -an -Zn -L1 -n lv2 $VG && $LVX lvcreate -q -an -L1 -s -n lv3 $VG/lv2 &&
    $LVX lvcreate -q -an -Zn -l1 -n lv4 $VG && $LVX lvcreate -q -an -Zn -L1 -n lv5 $VG &&
    $LVX lvcreate -q -an -Zn -L1 -n lv6 $VG && $LVX lvcreate -q -an -Zn -L1 -n cow $VG &&
    DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user $LVX lvcreate -q -T -L1 -V10 -n th $VG/pool --config 'global { activation = 1 }' &&
    DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user $LVX vgchange -q -an $VG --config 'global { activation = 1 }'" 2>/dev/null

# lvconvert-snapshot.sh's refusals (lines 36-57)
for a in "lv1 not_exist" "lv1 lv2" "lv2 lv1" "lv5 lv1" "lv5 lv3" "lv1 lv1" "lv2 lv2" \
         "lv1 lv3" "lv2 lv3" "lv1 lv4" "lv2 lv4"; do
    set -- $a
    same_refusal "lvconvert -s $1 $2" lvconvert -y -s "$VG/$1" "$VG/$2"
done
same_refusal "lvconvert -s -c 3k" lvconvert -y -s -c 3k "$VG/lv2" "$VG/lv5"
same_refusal "lvconvert -s -c 1m" lvconvert -y -s -c 1m "$VG/lv2" "$VG/lv5"
# lvconvert-snapshot-thin.sh's (lines 43-68)
for a in "cow th" "cow pool" "cow lvol0_pmspare" "cow pool_tdata" "cow pool_tmeta" \
         "pool cow" "lvol0_pmspare cow" "pool_tdata cow" "pool_tmeta cow"; do
    set -- $a
    same_refusal "lvconvert --type snapshot $1 $2" lvconvert -y --type snapshot "$VG/$1" "$VG/$2"
done
same_refusal "lvconvert --splitsnapshot of a plain LV" lvconvert --splitsnapshot "$VG/lv6"
same_refusal "lvconvert --splitsnapshot of an origin" lvconvert --splitsnapshot "$VG/lv2"
# LVM2 cannot make the sparse snapshot without device-mapper: lvx's line alone
s0=$(seqno "$VG")
rc=0; out=$(lvx lvconvert -y --splitsnapshot "$VG/lv1" 2>&1) || rc=$?
test_eq "lvconvert --splitsnapshot of a sparse snapshot: LVM2's line, exit 5, nothing written" \
    "$rc $out $(seqno "$VG")" "5   Unable to split off snapshot $VG/lv1 with virtual origin. $s0"
s0=$(seqno "$VG")
both lvconvert -s "$VG/lv2" "$VG/lv5" </dev/null
test_eq "no answer to the question: 'Conversion aborted.', exit 5 as LVM2, nothing written" \
    "$(cat "$SCRATCH/x.rc") $(grep -c 'Conversion aborted.' "$SCRATCH/x.err") $(seqno "$VG")" \
    "$(cat "$SCRATCH/l.rc") $(grep -c 'Conversion aborted.' "$SCRATCH/l.err") $s0"

# the metadata written: LVM2 first (-Zn), then lvx on the same VG state
for form in "-s" "--type snapshot -c 16k" "--snapshot -c 256k"; do
    lvm2 lvconvert -y -Zn $form "$VG/lv2" "$VG/lv5" >"$SCRATCH/l.out" 2>"$SCRATCH/l.err"
    m_lvm=$(meta lvm2 "$VG")
    lvm2 lvconvert -y --splitsnapshot "$VG/lv5" >/dev/null 2>&1
    s_lvm=$(meta lvm2 "$VG")
    rc=0; lvx lvconvert -y -Zn $form "$VG/lv2" "$VG/lv5" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err" || rc=$?
    test_eq "lvconvert -y -Zn $form lv2 lv5: lvx's lines and metadata equal LVM2's" \
        "$rc $(quiet "$SCRATCH/x.err") $(cat "$SCRATCH/x.out") $(meta lvm2 "$VG")" \
        "0 $(quiet "$SCRATCH/l.err") $(cat "$SCRATCH/l.out") $m_lvm" ||
        diag "$(diff <(meta lvm2 "$VG") <(echo "$m_lvm"))"
    rc=0; lvx lvconvert -y --splitsnapshot "$VG/lv5" >"$SCRATCH/x.out" 2>&1 || rc=$?
    test_eq "... lvconvert --splitsnapshot lv5: exit 0, LVM2's line, metadata equal LVM2's" \
        "$rc $(quiet "$SCRATCH/x.out") $(meta lvm2 "$VG")" \
        "0   Logical Volume $VG/lv5 split from its origin. $s_lvm" ||
        diag "$(diff <(meta lvm2 "$VG") <(echo "$s_lvm"))"
done
rc=0; lvx lvconvert -q -y -Zn -s "$VG/th" "$VG/cow" >/dev/null 2>&1 || rc=$?
test_eq "lvconvert -y -Zn -s th cow (a thin origin): LVM2 reads cow as 's' linear, th 'o' thin" \
    "$rc $(lvm2 lvs --noheadings -o lv_attr,segtype "$VG/cow" "$VG/th" 2>/dev/null | cut -c3,13- | xargs)" \
    "0 s linear o thin"
lvx vgremove -q -ff "$VG" >/dev/null 2>&1

# ---- user-space backend, active ----
[[ -e /dev/fuse ]] || { done_testing; exit 0; }
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user lvx "$@" --config 'global { activation = 1 }'; }
dev() { readlink -f "$SCRATCH/dev/$VG/$1"; }
sum() { head -c 4194304 "$(dev "$1")" | md5sum | cut -d' ' -f1; }
head -c 4194304 /dev/urandom >"$SCRATCH/A"
head -c 4194304 /dev/urandom >"$SCRATCH/B"
A=$(md5sum <"$SCRATCH/A" | cut -d' ' -f1) B=$(md5sum <"$SCRATCH/B" | cut -d' ' -f1)
test_ok "$VG again; org and spare (4 MiB each) active in the user backend, A on org, B on spare" sh -c "
    $LVX vgcreate -q $VG $D1 $D2 >/dev/null &&
    DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user $LVX lvcreate -q -Zn -L 4m -n org $VG --config 'global { activation = 1 }' &&
    DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user $LVX lvcreate -q -Zn -L 4m -n spare $VG --config 'global { activation = 1 }' &&
    dd if=$SCRATCH/A of=\$(readlink -f $SCRATCH/dev/$VG/org) bs=1M oflag=direct conv=fsync status=none &&
    dd if=$SCRATCH/B of=\$(readlink -f $SCRATCH/dev/$VG/spare) bs=1M oflag=direct conv=fsync status=none" 2>/dev/null
python3 -c 'import os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); print("held", flush=True); time.sleep(60)' \
    "$(dev spare)" >"$SCRATCH/held" 2>&1 &
holder=$!
for _ in $(seq 1 100); do grep -q held "$SCRATCH/held" && break; sleep 0.05; done
s0=$(seqno "$VG")
rc=0; out=$(U lvconvert -y -s "$VG/org" "$VG/spare" 2>&1) || rc=$?
test_eq "lvconvert -s of spare while a process holds it open: exit 5, 'in use', nothing written, spare still B" \
    "$rc $(grep -c "in use" <<<"$out") $(seqno "$VG") $(sum spare)" "5 1 $s0 $B" || diag "$out"
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
rc=0; out=$(U lvconvert -y -s "$VG/org" "$VG/spare" 2>&1) || rc=$?
test_eq "lvconvert -y -s org spare (both active): exit 0, LVM2's line" \
    "$rc $(grep -c "Logical volume $VG/spare converted to snapshot." <<<"$out")" "0 1" || diag "$out"
test_eq "spare is an active snapshot of org that reads A" \
    "$(U lvs --noheadings -o lv_attr,origin "$VG/spare" 2>/dev/null | xargs) $(sum spare)" "swi-a-s--- org $A"
# 1 MiB of B over org (a COW of the origin's size cannot take every chunk: it would
# fill and be invalidated, as the kernel's)
test_ok "1 MiB of B written over org" dd if="$SCRATCH/B" of="$(dev org)" bs=1M count=1 oflag=direct conv=fsync status=none
{ head -c 1048576 "$SCRATCH/B"; tail -c +1048577 "$SCRATCH/A"; } >"$SCRATCH/BA"
BA=$(md5sum <"$SCRATCH/BA" | cut -d' ' -f1)
test_eq "org reads B's first MiB then A, the snapshot still A" "$(sum org) $(sum spare)" "$BA $A"
U lvchange -an "$VG" >/dev/null 2>&1
cow_before=$(lvx lvs --noheadings -o seg_pe_ranges "$VG/spare" 2>/dev/null | xargs)
test_ok "the VG deactivated and activated again" U lvchange -ay "$VG"
test_eq "after reactivation: the same" "$(sum org) $(sum spare)" "$BA $A"
store=$(readlink -f "$SCRATCH/dev/$VG/spare")
rc=0; out=$(U lvconvert -y --splitsnapshot "$VG/spare" 2>&1) || rc=$?
test_eq "lvconvert -y --splitsnapshot spare (active): exit 0, LVM2's line" \
    "$rc $(grep -c "Logical Volume $VG/spare split from its origin." <<<"$out")" "0 1" || diag "$out"
test_eq "spare is a plain active LV on the same extents; org active, reads B" \
    "$(U lvs --noheadings -o lv_attr,origin "$VG/spare" 2>/dev/null | xargs) $(lvx lvs --noheadings -o seg_pe_ranges "$VG/spare" 2>/dev/null | xargs) $(sum org)" \
    "-wi-a----- $cow_before $BA"
# the exception store: the kernel's header "SnAp" in its first sector
test_eq "the split LV holds the exception store (persistent header 'SnAp' at byte 0)" \
    "$(head -c 4 "$(dev spare)" | od -An -c | tr -d ' ')" "SnAp"
: "$store"
lvx lvremove -q -y "$VG/spare" >/dev/null 2>&1 || U lvremove -q -y "$VG/spare" >/dev/null 2>&1
test_eq "the VG has org alone, LVM2 agrees" "$(lvm2 lvs --noheadings -o lv_name "$VG" 2>/dev/null | xargs)" "org"
U vgchange -an "$VG" >/dev/null 2>&1
lvm2 vgremove -q -ff "$VG" >/dev/null 2>&1
done_testing
