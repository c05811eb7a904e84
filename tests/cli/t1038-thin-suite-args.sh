#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1038-thin-suite-args: command-line answers LVM2's own suite (test/shell, run in the
# guest) found different, checked here against LVM2 on the same devices:
#   - lvcreate --poolmetadatasize 0: "--poolmetadatasize may not be zero." and the
#     help line, exit 3, nothing written (lvx made the pool; lvcreate-thin-big.sh:33);
#   - -l N%P, %PV, %V, %F, %FR: LVM2's short forms of %PVS, %VG, %FREE (lvx: "Specified
#     %PV is unknown.", exit 3; lvcreate-thin-limits.sh:38): the same LV sizes;
#   - lvconvert with a pool's option and no pool type (--poolmetadatasize 1G of a linear
#     LV): "No command with matching syntax recognised.", exit 3 (lvx: "does not accept
#     LV type linear", exit 5; lvconvert-thin.sh:51);
#   - lvcreate -l1 -V2G -T VG (no names, user backend, twice): the pool lvol0 and the
#     thin LV lvol1, then lvol2/lvol3 (lvx named both lvol0 and refused its own
#     metadata: "duplicate logical volume name lvol0"; lvcreate-thin.sh:97); --type thin
#     with -l/-L makes its pool too (lvx asked for a pool name; lvcreate-thin.sh:98);
#   - lvresize -L+2M of POOL_tmeta grows the pool's metadata (and the spare), as
#     --poolmetadatasize +2M does (lvx: "used by POOL (tmeta)"; thin-flags.sh:113);
#   - lvconvert --thinpool --readahead N sets the pool's read-ahead (lvx: unknown option;
#     lvconvert-thin.sh:75); allocation/thin_pool_metadata_require_separate_pvs keeps
#     _tmeta off _tdata's PVs, failing when there is no other (lvcreate-thin.sh:207);
#   - lvresize --poolmetadatasize beyond what the spare can follow: the metadata grows,
#     the spare stays, LVM2's "Insufficient free space" line (lvx refused it all);
#   - vgchange/lvchange --sysinit (lvx: unrecognized option);
#   - LVM2's refusals of --minor for a pool alone, of an ambiguous -T --readahead and of
#     --readahead/--stripes with --poolmetadata (lvx went on); lvconvert --swapmetadata.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
lvm2_pair_begin 200M
VG=vgtsa$$
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
quiet() { sandbox_noise | grep -v -e 'not zeroed' -e 'without activation support' \
    -e 'without initialization'; }
same_lines() {  # same_lines DESC ARGS...: lvx's and LVM2's exit code and lines equal
    local desc=$1
    shift
    both "$@"
    test_eq "$desc: lvx's exit code and lines are LVM2's" \
        "$(cat "$SCRATCH/x.rc") $(cat "$SCRATCH/x.out" "$SCRATCH/x.err" | quiet)" \
        "$(cat "$SCRATCH/l.rc") $(cat "$SCRATCH/l.out" "$SCRATCH/l.err" | quiet)"
}
test_ok "LVM2: $VG on D1, D2" lvm2 vgcreate -q "$VG" "$D1" "$D2"

s0=$(seqno)
same_lines "lvcreate -L4M --chunksize 128 --poolmetadatasize 0 -T" \
    lvcreate -an -L4M --chunksize 128 --poolmetadatasize 0 -T "$VG/pool1"
test_eq "... exit 3" "$(cat "$SCRATCH/x.rc")" 3
test_eq "... nothing written (seqno $s0)" "$(seqno)" "$s0"

test_ok "LVM2: 20 MiB used on D1" lvm2 lvcreate -q -an -Zn -L 20m -n used "$VG" "$D1"
for pct in P PV V F FR; do      # each tool's LV made alone, then removed
    lvx lvcreate -q -an -Zn -l "10%$pct" -n t "$VG" "$D1" >"$SCRATCH/x.out" 2>&1
    test_eq "lvx lvcreate -l 10%$pct $VG D1: exit 0" "$?" 0 || diag "$(cat "$SCRATCH/x.out")"
    xs=$(lvm2 lvs --noheadings -o lv_size,devices "$VG/t" 2>/dev/null | xargs)
    lvm2 lvremove -q -f "$VG/t" >/dev/null 2>&1
    lvm2 lvcreate -q -an -Zn -l "10%$pct" -n t "$VG" "$D1" >/dev/null 2>&1
    test_eq "... the size and place LVM2 gives" "$xs" \
        "$(lvm2 lvs --noheadings -o lv_size,devices "$VG/t" 2>/dev/null | xargs)"
    lvm2 lvremove -q -f "$VG/t" >/dev/null 2>&1
