// SPDX-License-Identifier: MIT
/*
 * devmem_util.c - the device memory probes' fixture: channel CH with device
 * memory, its queue and DEVMEM_SIZE
 */
#include "devmem.h"

struct vq Q; /* channel CH */
uint64_t S;  /* DEVMEM_SIZE */

uint8_t *dm(uint64_t a)
{
	return (uint8_t *)(D.bar4 + a);
}

/* dst[0..len) == src[0..len) ^ key, or the first difference reported. */
void expect_bytes(const uint8_t *dst, const uint8_t *src, size_t len,
		  uint8_t key, const char *what)
{
	if (!key && !memcmp(dst, src, len))
		return;
	for (size_t k = 0; k < len; k++)
		if (dst[k] != (src[k] ^ key))
			ck_abort_msg("%s: byte %zu is 0x%02x, expected 0x%02x",
				     what, k, dst[k], src[k] ^ key);
}

/* Spec 19: byte i of a FILL is byte i mod 8 of the little-endian pattern. */
uint8_t pat_byte(uint64_t pat, size_t i)
{
	return (uint8_t)(pat >> (8 * (i % 8)));
}

void devmem_setup(void)
{
	setup();
	S = b2_rd64(&D, SACC_DEV_DEVMEM_SIZE);
	ck_assert_msg(D.bar4 && S >= 16 * MiB,
		      "these probes need device memory of 16 MiB or more "
		      "(DEVMEM_SIZE 0x%llx, BAR4 %smapped)",
		      (unsigned long long)S, D.bar4 ? "" : "not ");
	ck_assert_msg(b2_rd32(&D, SACC_DEV_CHANNELS) > CH,
		      "these probes need channel %u", CH);
	q_init(&Q, &D, CH, false);
}

TCase *devmem_tc(Suite *s, const char *name)
{
	TCase *t = tcase_create(name);

	tcase_set_timeout(t, GUEST_TEST_TIMEOUT);
	tcase_add_checked_fixture(t, devmem_setup, teardown);
	suite_add_tcase(s, t);
	return t;
}
