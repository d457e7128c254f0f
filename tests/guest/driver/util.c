// SPDX-License-Identifier: MIT
/*
 * util.c - sacc-guest-driver's shared helpers: the seeded random source,
 * /proc/self/status, per-test timing, device helpers that fail the test
 * with libsacc's message, and a child process for what the test process
 * must not do itself
 */
#include <sys/wait.h>

#include "driver.h"

/* xorshift64*: reproducible from the seed printed by main(). */
uint64_t seed = 0x5acc5eed2024ull;
uint64_t rng;

uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

void fill_random(void *p, size_t n)
{
	uint8_t *b = p;
	uint64_t v;

	while (n >= 8) {
		v = rnd();
		memcpy(b, &v, 8);
		b += 8;
		n -= 8;
	}
	v = rnd();
	memcpy(b, &v, n);
}

/* Log-uniform length in 1..max: a uniformly chosen octave, then
 * uniform inside it (the top octave is max itself). */
uint32_t rand_len(uint32_t max)
{
	unsigned int top = 0, k;
	uint32_t lo, hi;

	while ((2u << top) <= max)
		top++;
	k = (unsigned int)(rnd() % (top + 1));
	lo = 1u << k;
	hi = k == 31 ? UINT32_MAX : (2u << k) - 1;
	if (hi > max)
		hi = max;
	return lo + (uint32_t)(rnd() % (hi - lo + 1));
}

unsigned int octave(uint32_t len)
{
	unsigned int k = 0;

	while (len >>= 1)
		k++;
	return k;
}

/* A "Vm...: N kB" field of /proc/self/status in KiB, or -1. */
static long status_kb(const char *field)
{
	char line[256], fmt[64];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	snprintf(fmt, sizeof(fmt), "%s: %%ld kB", field);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* VmLck: what VFIO type1 charges for pinning. */
long vmlck_kb(void)
{
	return status_kb("VmLck");
}

/* VmSize: leaked buffer memory shows here. */
long vmsize_kb(void)
{
	return status_kb("VmSize");
}

bool contains(const char *hay, const char *needle)
{
	return hay && needle && strstr(hay, needle);
}

/* Per-test timing, printed when a test passes (teardown). */
const char *cur_test = "?";
uint64_t cur_t0;
void tc_setup(void)
{
	cur_t0 = sacc_monotonic_ns();
}

void tc_teardown(void)
{
	fprintf(stderr, "    %-32s %7.2f s\n", cur_test,
		(double)(sacc_monotonic_ns() - cur_t0) / 1e9);
}

uint8_t *va(const struct sacc_buf *b)
{
	return sacc_buf_va(b);
}

uint32_t reg(struct sacc_dev *dev, uint32_t off)
{
	uint32_t v = 0;

	ck_assert_int_eq(sacc_reg_read(dev, off, &v), 0);
	return v;
}

void reg_set(struct sacc_dev *dev, uint32_t off, uint32_t v)
{
	ck_assert_int_eq(sacc_reg_write(dev, off, v), 0);
}

/* The registry entry of a live mapping (rings included). */
struct sacc_map_entry mapping_at(struct sacc_dev *dev, uint64_t iova)
{
	struct sacc_map_entry e;
	struct sacc_dma_ctx *ctx = sacc_dev_dma(dev);

	ck_assert_ptr_nonnull(ctx);
	ck_assert_msg(sacc_dma_registry_find(sacc_dma_ctx_registry(ctx), iova,
					     &e) == 0,
		      "no mapping starts at IOVA 0x%" PRIx64, iova);
	return e;
}

uint64_t process_pinned(struct sacc_dev *dev)
{
	struct sacc_dma_stats st;

	sacc_dma_ctx_stats(sacc_dev_dma(dev), &st);
	return st.process_pinned_bytes;
}

/* Reap exactly @n results (bounded), or fail with libsacc's message. */
void reap_n(struct sacc_dev *dev, struct sacc_result *out, unsigned int n)
{
	int got = guest_reap(dev, out, n, REAP_TIMEOUT_MS);

	ck_assert_msg(got >= 0, "sacc_poll: %d: %s", got, sacc_errmsg(dev));
	if ((unsigned int)got != n)
		ck_abort_msg("only %d of %u completions within %d ms "
			     "(outstanding %u, STATUS 0x%x, ERR_CODE %u)",
			     got, n, REAP_TIMEOUT_MS, sacc_outstanding(dev),
			     reg(dev, SACC_REG_STATUS),
			     reg(dev, SACC_REG_ERR_CODE));
}

/* Index of the first byte where d != s ^ x, or SIZE_MAX. */
static size_t first_diff(const uint8_t *d, const uint8_t *s, size_t n,
			 uint8_t x)
{
	const uint64_t xx = 0x0101010101010101ull * x;
	size_t i = 0;

	if (!x)
		return memcmp(d, s, n) ? 0 : SIZE_MAX; /* rescanned below */
	for (; i + 8 <= n; i += 8) {
		uint64_t a, b;

		memcpy(&a, d + i, 8);
		memcpy(&b, s + i, 8);
		if (a != (b ^ xx))
			break;
	}
	for (; i < n; i++)
		if (d[i] != (uint8_t)(s[i] ^ x))
			return i;
	return SIZE_MAX;
}

void check_copy(const char *what, uint16_t opcode, const uint8_t *dst,
		const uint8_t *src, size_t len)
{
	uint8_t x = opcode == SACC_OP_XFORM ? SACC_XFORM_KEY : 0;
	size_t i = first_diff(dst, src, len, x);

	if (i == SIZE_MAX)
		return;
	if (!x) /* find the exact byte for the message */
		for (i = 0; i < len && dst[i] == src[i]; i++)
			;
	ck_abort_msg("%s: %s of %zu bytes: byte %zu is 0x%02x, want 0x%02x",
		     what, sacc_opcode_str(opcode), len, i, dst[i],
		     (uint8_t)(src[i] ^ x));
}

void check_canary(const char *what, const uint8_t *p, size_t n)
{
	const uint64_t c8 = 0x0101010101010101ull * CANARY;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v;

		memcpy(&v, p + i, 8);
		if (v != c8)
			break;
	}
	for (; i < n; i++)
		if (p[i] != CANARY)
			ck_abort_msg("%s: canary byte %zu is 0x%02x: the device "
				     "wrote outside the destination",
				     what, i, p[i]);
}

