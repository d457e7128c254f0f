// SPDX-License-Identifier: MIT
/*
 * parse.c - stateless parsers for the guest kernel's DMAR messages and
 * QEMU's vtd trace lines, plus the kernel's fault reason names (a PCI
 * address in them is read by base/'s one parser).
 *
 * Kernel formats (drivers/iommu/intel/dmar.c, dmar_fault_do_one()):
 *   5.15+ (Debian 6.1 vmlinux strings checked):
 *     "DMAR: [%s NO_PASID] Request device [%02x:%02x.%d] fault addr 0x%llx
 *      [fault reason 0x%02x] %s"
 *     "DMAR: [%s PASID 0x%x] Request device ... fault addr 0x%llx ..."
 *     "DMAR: [INTR-REMAP] Request device [%02x:%02x.%d] fault index 0x%llx
 *      [fault reason 0x%02x] %s"
 *   5.x:   "DMAR: [%s] Request device [..] PASID %x fault addr %llx
 *           [fault reason %02d] %s"       (PASID ffffffff = none)
 *   4.7+:  "DMAR: [%s] Request device [..] fault addr %llx
 *           [fault reason %02d] %s"
 *   <4.7:  "DMAR:[%s] Request device [..] fault addr %llx \n"
 *          "DMAR:[fault reason %02d] %s" (one printk, two lines; the
 *          INTR-REMAP variant is "INTR-REMAP: Request device [[..] fault
 *          index %llx\nINTR-REMAP:[fault reason %02d] %s")
 *   Intermediate patches printed "[%s w/o PASID]" and "%02xh"; accepted.
 *   Note the reason is decimal (%02d) before 5.15 and hex after.
 *   "DMAR: DRHD: handling fault status reg %x" and, from lib/ratelimit.c,
 *   "dmar_fault: %d callbacks suppressed".
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl_priv.h"

/* ---- names ---- */

/* The kernel's dma_remap_fault_reasons[] and irq_remap_fault_reasons[]. */
static const char *const dma_reasons[] = {
	"Software",
	"Present bit in root entry is clear",
	"Present bit in context entry is clear",
	"Invalid context entry",
	"Access beyond MGAW",
	"PTE Write access is not set",
	"PTE Read access is not set",
	"Next page table ptr is invalid",
	"Root table address invalid",
	"Context table ptr is invalid",
	"non-zero reserved fields in RTP",
	"non-zero reserved fields in CTP",
	"non-zero reserved fields in PTE",
	"PCE for translation request specifies blocking",
};

static const char *const ir_reasons[] = {
	"Detected reserved fields in the decoded interrupt-remapped request",
	"Interrupt index exceeded the interrupt-remapping table size",
	"Present field in the IRTE entry is clear",
	"Error accessing interrupt-remapping table pointed by IRTA_REG",
	"Detected reserved fields in the IRTE entry",
	"Blocked a compatibility format interrupt request",
	"Blocked an interrupt request due to source-id verification failure",
};

const char *sacc_dmar_reason_text(unsigned int reason)
{
	if (reason < sizeof(dma_reasons) / sizeof(dma_reasons[0]))
		return dma_reasons[reason];
	if (reason >= 0x20 &&
	    reason - 0x20 < sizeof(ir_reasons) / sizeof(ir_reasons[0]))
		return ir_reasons[reason - 0x20];
	return NULL;
}

/* ---- small scanning helpers ---- */

static bool eat(const char **p, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*p, lit, n))
		return false;
	*p += n;
	return true;
}

