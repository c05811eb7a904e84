#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0931-seam-owner: the I/O seam's test wrapper (LVX_TEST_FAIL_WRITE, LVX_TEST_IO_LOG,
# LVX_TEST_DP_FAULT; dev/io.h) is installed by the lvx program, never by the library:
#   - `lvx pvcreate` with LVX_TEST_FAIL_WRITE=1 fails (the first write gets EIO) and
#     writes no label; the IO log names the failed write;
#   - `lvx shell` commands get the wrapper too (pvremove fails the same way);
#   - a program linked with liblvx.a running lvx_run("pvcreate ...") in the same
#     environment is not affected: the PV is made (LVM2 sees it), the IO log stays empty;
#   - a malformed LVX_TEST_DP_FAULT stops the lvx program (exit 3) but not the library.
source "$(dirname "$0")/../lib.sh"

need_loop
need_lvx
need_cmd lvm cc
BUILD_DIR=$(dirname "$LVX_PLAIN")
[[ -f $BUILD_DIR/liblvx.a ]] || skip_all "$BUILD_DIR/liblvx.a not built"

DEV=$(make_loop 16M)
lvm_sandbox "$DEV"
export LVM_SYSTEM_DIR=$SCRATCH/lvm

cat >"$SCRATCH/run.c" <<'C'
#include <stdio.h>
#include "lvx.h"
int main(int argc, char **argv)
{
    lvx_handle *h = lvx_init();
    int rc = lvx_run(h, argv[1]);
    if (rc != LVX_ECMD_PROCESSED)
        fprintf(stderr, "lvx_run: %d %s\n", rc, lvx_errmsg(h));
    lvx_exit(h);
    return rc == LVX_ECMD_PROCESSED ? 0 : 1;
}
C
test_ok "a liblvx program builds" cc -o "$SCRATCH/run" -I"$LVX_ROOT/include" "$SCRATCH/run.c" \
    "$BUILD_DIR/liblvx.a" -luring -lblkid -lz -lpthread

has_label() { lvm2 pvs --noheadings -o pv_name "$DEV" 2>/dev/null | grep -q "$DEV"; }

LVX_TEST_FAIL_WRITE=1 LVX_TEST_IO_LOG=$SCRATCH/prog.log lvx pvcreate "$DEV" >"$SCRATCH/out" 2>&1
test_eq "lvx pvcreate with LVX_TEST_FAIL_WRITE=1 fails" "$?" 5
test_ok "... writing no label" sh -c "! lvm --config 'devices { global_filter = [ \"a|^$DEV\$|\", \"r|.*|\" ] }' pvs --noheadings -o pv_name 2>/dev/null | grep -q '$DEV'"
test_ok "... the IO log shows the failed write" grep -q "^failwrite .* $DEV\$" "$SCRATCH/prog.log"

LVX_TEST_FAIL_WRITE=1 LVX_TEST_IO_LOG=$SCRATCH/lib.log "$SCRATCH/run" "pvcreate $DEV" >"$SCRATCH/out" 2>&1
test_eq "lvx_run(pvcreate) in the same environment succeeds" "$?" 0
test_ok "... LVM2 sees the PV" has_label
test_ok "... the library wrote no IO log" test ! -s "$SCRATCH/lib.log"

echo "pvremove -y $DEV" | LVX_TEST_FAIL_WRITE=1 lvx shell >"$SCRATCH/out" 2>&1
test_ok "lvx shell: pvremove with LVX_TEST_FAIL_WRITE=1 fails" grep -qi "error\|fail" "$SCRATCH/out"
test_ok "... and the PV is still there" has_label

LVX_TEST_DP_FAULT=pv=0,kind=nope lvx pvs "$DEV" >"$SCRATCH/out" 2>&1
test_eq "lvx with a malformed LVX_TEST_DP_FAULT exits 3" "$?" 3
test_ok "... saying so" grep -q "Invalid LVX_TEST_DP_FAULT: kind=nope" "$SCRATCH/out"
LVX_TEST_DP_FAULT=pv=0,kind=nope "$SCRATCH/run" "pvs $DEV" >"$SCRATCH/out" 2>&1
test_eq "the library ignores LVX_TEST_DP_FAULT" "$?" 0

test_ok "lvx pvremove without the variables" lvx pvremove -y "$DEV"
test_ok "... the label is gone" sh -c "! lvm --config 'devices { global_filter = [ \"a|^$DEV\$|\", \"r|.*|\" ] }' pvs 2>/dev/null | grep -q '$DEV'"
done_testing