/* One verified MEMCPY/XFORM of @len bytes from src to dst (offset 0). */
void one_verified_op(struct sacc_dev *dev, uint16_t opcode,
		     struct sacc_buf *src, struct sacc_buf *dst, uint32_t len)
{
	struct sacc_op op = {.opcode = opcode, .len = len, .src = src,
			     .dst = dst, .cookie = 0xc0ffee};
	struct sacc_result r;
	int ret;

	fill_random(va(src), len);
	memset(va(dst), CANARY, sacc_buf_len(dst));
	ret = sacc_submit(dev, &op, 1);
	ck_assert_msg(ret == 1, "sacc_submit: %d: %s", ret, sacc_errmsg(dev));
	reap_n(dev, &r, 1);
	ck_assert_uint_eq(r.cookie, 0xc0ffee);
	ck_assert_msg(r.status == SACC_STS_OK, "status %u (%s)", r.status,
		      sacc_status_str(r.status));
	ck_assert_uint_eq(r.result_len, len);
	check_copy("one op", opcode, va(dst), va(src), len);
	check_canary("one op tail", va(dst) + len, sacc_buf_len(dst) - len);
}

void run_in_child(child_fn fn)
{
	char msg[1024] = "";
	int p[2], status = 0;
	ssize_t n, got = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char m[1024] = "";
		int rc;

		close(p[0]);
		rc = fn(m, sizeof(m));
		if (write(p[1], m, strlen(m)) < 0)
			rc = rc ? rc : 99;
		_exit(rc);
	}
	close(p[1]);
	while ((n = read(p[0], msg + got, sizeof(msg) - 1 - (size_t)got)) > 0)
		got += n;
	msg[got] = '\0';
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child failed (%s %d): %s",
		      WIFEXITED(status) ? "exit" : "signal",
		      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		      msg);
}

