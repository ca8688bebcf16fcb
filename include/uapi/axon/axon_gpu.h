/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon_gpu.ko user interface: /dev/axon_gpuN, one per axon-gpu device.
 *
 * A buffer is a range of the GPU's device memory, handed to the process
 * as a dma-buf file descriptor. That fd is all there is: mmap it for CPU
 * access (MAP_SHARED, offset 0, up to the buffer size), pass it to
 * ibv_reg_dmabuf_mr() so the NIC reads and writes the memory peer to
 * peer, close it to drop the process's reference. The memory is freed
 * when the last reference (fds, mappings, importers such as an MR) goes.
 *
 * The driver may move a buffer inside device memory (AXON_GPU_IOCTL_MOVE
 * forces it); the contents and the gpu_va stay, CPU mappings follow
 * transparently, dynamic importers are told through move_notify. A
 * buffer pinned by an importer (a pinned dma-buf MR) does not move.
 *
 * All ioctls return 0 or -1 with errno set; reserved fields and unknown
 * flags must be 0 (EINVAL otherwise).
 */
#ifndef _UAPI_AXON_GPU_H
#define _UAPI_AXON_GPU_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define AXON_GPU_DEV_PREFIX	"/dev/axon_gpu"	/* followed by N */

/* Buffers are sized and placed in units of this many bytes. */
#define AXON_GPU_PAGE_SIZE	0x10000		/* 64 KiB */

/**
 * struct axon_gpu_info - AXON_GPU_IOCTL_INFO
 * @vram_size: out: bytes of device memory
 * @vram_free: out: bytes not allocated
 * @buffers: out: buffers alive, including those only held by a mapping or
 *	an importer
 * @reserved: out: 0
 */
struct axon_gpu_info {
	__u64 vram_size;
	__u64 vram_free;
	__u32 buffers;
	__u32 reserved;
};

/**
 * struct axon_gpu_alloc - AXON_GPU_IOCTL_ALLOC
 * @size: in: bytes, > 0; rounded up to ``AXON_GPU_PAGE_SIZE``,
 *	contiguous in device memory
 * @flags: in: 0
 * @fd: out: the buffer's dma-buf fd, opened O_RDWR | O_CLOEXEC; its size
 *	(lseek(fd, 0, SEEK_END)) is the rounded size
 * @gpu_va: out: the buffer's address in the GPU's own address space (what
 *	a CUDA device pointer is): ``AXON_GPU_PAGE_SIZE`` aligned, stable for
 *	the buffer's life, never reused by this device
 * @reserved: in: 0
 *
 * Use gpu_va as the iova of a dma-buf MR so that remote keys and
 * addresses look like GPU pointers.
 */
struct axon_gpu_alloc {
	__u64 size;
	__u32 flags;
	__s32 fd;
	__u64 gpu_va;
	__u64 reserved;
};

/**
 * struct axon_gpu_move - AXON_GPU_IOCTL_MOVE
 * @fd: in: a dma-buf fd of a buffer of this device
 * @flags: in: 0
 * @reserved: in: 0
 */
struct axon_gpu_move {
	__s32 fd;
	__u32 flags;
	__u64 reserved;
};

#define AXON_GPU_IOCTL_TYPE	0xa9

/* Errors: EINVAL (flags, reserved, size 0), ENOMEM (no room, no memory). */
#define AXON_GPU_IOCTL_INFO	_IOR(AXON_GPU_IOCTL_TYPE, 0, struct axon_gpu_info)
#define AXON_GPU_IOCTL_ALLOC	_IOWR(AXON_GPU_IOCTL_TYPE, 1, struct axon_gpu_alloc)
/*
 * Move the buffer to another range of device memory, keeping its
 * contents. Errors: EBADF (not an fd), EINVAL (not a buffer of this
 * device), EBUSY (pinned by an importer), ENOSPC (no free range).
 */
#define AXON_GPU_IOCTL_MOVE	_IOW(AXON_GPU_IOCTL_TYPE, 2, struct axon_gpu_move)

#endif /* _UAPI_AXON_GPU_H */