done
rc=0
out=$(lvx lvcreate -an -Zn -l 10%VGS -n bad "$VG" 2>&1) || rc=$?
test_eq "lvcreate -l 10%VGS (LVM2 has no such form): exit 3, LVM2's reason" \
    "$rc $(grep -c 'Specified %VGS is unknown.' <<<"$out")" "3 1"
lvm2 lvremove -q -ff "$VG" >/dev/null 2>&1

same_lines "lvcreate --minor with a pool only (lvcreate-thin.sh:221)" \
    lvcreate -an -L10M --minor 100 -T "$VG/pool_minor"
same_lines "lvcreate -T --readahead with -V and a new pool (lvcreate-thin.sh:224)" \
    lvcreate -an -L4M -Mn -m0 -T --readahead 32 -V20 -n lv "$VG/pool_normal"
same_lines "lvconvert --thinpool --poolmetadata --readahead (lvconvert-thin.sh:71)" \
    lvconvert --thinpool "$VG/lv1" --poolmetadata "$VG/lv2" --readahead 512
same_lines "vgchange -ay --sysinit (lvx: unknown option; thin-vglock.sh:48)" vgchange -ay --sysinit "$VG"
same_lines "vgchange -ay --sysinit --monitor y (LVM2's refusal)" vgchange -ay --sysinit --monitor y "$VG"
same_lines "lvchange -an --sysinit of a VG's LVs" lvchange -an --sysinit "$VG"

test_ok "LVM2: linear lv1" lvm2 lvcreate -q -an -Zn -L 8m -n lv1 "$VG"
s0=$(seqno)
same_lines "lvconvert --yes --poolmetadatasize 1G of linear lv1" \
    lvconvert --yes --poolmetadatasize 1G "$VG/lv1"
test_eq "... exit 3, nothing written" "$(cat "$SCRATCH/x.rc") $(seqno)" "3 $s0"
same_lines "lvconvert of linear lv1 with no option (a RAID/mirror form)" lvconvert "$VG/lv1"
test_ok "lvx lvconvert --yes --thinpool $VG/lv1 --readahead 48" lvx lvconvert -q --yes --thinpool "$VG/lv1" --readahead 48
test_eq "... the pool's read-ahead 48 sectors (LVM2 reads it)" \
    "$(lvm2 lvs --noheadings --units s -o lv_read_ahead "$VG/lv1" 2>/dev/null | xargs)" "48S"
rc=0
out=$(lvx lvconvert -m1 --readahead 48 "$VG/lv1" 2>&1) || rc=$?
test_eq "lvconvert -m1 --readahead: exit 3 (a pool conversion's option only)" "$rc" 3
lvm2 lvremove -q -ff "$VG" >/dev/null 2>&1

mkdir -p "$SCRATCH/dev"
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user lvx "$@" --config 'global { activation = 1 }'; }
test_ok "user backend: lvcreate -l1 -V2G -T $VG (no names)" U lvcreate -q -l1 -V2G -T "$VG"
test_ok "... again" U lvcreate -q -l1 -V2G -T "$VG"
test_eq "pools lvol0 and lvol2, their thin LVs lvol1 and lvol3 (LVM2's names)" \
    "$(lvm2 lvs --noheadings -o lv_name,pool_lv "$VG" 2>/dev/null | xargs)" \
    "lvol0 lvol1 lvol0 lvol2 lvol3 lvol2"
test_ok "user backend: lvcreate -l1 -V2G --type thin $VG (a pool made for it, as LVM2)" \
    U lvcreate -q -l1 -V2G --type thin "$VG"
test_ok "... -L4M -V2G --name lvo4 --type thin $VG/pool4" U lvcreate -q -L4M -V2G --name lvo4 --type thin "$VG/pool4"
test_eq "... pool lvol4 with lvol5, pool4 with lvo4" \
    "$(lvm2 lvs --noheadings -o lv_name,pool_lv "$VG/lvol5" "$VG/lvo4" 2>/dev/null | xargs)" \
    "lvo4 pool4 lvol5 lvol4"
test_ok "lvresize -L+2M of pool4_tmeta (LVM2: the pool's metadata grows)" \
    U lvresize -L+2M "$VG/pool4_tmeta"
test_eq "... pool4_tmeta 8 MiB (4 MiB extents: +2M rounded to one), the spare as large" \
    "$(lvm2 lvs --noheadings --units m -o lv_size "$VG/pool4_tmeta" "$VG/lvol0_pmspare" 2>/dev/null | xargs)" \
    "8.00m 8.00m"