/* Submit @d raw, reap it, expect a DMA fault; return FAULT_INFO. */
uint32_t raw_expect_fault(struct sacc_dev *dev, struct sacc_desc d,
			  uint64_t want_addr, const char *what)
{
	struct sacc_result r;
	uint64_t fa;
	int id = sacc_submit_raw(dev, &d);

	ck_assert_msg(id > 0, "%s: sacc_submit_raw: %d: %s", what, id,
		      sacc_errmsg(dev));
	reap_n(dev, &r, 1);
	ck_assert(r.raw);
	ck_assert_uint_eq(r.req_id, (uint32_t)id);
	ck_assert_msg(r.status == SACC_STS_DMA_FAULT,
		      "%s: status %u (%s), want DMA fault", what, r.status,
		      sacc_status_str(r.status));
	ck_assert_uint_eq(r.result_len, 0);
	fa = reg(dev, SACC_REG_FAULT_ADDR) |
	     (uint64_t)reg(dev, SACC_REG_FAULT_ADDR + 4) << 32;
	ck_assert_msg(fa == want_addr,
		      "%s: FAULT_ADDR 0x%" PRIx64 ", want 0x%" PRIx64, what, fa,
		      want_addr);
	ck_assert_uint_eq(reg(dev, SACC_REG_FAULT_REQ_ID), (uint32_t)id);
	return reg(dev, SACC_REG_FAULT_INFO);
}

/* Unmap the SQ ring behind libsacc's back (and put it back). */
void sq_unmap(struct sacc_dev *dev, const struct sacc_map_entry *e)
{
	struct sacc_err err = {0};
	int ret = sacc_vfio_unmap_dma(sacc_dev_container_fd(dev), e->iova,
				      e->len, &err);

	ck_assert_msg(ret == 0, "unmap SQ: %d %s", ret, err.msg);
}

void sq_remap(struct sacc_dev *dev, const struct sacc_map_entry *e)
{
	struct sacc_err err = {0};
	int ret = sacc_vfio_map_dma(sacc_dev_container_fd(dev), e->vaddr,
				    e->iova, e->len, e->perm, &err);

	ck_assert_msg(ret == 0, "remap SQ: %d %s", ret, err.msg);
}

struct sacc_dev *open_chan(struct sacc_dev *dev, unsigned int k,
			   enum sacc_doorbell db, uint32_t sq)
{
	struct sacc_open_opts o = {.sq_entries = sq, .doorbell = db};
	struct sacc_dev *ch = NULL;
	int ret = sacc_chan_open(dev, k, &o, &ch);

	ck_assert_msg(ret == 0, "sacc_chan_open(%u): %d: %s", k, ret,
		      sacc_errmsg(dev));
	ck_assert_uint_eq(sacc_dev_channel(ch), k);
	return ch;
}

/* A device memory buffer, or the test fails with libsacc's message. */
struct sacc_buf *dev_buf(struct sacc_dev *h, size_t len, const char *name)
{
	struct sacc_buf *b = NULL;
	int ret = sacc_devmem_alloc(h, len, name, &b);

	ck_assert_msg(ret == 0, "sacc_devmem_alloc(%zu): %d: %s", len, ret,
		      sacc_errmsg(h));
	return b;
}

/* Has @dev device memory?  If not (a v0.3 device, DEVMEM_SIZE 0), its
 * refusal is what is checked, and the caller stops there. */
bool has_devmem(struct sacc_dev *dev)
{
	struct sacc_devmem_info in;
	struct sacc_buf *b = NULL;

	ck_assert_int_eq(sacc_devmem_info(dev, &in), 0);
	if (in.mapped) {
		ck_assert_uint_ge(in.size, 4096);
		return true;
	}
	ck_assert_int_eq(sacc_devmem_alloc(dev, 4096, "none", &b), -ENOTSUP);
	assert_msg_has(sacc_errmsg(dev), "no device memory");
	fprintf(stderr,
		"    (no device memory: %s; device memory checks skipped)\n",
		in.why ? in.why : "?");
	return false;
}

TCase *driver_tcase(Suite *s, const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, GUEST_TEST_TIMEOUT);
	tcase_add_checked_fixture(tc, tc_setup, tc_teardown);
	suite_add_tcase(s, tc);
	return tc;
}
