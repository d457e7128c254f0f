// SPDX-License-Identifier: MIT
/*
 * info.c - VFIO_IOMMU_GET_INFO: capability chain parser and ioctl wrapper.
 *
 * The parser never trusts the buffer: every read is bounds checked
 * against min(len, argsz) and done with memcpy (no alignment
 * assumptions), and the chain must move strictly forward.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/vfio.h>

#include "sacc_iommu.h"

#define INFO_HDR_MIN offsetof(struct vfio_iommu_type1_info, cap_offset)
#define INFO_HDR_CAP (INFO_HDR_MIN + sizeof(__u32))
/* Size limit for the grown buffer: the kernel's is far smaller. */
#define INFO_MAX_ARGSZ (1u << 20)

#define IOVA_CAP_HDR                                                           \
	offsetof(struct vfio_iommu_type1_info_cap_iova_range, iova_ranges)
#define DMA_AVAIL_CAP_SIZE                                                     \
	(offsetof(struct vfio_iommu_type1_info_dma_avail, avail) +             \
	 sizeof(__u32))

static inline uint32_t rd32(const uint8_t *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static inline uint64_t rd64(const uint8_t *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static inline uint16_t rd16(const uint8_t *p, size_t off)
{
	uint16_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static int parse_iova_cap(const uint8_t *p, size_t off, size_t limit,
			  struct sacc_iommu_info *info, size_t *cap_size,
			  struct sacc_err *err)
{
	uint32_t nr;
	uint64_t body;

	if (limit - off < IOVA_CAP_HDR)
		return sacc_err_set(err, EINVAL,
				    "IOVA range capability at offset %zu is "
				    "truncated (buffer %zu bytes)",
				    off, limit);
	nr = rd32(p, off + offsetof(struct vfio_iommu_type1_info_cap_iova_range,
				    nr_iovas));
	body = (uint64_t)nr * sizeof(struct vfio_iova_range);
	if (body > limit - off - IOVA_CAP_HDR)
		return sacc_err_set(
		    err, EINVAL,
		    "IOVA range capability at offset %zu claims %u ranges, "
		    "more than the %zu-byte buffer holds",
		    off, nr, limit);
	for (uint32_t i = 0; i < nr; i++) {
		size_t roff =
		    off + IOVA_CAP_HDR + i * sizeof(struct vfio_iova_range);
		uint64_t start = rd64(p, roff);
		uint64_t end = rd64(p, roff + sizeof(uint64_t));

		if (start > end)
			return sacc_err_set(err, EINVAL,
					    "IOVA range %u is inverted (start "
					    "0x%llx > end 0x%llx)",
					    i, (unsigned long long)start,
					    (unsigned long long)end);
		if (info->nr_ranges < SACC_IOMMU_MAX_RANGES) {
			info->ranges[info->nr_ranges].start = start;
			info->ranges[info->nr_ranges].end = end;
			info->nr_ranges++;
		} else {
			info->ranges_truncated = true;
		}
	}
	info->has_iova_ranges = true;
	*cap_size = IOVA_CAP_HDR + body;
	return 0;
}

int sacc_iommu_parse_info(const void *buf, size_t len,
			  struct sacc_iommu_info *info, struct sacc_err *err)
{
	const uint8_t *p = buf;
	uint32_t argsz, off;
	size_t limit;

	if (!buf || !info)
		return sacc_err_set(err, EINVAL, "NULL IOMMU info buffer");
	memset(info, 0, sizeof(*info));
	if (len < INFO_HDR_MIN)
		return sacc_err_set(err, EINVAL,
				    "IOMMU info buffer of %zu bytes is shorter "
				    "than its %zu-byte header",
				    len, (size_t)INFO_HDR_MIN);
	argsz = rd32(p, offsetof(struct vfio_iommu_type1_info, argsz));
	info->flags = rd32(p, offsetof(struct vfio_iommu_type1_info, flags));
	if (argsz < INFO_HDR_MIN)
		return sacc_err_set(
		    err, EINVAL,
		    "IOMMU info argsz %u is shorter than its %zu-byte header",
		    argsz, (size_t)INFO_HDR_MIN);
	if (info->flags & VFIO_IOMMU_INFO_PGSIZES) {
		info->has_pgsizes = true;
		info->pgsizes = rd64(
		    p, offsetof(struct vfio_iommu_type1_info, iova_pgsizes));
	}
	if (!(info->flags & VFIO_IOMMU_INFO_CAPS))
		return 0;
	if (argsz > len)
		return sacc_err_set(err, EMSGSIZE,
				    "IOMMU info needs %u bytes, buffer has "
				    "%zu: retry with a larger buffer",
				    argsz, len);
	limit = argsz;
	if (limit < INFO_HDR_CAP)
		return sacc_err_set(err, EINVAL,
				    "IOMMU info advertises capabilities but "
				    "argsz %u has no cap_offset",
				    argsz);

	off = rd32(p, offsetof(struct vfio_iommu_type1_info, cap_offset));
	info->has_caps = true;
	while (off) {
		uint16_t id, version;
		uint32_t next;
		size_t cap_size = sizeof(struct vfio_info_cap_header);
		int ret;

		if (off < INFO_HDR_CAP)
			return sacc_err_set(err, EINVAL,
					    "capability offset %u points into "
					    "the IOMMU info header",
					    off);
		if (off > limit ||
		    limit - off < sizeof(struct vfio_info_cap_header))
			return sacc_err_set(err, EINVAL,
					    "capability header at offset %u is "
					    "beyond the %zu-byte buffer",
					    off, limit);
		id = rd16(p, off + offsetof(struct vfio_info_cap_header, id));
		version = rd16(
		    p, off + offsetof(struct vfio_info_cap_header, version));
		next =
		    rd32(p, off + offsetof(struct vfio_info_cap_header, next));

		switch (id) {
		case VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE:
			if (info->has_iova_ranges)
				return sacc_err_set(err, EINVAL,
						    "duplicate IOVA range "
						    "capability at offset %u",
						    off);
			if (version < 1)
				return sacc_err_set(
				    err, EINVAL,
				    "IOVA range capability has version 0");
			ret =
			    parse_iova_cap(p, off, limit, info, &cap_size, err);
			if (ret)
				return ret;
			break;
		case VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL:
			if (info->has_dma_avail)
				return sacc_err_set(err, EINVAL,
						    "duplicate DMA_AVAIL "
						    "capability at offset %u",
						    off);
			if (limit - off < DMA_AVAIL_CAP_SIZE)
				return sacc_err_set(
				    err, EINVAL,
				    "DMA_AVAIL capability at offset %u is "
				    "truncated (buffer %zu bytes)",
				    off, limit);
			info->dma_avail = rd32(
			    p, off + offsetof(
					 struct vfio_iommu_type1_info_dma_avail,
					 avail));
			info->has_dma_avail = true;
			cap_size = DMA_AVAIL_CAP_SIZE;
			break;
		default:
			break; /* unknown (e.g. MIGRATION): skip */
		}
		info->nr_caps++;
		if (next && (next <= off || next - off < cap_size))
			return sacc_err_set(
			    err, EINVAL,
			    "capability at offset %u has next %u that %s", off,
			    next,
			    next <= off ? "loops back" : "overlaps its body");
		off = next;
	}
	return 0;
}

int sacc_iommu_get_info(int container_fd, struct sacc_iommu_info *info,
			struct sacc_err *err)
{
	size_t sz = sizeof(struct vfio_iommu_type1_info);
	int ret = -EIO;

	if (!info)
		return sacc_err_set(err, EINVAL, "NULL IOMMU info");
	for (int tries = 0; tries < 4; tries++) {
		struct vfio_iommu_type1_info *buf = calloc(1, sz);
		uint32_t need;

		if (!buf)
			return sacc_err_set(
			    err, ENOMEM, "allocating %zu bytes for IOMMU info",
			    sz);
		buf->argsz = sz;
		if (ioctl(container_fd, VFIO_IOMMU_GET_INFO, buf) < 0) {
			ret = sacc_err_set(
			    err, errno,
			    "VFIO_IOMMU_GET_INFO on container fd %d: %s",
			    container_fd, strerror(errno));
			free(buf);
			return ret;
		}
		need = buf->argsz;
		if (need > sz) {
			free(buf);
			if (need > INFO_MAX_ARGSZ)
				return sacc_err_set(
				    err, E2BIG,
				    "VFIO_IOMMU_GET_INFO wants %u bytes, "
				    "refusing more than %u",
				    need, INFO_MAX_ARGSZ);
			sz = need;
			continue;
		}
		ret = sacc_iommu_parse_info(buf, sz, info, err);
		free(buf);
		if (ret != -EMSGSIZE)
			return ret;
	}
	return ret;
}

uint64_t sacc_iommu_min_page(uint64_t pgsizes)
{
	uint64_t page;

	if (!pgsizes)
		return 4096;
	page = pgsizes & -pgsizes;
	return page < 4096 ? 4096 : page;
}
