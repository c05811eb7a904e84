/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/fuse_uring_abi.h - the kernel's FUSE-over-io_uring interface, which the
 * build host's uapi headers (Debian 12: Linux 6.1, FUSE 7.38) do not have.
 * Facts from Linux 6.14's include/uapi/linux/fuse.h (FUSE protocol 7.42, where
 * the interface first appeared; unchanged in what this daemon uses up to 6.18):
 * the INIT flag, the per-entry header buffer layout and the commands of
 * IORING_OP_URING_CMD on /dev/fuse with the 80-byte command area of a 128-byte SQE.
 * Used by daemon/fuse.c only.
 */
#ifndef LVX_DAEMON_FUSE_URING_ABI_H
#define LVX_DAEMON_FUSE_URING_ABI_H

#include <stdint.h>

#ifndef FUSE_INIT_EXT
#define FUSE_INIT_EXT (1u << 30)
#endif
#ifndef FUSE_OVER_IO_URING
#define FUSE_OVER_IO_URING (1ull << 41)     /* in flags2: bit 41 - 32 */
#endif

#define LVX_FUSE_URING_IN_OUT_HEADER_SZ 128
#define LVX_FUSE_URING_OP_IN_OUT_SZ 128

struct lvx_fuse_uring_ent_in_out {
    uint64_t flags;
    uint64_t commit_id;
    uint32_t payload_sz;
    uint32_t padding;
    uint64_t reserved;
};

/* iov[0] of a registration: fuse_in_header / fuse_out_header in in_out, the
 * opcode's first argument (fuse_read_in, fuse_write_in, ...) in op_in; the rest
 * of the request or the whole reply body in the payload buffer (iov[1]). */
struct lvx_fuse_uring_req_header {
    char in_out[LVX_FUSE_URING_IN_OUT_HEADER_SZ];
    char op_in[LVX_FUSE_URING_OP_IN_OUT_SZ];
    struct lvx_fuse_uring_ent_in_out ring_ent_in_out;
};

enum {
    LVX_FUSE_IO_URING_CMD_REGISTER = 1,
    LVX_FUSE_IO_URING_CMD_COMMIT_AND_FETCH = 2,
};

/* The SQE's command area. */
struct lvx_fuse_uring_cmd_req {
    uint64_t flags;
    uint64_t commit_id;
    uint16_t qid;
    uint8_t padding[6];
};

#endif