static void skip_spaces(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

static bool at_end(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return !*p;
}

/* ---- kernel log ---- */

/* "6,1234,5678901,-;" (optionally ",caller=T1" etc. before ';'). */
static void kmsg_prefix(const char **pp, struct sacc_kmsg_event *ev)
{
	const char *p = *pp;
	uint64_t prio, seq, usec;

	if (fl_scan_u64(&p, 10, &prio) || *p++ != ',' ||
	    fl_scan_u64(&p, 10, &seq) || *p++ != ',' ||
	    fl_scan_u64(&p, 10, &usec) || *p != ',')
		return;
	p = strchr(p, ';');
	if (!p)
		return;
	ev->facility = (int)(prio >> 3);
	ev->has_seq = true;
	ev->seq = seq;
	ev->has_time = usec <= UINT64_MAX / 1000;
	ev->t_ns = ev->has_time ? usec * 1000 : 0;
	*pp = p + 1;
}

/* "[    2.123456]" (dmesg), then an optional "[T123]" caller id. */
static void dmesg_prefix(const char **pp, struct sacc_kmsg_event *ev)
{
	const char *p = *pp;
	uint64_t sec, frac = 0;
	int digits = 0;

	if (*p == '<') { /* dmesg -r: "<3>" */
		const char *q = p + 1;

		while (isdigit((unsigned char)*q))
			q++;
		if (*q == '>' && q > p + 1)
			p = q + 1;
	}
	if (*p != '[')
		goto out;
	p++;
	skip_spaces(&p);
	if (fl_scan_u64(&p, 10, &sec) || *p != '.') {
		/* "dmesg -T" wall clock "[Sat Nov 29 ...]": no usable time */
		const char *q = strchr(*pp, ']');

		if (q && **pp == '[' && isalpha((unsigned char)(*pp)[1]))
			*pp = q + 1;
		goto out;
	}
	p++;
	while (isdigit((unsigned char)*p)) {
		if (digits < 9) {
			frac = frac * 10 + (uint64_t)(*p - '0');
			digits++;
		}
		p++;
	}
	if (!digits || *p != ']')
		goto out;
	p++;
	for (; digits < 9; digits++)
		frac *= 10;
	if (sec <= (UINT64_MAX - frac) / 1000000000ull) {
		ev->has_time = true;
		ev->t_ns = sec * 1000000000ull + frac;
	}
	*pp = p;
	/* caller id "[T123]" / "[  C1]", with or without a space before */
	skip_spaces(&p);
	if (*p == '[') {
		const char *q = p + 1;

		skip_spaces(&q);
		if ((*q == 'T' || *q == 'C') && isdigit((unsigned char)q[1])) {
			q++;
			while (isdigit((unsigned char)*q))
				q++;
			if (*q == ']')
				*pp = q + 1;
		}
	}
out:
	return;
}

/* Decode kmsg's "\xHH" escapes into @out (size @len). */
static void unescape(const char *in, char *out, size_t len)
{
	size_t n = 0;

	while (*in && n + 1 < len) {
		if (in[0] == '\\' && in[1] == 'x' &&
		    isxdigit((unsigned char)in[2]) &&
		    isxdigit((unsigned char)in[3])) {
			char h[3] = { in[2], in[3], 0 };
			unsigned long v = strtoul(h, NULL, 16);

			out[n++] = v ? (char)v : ' ';
			in += 4;
		} else {
			out[n++] = *in++;
		}
	}
	out[n] = '\0';
}

/* Reason number: "0x25" hex, "25h" hex, "37" decimal.  @hex set if the
 * radix marker was there. */
static int scan_reason(const char **pp, uint32_t *reason, bool *hex)
{
	const char *p = *pp, *q;
	uint64_t v;

	*hex = false;
	if (p[0] == '0' && p[1] == 'x') {
		if (fl_scan_u64(&p, 16, &v))
			return -EINVAL;
		*hex = true;
	} else {
		q = p;
		if (fl_scan_u64(&q, 16, &v))
			return -EINVAL;
		if (*q == 'h') {
			p = q + 1;
			*hex = true;
		} else if (fl_scan_u64(&p, 10, &v) || p != q) {
			return -EINVAL;
		}
	}
	if (v > 0xff)
		return -EINVAL;
	*reason = (uint32_t)v;
	*pp = p;
	return 0;
}

/* "[fault reason NN] text" at *pp (the '[' included). */
static int reason_part(const char *p, struct sacc_kmsg_event *ev, bool *hex)
{
	size_t n;

	if (!eat(&p, "[fault reason "))
		return -EINVAL;
	if (scan_reason(&p, &ev->reason, hex) || *p++ != ']')
		return -EINVAL;
	ev->has_reason = true;
	skip_spaces(&p);
	n = strlen(p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\r' || p[n - 1] == '\n'))
		n--;
	if (n >= sizeof(ev->reason_text))
		n = sizeof(ev->reason_text) - 1;
	memcpy(ev->reason_text, p, n);
	ev->reason_text[n] = '\0';
	return 0;
}

/*
 * "[bb:dd.f]", as the kernel prints "[%02x:%02x.%d]"; pre-4.7 INTR-REMAP
 * lines print "[[bb:dd.f]" and an intermediate patch "[0x00:0x03.0]".
 * The brackets and those "0x" are the kernel line's; what is left is a
 * PCI address, read by base/'s one parser.
 */
static int scan_bdf(const char **pp, uint16_t *sid)
{
	const char *p = *pp;
	char addr[SACC_BDF_MAX];
	size_t n = 0;

	if (*p != '[')
		return -EINVAL;
	p++;
	if (*p == '[')
		p++;
	for (; *p && *p != ']'; p++) {
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
		    (!n || addr[n - 1] == ':' || addr[n - 1] == '.')) {
			p++; /* a field's "0x" */
			continue;
		}
		if (n == sizeof(addr) - 1)
			return -EINVAL;
		addr[n++] = *p;
	}
	addr[n] = '\0';
	if (*p != ']' || sacc_bdf_to_sid(addr, NULL, sid, NULL))
		return -EINVAL;
	*pp = p + 1;
	return 0;
}

/*
 * After "DMAR:"/"INTR-REMAP:": a fault line from "Request device" on.
 * @intr / @fmt / @may_split come from the bracket (or the old prefix).
 */
static int fault_body(const char *p, struct sacc_kmsg_event *ev, bool intr,
		      bool may_split)
{
	uint64_t v;
	bool hex_addr, hex_reason;

	if (!eat(&p, "Request device ") || scan_bdf(&p, &ev->sid))
		return -EINVAL;
	skip_spaces(&p);
	if (!intr && eat(&p, "PASID ")) {
		if (ev->format != SACC_KMSG_FMT_ONELINE_OLD ||
		    fl_scan_u64(&p, 16, &v) || v > UINT32_MAX)
			return -EINVAL;
		ev->format = SACC_KMSG_FMT_PASID_OLD;
		if (v != 0xffffffffull) {
			ev->has_pasid = true;
			ev->pasid = (uint32_t)v;
		}
		may_split = false;
		skip_spaces(&p);
	}
	if (!eat(&p, intr ? "fault index " : "fault addr "))
		return -EINVAL;
	hex_addr = p[0] == '0' && p[1] == 'x';
	if (fl_scan_u64(&p, 16, &ev->addr))
		return -EINVAL;
	if (*p && *p != ' ' && *p != '\r' && *p != '\n')
		return -EINVAL;
	skip_spaces(&p);
	if (at_end(p)) {
		if (!may_split)
			return -EINVAL; /* truncated */
		ev->kind = intr ? SACC_KMSG_INTR_FAULT_HEAD :
				  SACC_KMSG_DMA_FAULT_HEAD;
		ev->format = SACC_KMSG_FMT_SPLIT_OLD;
		return 1;
	}
	if (reason_part(p, ev, &hex_reason))
		return -EINVAL;
	if (intr && ev->format == SACC_KMSG_FMT_NONE)
		ev->format = hex_addr || hex_reason ? SACC_KMSG_FMT_V61 :
						      SACC_KMSG_FMT_ONELINE_OLD;
	ev->kind = intr ? SACC_KMSG_INTR_FAULT : SACC_KMSG_DMA_FAULT;
	return 1;
}

/*
 * kernel/sacc_dma's line for a failed transaction, the device's fault
 * record as the driver read it (sacc_fault_result()):
 * "sacc_dma 0000:01:00.0: chan 3 fault: req_id 0 op memcpy len 4096
 *  access dst_write addr 0x10000000 fault_count 1 record own iommu unmapped"
 * Other sacc_dma lines are not faults (0).
 */
static int driver_fault(const char *p, struct sacc_kmsg_event *ev)
{
	char bdf[32], op[16], access[16], rec[8], iommu[12];
	unsigned int chan, req, len, count, a;
	unsigned long long addr;
	int n = 0;

	size_t bl;

	if (sscanf(p, "%31s chan %u fault: req_id %u op %15s len %u access %15s addr %llx fault_count %u record %7s iommu %11s%n",
		   bdf, &chan, &req, op, &len, access, &addr, &count, rec,
		   iommu, &n) < 10 || !n)
		return strstr(p, " fault: req_id ") ? -EINVAL : 0;
	bl = strlen(bdf);
	if (bl < 2 || bdf[bl - 1] != ':')
		return -EINVAL;
	bdf[bl - 1] = '\0';
	if (!at_end(p + n) || sacc_bdf_to_sid(bdf, &ev->drv.domain, &ev->sid, NULL) ||
	    sacc_fault_access_parse(access, &a))
		return -EINVAL;
	ev->kind = SACC_KMSG_DRIVER_FAULT;
	ev->drv.chan = chan;
	ev->drv.req_id = req;
	ev->drv.opcode = !strcmp(op, "memset") ? SACC_OP_FILL :
			 !strcmp(op, "interrupt") ? SACC_OP_NOP : SACC_OP_MEMCPY;
	ev->drv.length = len;
	ev->drv.fault_count = count;
	ev->drv.access = a;
	ev->write = a == SACC_FAULT_DST_WRITE || a == SACC_FAULT_CQ_WRITE ||
		    a == SACC_FAULT_DEV_WRITE;
	ev->addr = addr;
	ev->drv.iommu_known = strcmp(iommu, "-") != 0;
	ev->drv.iommu_mapped = !strcmp(iommu, "mapped");
	return 1;
}

/* The message text, without any prefix. */
static int parse_msg(const char *p, struct sacc_kmsg_event *ev)
{
	bool dmar = false, intr_prefix = false;
	char br[48];
	const char *q;
	uint64_t v;
	size_t n;

	skip_spaces(&p);
	if (eat(&p, "sacc_dma "))
		return driver_fault(p, ev);
	if (eat(&p, "dmar_fault: ")) {
		if (fl_scan_u64(&p, 10, &v) || v > UINT32_MAX)
			return -EINVAL;
		if (!eat(&p, " callbacks suppressed") || !at_end(p))
			return -EINVAL;
		ev->kind = SACC_KMSG_SUPPRESSED;
		ev->suppressed = (uint32_t)v;
		return 1;
	}
	for (;;) { /* "DMAR: DMAR:[...]" happened in 4.x (pr_fmt twice) */
		if (eat(&p, "DMAR:"))
			dmar = true;
		else if (eat(&p, "INTR-REMAP:"))
			intr_prefix = true;
		else
			break;
		skip_spaces(&p);
	}
	if (!dmar && !intr_prefix)
		return 0;
	if (eat(&p, "DRHD: handling fault status reg")) {
		skip_spaces(&p);
		if (fl_scan_u64(&p, 16, &v) || v > UINT32_MAX || !at_end(p))
			return -EINVAL;
		ev->kind = SACC_KMSG_FAULT_STATUS;
		ev->fault_status = (uint32_t)v;
		return 1;
	}
	if (intr_prefix && !strncmp(p, "Request device ", 15))
		return fault_body(p, ev, true, true); /* old split INTR head */
	if (*p != '[')
		return 0; /* another DMAR message */
	q = strchr(p, ']');
	n = q ? (size_t)(q - p - 1) : strlen(p + 1);
	if (n >= sizeof(br))
		n = sizeof(br) - 1;
	memcpy(br, p + 1, n);
	br[n] = '\0';
	if (!strncmp(br, "fault reason", 12)) {
		bool hex;

		if (reason_part(p, ev, &hex))
			return -EINVAL;
		ev->kind = SACC_KMSG_REASON_TAIL;
		ev->format = SACC_KMSG_FMT_SPLIT_OLD;
		return 1;
	}
	if (!strncmp(br, "INTR-REMAP", 10)) {
		if (!q || strcmp(br, "INTR-REMAP"))
			return -EINVAL;
		p = q + 1;
		skip_spaces(&p);
		return fault_body(p, ev, true, false);
	}
	if (strncmp(br, "DMA Read", 8) && strncmp(br, "DMA Write", 9))
		return 0; /* e.g. "[Firmware Bug]: ..." */
	if (!q)
		return -EINVAL;
	ev->write = br[4] == 'W';
	q = br + (ev->write ? 9 : 8);
	if (!*q) {
		ev->format = SACC_KMSG_FMT_ONELINE_OLD;
	} else if (!strcmp(q, " NO_PASID") || !strcmp(q, " w/o PASID")) {
		ev->format = SACC_KMSG_FMT_V61;
	} else if (!strncmp(q, " PASID ", 7)) {
		const char *r = q + 7;

		if (fl_scan_u64(&r, 16, &v) || *r || v > UINT32_MAX)
			return -EINVAL;
		ev->format = SACC_KMSG_FMT_V61;
		ev->has_pasid = true;
		ev->pasid = (uint32_t)v;
	} else {
		return -EINVAL;
	}
	p = strchr(p, ']') + 1;
	skip_spaces(&p);
	return fault_body(p, ev, false,
			  ev->format == SACC_KMSG_FMT_ONELINE_OLD);
}

int sacc_kmsg_parse_line(const char *line, struct sacc_kmsg_event *ev)
{
	char msg[1024];
	const char *p = line, *k;
	char *nl;
	int ret;

	if (!line || !ev)
		return -EINVAL;
	memset(ev, 0, sizeof(*ev));
	ev->facility = -1;
	if (*p == ' ')
		return 0; /* kmsg dictionary continuation ("SUBSYSTEM=...") */
	kmsg_prefix(&p, ev);
	if (!ev->has_seq)
		dmesg_prefix(&p, ev);
	/* syslog: "Nov 29 10:00:00 host kernel: [   2.1] DMAR: ..." */
	k = p;
	skip_spaces(&k);
	if (strncmp(k, "DMAR:", 5) && strncmp(k, "INTR-REMAP:", 11) &&
	    strncmp(k, "dmar_fault: ", 12) && strncmp(k, "sacc_dma ", 9)) {
		k = strstr(p, "kernel: ");
		if (k) {
			p = k + 8;
			if (!ev->has_time)
				dmesg_prefix(&p, ev);
		}
	}
	unescape(p, msg, sizeof(msg));

	nl = strchr(msg, '\n');
	if (nl)
		*nl = '\0';
	ret = parse_msg(msg, ev);
	if (ret == 1 && nl && (ev->kind == SACC_KMSG_DMA_FAULT_HEAD ||
			       ev->kind == SACC_KMSG_INTR_FAULT_HEAD)) {
		struct sacc_kmsg_event tail;

		memset(&tail, 0, sizeof(tail));
		if (parse_msg(nl + 1, &tail) == 1 &&
		    tail.kind == SACC_KMSG_REASON_TAIL) {
			ev->kind = ev->kind == SACC_KMSG_DMA_FAULT_HEAD ?
					   SACC_KMSG_DMA_FAULT :
					   SACC_KMSG_INTR_FAULT;
			ev->has_reason = true;
			ev->reason = tail.reason;
			memcpy(ev->reason_text, tail.reason_text,
			       sizeof(ev->reason_text));
		}
	}
	if (ret == 1 && ev->facility > 0) {
		/* written to /dev/kmsg by a user process: not the kernel's */
		ev->user_forged = true;
		ev->kind = SACC_KMSG_NONE;
		return 0;
	}
	return ret;
}

/* ---- QEMU trace ---- */

int sacc_trace_parse_line(const char *line, struct sacc_trace_event *ev)
{
	const char *p = line, *q;
	uint64_t tid, sec, usec, a, b, c, d;

	if (!line || !ev)
		return -EINVAL;
	memset(ev, 0, sizeof(*ev));
	/* "%d@%zu.%06zu:" from the log backend with -msg timestamp=on */
	q = p;
	if (!fl_scan_u64(&q, 10, &tid) && *q == '@') {
		q++;
		if (fl_scan_u64(&q, 10, &sec) || *q++ != '.' ||
		    fl_scan_u64(&q, 10, &usec) || *q++ != ':' ||
		    usec >= 1000000 || tid > UINT32_MAX ||
		    sec > UINT64_MAX / 1000000000ull - 1)
			return strstr(line, "vtd_dmar_fault") ||
					       strstr(line, "vtd_frr_new") ?
				       -EINVAL :
				       0;
		ev->has_time = true;
		ev->tid = (uint32_t)tid;
		ev->wall_ns = sec * 1000000000ull + usec * 1000;
		p = q;
	}
	skip_spaces(&p);
	if (eat(&p, "vtd_dmar_fault ")) {
		if (!eat(&p, "sid ") || fl_scan_u64(&p, 16, &a) ||
		    a > 0xffff || !eat(&p, " fault ") ||
		    fl_scan_u64(&p, 10, &b) || b > 0xff ||
		    !eat(&p, " addr ") || fl_scan_u64(&p, 16, &c) ||
		    !eat(&p, " write ") || fl_scan_u64(&p, 10, &d) || d > 1 ||
		    !at_end(p))
			return -EINVAL;
		ev->kind = SACC_TRACE_DMAR_FAULT;
		ev->sid = (uint16_t)a;
		ev->reason = (uint32_t)b;
		ev->addr = c;
		ev->write = d;
		return 1;
	}
	if (eat(&p, "vtd_frr_new ")) {
		/* hi: SID 15:0, PP 31, FR 39:32, PV 59:40, T 62 (1 = read) */
		if (!eat(&p, "index ") || fl_scan_u64(&p, 10, &a) ||
		    a > UINT32_MAX || !eat(&p, " high ") ||
		    fl_scan_u64(&p, 16, &b) || !eat(&p, " low ") ||
		    fl_scan_u64(&p, 16, &c) || !at_end(p))
			return -EINVAL;
		ev->kind = SACC_TRACE_FRR_NEW;
		ev->frr_index = (uint32_t)a;
		ev->sid = (uint16_t)(b & 0xffff);
		ev->reason = (uint32_t)((b >> 32) & 0xff);
		ev->write = !(b & (1ull << 62));
		ev->addr = c & ~0xfffull;
		return 1;
	}
	return 0;
}