test_ok "LVM2's vgck" lvm2 vgck "$VG"
test_ok "deactivated" U vgchange -an "$VG"

test_ok "a zero-type LV (3 GiB) converted to a thin pool (lvx refused its type; lvcreate-thin-big.sh:45)" \
    sh -c "$LVX lvcreate -q -an --type zero -L3G -n z $VG && $LVX lvconvert -q -y --thinpool $VG/z"
test_eq "... LVM2 reads z a thin pool over a zero _tdata" \
    "$(lvm2 lvs -a --noheadings -o segtype "$VG/z" "$VG/z_tdata" 2>/dev/null | xargs)" "thin-pool zero"

test_ok "inactive pool mp (8 MiB, 4 MiB metadata)" lvx lvcreate -q -an -T -L8m --poolmetadatasize 4m "$VG/mp"
sp0=$(lvm2 lvs --noheadings --units m -o lv_size "$VG/lvol0_pmspare" 2>/dev/null | xargs)
free=$(lvm2 vgs --noheadings -o vg_free_count "$VG" 2>/dev/null | xargs)
grow=$(( (free / 2 + 10) * 4 ))   # MiB: more than half the free space, the spare can't follow
rc=0
out=$(lvx lvresize --poolmetadatasize "+${grow}m" "$VG/mp" 2>&1) || rc=$?
test_eq "lvresize --poolmetadatasize +${grow}m: exit 0, the metadata grown, LVM2's line for the spare" \
    "$rc $(lvm2 lvs --noheadings --units m -o lv_size "$VG/mp_tmeta" 2>/dev/null | xargs) $(grep -Ec "^  Insufficient free space: [0-9]+ extents needed, but only [0-9]+ available$" <<<"$out")" \
    "0 $((grow + 4)).00m 1" || diag "$out"
test_eq "... the spare kept its size (lvx refused the whole resize; lvresize-thin-metadata.sh:40)" \
    "$(lvm2 lvs --noheadings --units m -o lv_size "$VG/lvol0_pmspare" 2>/dev/null | xargs)" "$sp0"
lvx lvremove -q -f "$VG/mp" >/dev/null 2>&1

test_ok "inactive pool sw and linear lv2" sh -c \
    "$LVX lvcreate -q -an -T -L8m $VG/sw && $LVX lvcreate -q -an -Zn -L4m -n lv2 $VG"
u_meta=$(lvm2 lvs --noheadings -o uuid "$VG/sw_tmeta" 2>/dev/null | xargs)
u_lv2=$(lvm2 lvs --noheadings -o uuid "$VG/lv2" 2>/dev/null | xargs)
test_ok "lvconvert --yes --swapmetadata $VG/sw --poolmetadata lv2 (lvx: unknown option; lvconvert-thin.sh:94)" \
    lvx lvconvert -q --yes --swapmetadata "$VG/sw" --poolmetadata lv2
test_eq "... the LVs swapped, as LVM2: sw_tmeta has lv2's UUID, lv2 the old metadata's" \
    "$(lvm2 lvs --noheadings -o uuid "$VG/sw_tmeta" 2>/dev/null | xargs) $(lvm2 lvs --noheadings -o uuid "$VG/lv2" 2>/dev/null | xargs)" \
    "$u_lv2 $u_meta"
rc=0
lvx lvconvert --yes --swapmetadata "$VG/sw" >/dev/null 2>&1 || rc=$?
test_eq "--swapmetadata without --poolmetadata: exit 3 (LVM2's no matching syntax)" "$rc" 3
lvx lvremove -q -f "$VG/sw" "$VG/lv2" >/dev/null 2>&1

SEP=(--config 'allocation/thin_pool_metadata_require_separate_pvs=1')
rc=0
out=$(lvx lvcreate -an -L8m -T --poolmetadataspare n "${SEP[@]}" "$VG/sp1" "$D1" 2>&1) || rc=$?
test_eq "thin_pool_metadata_require_separate_pvs=1, one PV named: refused, exit 5 (lvx put both on it)" \
    "$rc $(grep -c 'Insufficient suitable allocatable extents' <<<"$out")" "5 1" || diag "$out"
test_ok "... with both PVs: made" lvx lvcreate -q -an -L8m -T --poolmetadataspare n "${SEP[@]}" "$VG/sp2" "$D1" "$D2"
test_eq "... sp2_tdata on D1, sp2_tmeta on D2" \
    "$(lvm2 lvs -a --noheadings -o devices "$VG/sp2_tdata" "$VG/sp2_tmeta" 2>/dev/null | sed 's/(.*//' | xargs)" "$D1 $D2"
lvm2 vgremove -q -ff "$VG" >/dev/null 2>&1
done_testing
