// SPDX-License-Identifier: MIT
/*
 * report.c - output: one JSON object per fault record plus a summary
 * object, the human table, and the one-line loss summary.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fl_priv.h"
#include "sacc_hw.h"

/* ---- JSON helpers ---- */

static void k_u64(struct fl_sb *sb, bool *first, const char *key, bool has,
		  uint64_t v)
{
	fl_sb_json_key(sb, first, key);
	if (has)
		fl_sb_printf(sb, "%" PRIu64, v);
	else
		fl_sb_puts(sb, "null");
}

static void k_hex(struct fl_sb *sb, bool *first, const char *key, bool has,
		  uint64_t v)
{
	fl_sb_json_key(sb, first, key);
	if (has)
		fl_sb_json_hex(sb, v);
	else
		fl_sb_puts(sb, "null");
}

static void k_str(struct fl_sb *sb, bool *first, const char *key,
		  const char *v)
{
	fl_sb_json_key(sb, first, key);
	fl_sb_json_str(sb, v);
}

static void k_bool(struct fl_sb *sb, bool *first, const char *key, bool has,
		   bool v)
{
	fl_sb_json_key(sb, first, key);
	fl_sb_puts(sb, !has ? "null" : v ? "true" : "false");
}

static const char *tsrc_name(enum sacc_fault_tsrc t)
{
	switch (t) {
	case SACC_TSRC_DEVICE:
		return "device";
	case SACC_TSRC_KERNEL:
		return "kernel";
	case SACC_TSRC_QEMU:
		return "qemu";
	case SACC_TSRC_NONE:
		break;
	}
	return NULL;
}

static const char *perm_name(uint32_t perm)
{
	static const char *const n[] = { NULL, "r", "w", "rw" };

	return n[perm & 3];
}

static void op_text(const struct sacc_fault *f, char *buf, size_t len)
{
	const char *n = sacc_op_name(f->opcode);

	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "op%" PRIu32, f->opcode);
}

static void fault_json(struct fl_sb *sb, const struct sacc_fault *f, size_t n)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} srcs[] = { { SACC_FSRC_DEVICE, "device" },
		     { SACC_FSRC_KERNEL, "kernel" },
		     { SACC_FSRC_QEMU, "qemu" } };
	bool first = true, f2 = true;
	bool fetch = f->has_access && f->access == SACC_FAULT_DESC_FETCH;
	char op[16];

	fl_sb_putc(sb, '{');
	k_u64(sb, &first, "n", true, n);
	fl_sb_json_key(sb, &first, "sources");
	fl_sb_putc(sb, '[');
	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
		if (!(f->sources & srcs[i].bit))
			continue;
		if (!f2)
			fl_sb_putc(sb, ',');
		f2 = false;
		fl_sb_json_str(sb, srcs[i].name);
	}
	fl_sb_putc(sb, ']');
	k_str(sb, &first, "bdf", f->bdf);
	fl_sb_json_key(sb, &first, "sid");
	fl_sb_printf(sb, "\"0x%04x\"", f->sid);
	k_u64(sb, &first, "t_ns", f->t_from != SACC_TSRC_NONE, f->t_ns);
	k_str(sb, &first, "t_from", tsrc_name(f->t_from));
	k_hex(sb, &first, "iova", f->has_iova, f->iova);
	k_bool(sb, &first, "iova_exact", true, f->has_iova && f->iova_exact);
	k_hex(sb, &first, "page", f->has_iova, f->page);
	k_str(sb, &first, "access",
	      f->has_access ? sacc_fault_access_name(f->access) : NULL);
	k_bool(sb, &first, "write", f->has_write, f->write);
	k_u64(sb, &first, "req_id", f->has_req, f->req_id);
	/* a descriptor fetch fault never saw the descriptor: no opcode */
	k_u64(sb, &first, "opcode", f->has_req && !fetch, f->opcode);
	op_text(f, op, sizeof(op));
	k_str(sb, &first, "op", f->has_req && !fetch ? op : NULL);
	k_u64(sb, &first, "status", f->has_req, f->status);
	k_bool(sb, &first, "fatal", true, f->fatal);
	k_u64(sb, &first, "fault_count", f->has_fault_count, f->fault_count);
	k_u64(sb, &first, "pid", f->pid != 0, f->pid);
	k_str(sb, &first, "kernel_kind",
	      !f->has_kernel ? NULL : f->kernel_intr ? "intr_remap" : "dma");
	k_u64(sb, &first, "kernel_reason", f->has_kernel_reason,
	      f->kernel_reason);
	k_str(sb, &first, "kernel_reason_text",
	      f->has_kernel && f->kernel_reason_text[0] ?
		      f->kernel_reason_text :
		      NULL);
	k_u64(sb, &first, "kernel_t_ns", f->has_kernel_t, f->kernel_t_ns);
	k_u64(sb, &first, "pasid", f->has_pasid, f->pasid);
	k_u64(sb, &first, "intr_index", f->has_intr_index, f->intr_index);
	k_u64(sb, &first, "qemu_reason", f->has_qemu, f->qemu_reason);
	k_bool(sb, &first, "viommu_recorded", f->has_viommu_recorded,
	       f->viommu_recorded);
	k_str(sb, &first, "attribution", sacc_fault_attr_name(f->attr));
	k_str(sb, &first, "attribution_text", f->attr_text);
	k_str(sb, &first, "buffer", f->has_buffer ? f->buffer : NULL);
	k_u64(sb, &first, "buffer_offset", f->has_buffer, f->buffer_offset);
	k_str(sb, &first, "buffer_perm",
	      f->has_buffer ? perm_name(f->buffer_perm) : NULL);
	k_u64(sb, &first, "length", f->has_length, f->length);
	k_str(sb, &first, "unlogged", sacc_fault_unlogged_name(f->unlogged));
	k_str(sb, &first, "unlogged_text",
	      sacc_fault_unlogged_text(f->unlogged));
	fl_sb_putc(sb, '}');
}

int sacc_fault_format_json(const struct sacc_fault *f, size_t n, char *buf,
			   size_t len)
{
	struct fl_sb sb;
	int ret;

	if (!f || !buf)
		return -EINVAL;
	fl_sb_init(&sb);
	fault_json(&sb, f, n);
	if (sb.oom)
		ret = -ENOMEM;
	else if (sb.len >= len)
		ret = -EMSGSIZE;
	else
		ret = (int)sb.len;
	if (ret >= 0)
		memcpy(buf, sb.buf, sb.len + 1);
	fl_sb_free(&sb);
	return ret;
}

static void counts_json(struct fl_sb *sb, const struct sacc_faultlog_counts *c,
			bool with_bdf)
{
	bool first = true;

	fl_sb_putc(sb, '{');
	if (with_bdf)
		k_str(sb, &first, "bdf", c->bdf);
	k_u64(sb, &first, "device", true, c->device);
	k_u64(sb, &first, "device_journal", true, c->device_journal);
	k_u64(sb, &first, "device_counter", true, c->device_counter);
	k_u64(sb, &first, "faults", true, c->faults);
	k_u64(sb, &first, "kernel_printed", true, c->kernel_printed);
	k_u64(sb, &first, "matched_kernel", true, c->matched_kernel);
	k_u64(sb, &first, "qemu_seen", true, c->qemu_seen);
	k_u64(sb, &first, "viommu_recorded", true, c->viommu_recorded);
	k_u64(sb, &first, "matched_qemu", true, c->matched_qemu);
	k_u64(sb, &first, "records", true, c->records);
	k_u64(sb, &first, "unattributed", true, c->unattributed);
	k_u64(sb, &first, "unreported", true, c->unreported);
	fl_sb_putc(sb, '}');
}

static void summary_json(struct fl_sb *sb,
			 const struct sacc_faultlog_summary *s)
{
	bool first = true;

	fl_sb_puts(sb, "{\"summary\":{");
	k_str(sb, &first, "text", s->text);
	fl_sb_json_key(sb, &first, "total");
	counts_json(sb, &s->total, false);
	k_u64(sb, &first, "kernel_suppressed", true, s->kernel_suppressed);
	k_u64(sb, &first, "kernel_suppressed_lines", true,
	      s->kernel_suppressed_lines);
	k_u64(sb, &first, "drhd_lines", true, s->drhd_lines);
	k_u64(sb, &first, "overflow_events", true, s->overflow_events);
	k_bool(sb, &first, "have_qemu", true, s->have_qemu);
	k_bool(sb, &first, "have_frr", true, s->have_frr);
	k_u64(sb, &first, "lost", true, s->lost);
	k_bool(sb, &first, "lost_exact", true, s->lost_exact);
	k_str(sb, &first, "lost_reason", s->lost_reason);
	k_u64(sb, &first, "unreported_not_iommu", true,
	      s->unreported_not_iommu);
	k_u64(sb, &first, "unreported_no_dma", true, s->unreported_no_dma);
	k_u64(sb, &first, "bad_kmsg", true, s->bad_kmsg);
	k_u64(sb, &first, "bad_journal", true, s->bad_journal);
	k_u64(sb, &first, "bad_trace", true, s->bad_trace);
	k_u64(sb, &first, "kmsg_user_ignored", true, s->kmsg_user_ignored);
	k_u64(sb, &first, "kmsg_overruns", true, s->kmsg_overruns);
	k_u64(sb, &first, "trace_chunk_lines", true, s->trace_chunk_lines);
	fl_sb_json_key(sb, &first, "devices");
	fl_sb_putc(sb, '[');
	for (size_t i = 0; i < s->nr_devices; i++) {
		if (i)
			fl_sb_putc(sb, ',');
		counts_json(sb, &s->devices[i], true);
	}
	fl_sb_puts(sb, "]}}");
}

static int put(struct fl_sb *sb, FILE *out)
{
	if (sb->oom)
		return -ENOMEM;
	if (fwrite(sb->buf, 1, sb->len, out) != sb->len ||
	    fputc('\n', out) == EOF)
		return -EIO;
	return 0;
}

int sacc_faultlog_print_json(const struct sacc_faultlog *fl, FILE *out)
{
	struct fl_sb sb;
	int ret = 0;

	if (!fl || !out)
		return -EINVAL;
	fl_sb_init(&sb);
	for (size_t i = 0; i < fl->nrec && !ret; i++) {
		fl_sb_reset(&sb);
		fault_json(&sb, &fl->rec[i], i);
		ret = put(&sb, out);
	}
	if (!ret) {
		fl_sb_reset(&sb);
		summary_json(&sb, &fl->sum);
		ret = put(&sb, out);
	}
	fl_sb_free(&sb);
	if (!ret && fflush(out))
		ret = -EIO;
	return ret;
}

/* ---- summary text ---- */

void fl_summary_text(struct sacc_faultlog_summary *s)
{
	const struct sacc_faultlog_counts *t = &s->total;
	char *p = s->text;
	size_t left = sizeof(s->text);
	int n;

#define ADD(...)                                                  \
	do {                                                      \
		n = snprintf(p, left, __VA_ARGS__);               \
		if (n < 0 || (size_t)n >= left)                   \
			return;                                   \
		p += n;                                           \
		left -= (size_t)n;                                \
	} while (0)

	ADD("device %" PRIu64, t->device);
	if (t->faults != t->device)
		ADD(" (%" PRIu64 " faults in all sources)", t->faults);
	if (s->have_qemu)
		ADD(", qemu saw %" PRIu64, t->qemu_seen);
	if (s->have_frr)
		ADD(", vIOMMU recorded %" PRIu64 ", kernel printed %" PRIu64
		    " (suppressed %" PRIu64 ")",
		    t->viommu_recorded, t->kernel_printed,
		    s->kernel_suppressed);
	else
		ADD(", vIOMMU/kernel saw %" PRIu64 " (printed %" PRIu64
		    ", suppressed %" PRIu64 ")",
		    t->kernel_printed + s->kernel_suppressed, t->kernel_printed,
		    s->kernel_suppressed);
	if (s->overflow_events)
		ADD(", overflow events %" PRIu64, s->overflow_events);
	if (t->unreported) {
		const char *sep = "";

		ADD(", never reported %" PRIu64 " (", t->unreported);
		if (s->unreported_not_iommu) {
			ADD("%starget refused %" PRIu64, sep,
			    s->unreported_not_iommu);
			sep = ", ";
		}
		if (s->unreported_no_dma)
			ADD("%swraps past 2^64 %" PRIu64, sep,
			    s->unreported_no_dma);
		ADD(")");
	}
	ADD(", lost %" PRIu64, s->lost);
	if (s->lost)
		ADD(" (%s)", s->lost_exact
				 ? "single fault recording register overflow"
				 : "estimate; DMAR ratelimit or single fault "
				   "recording register");
#undef ADD
}

/* ---- table ---- */

static void access_text(const struct sacc_fault *f, char *buf, size_t len)
{
	if (f->has_access)
		snprintf(buf, len, "%s", sacc_fault_access_name(f->access));
	else if (f->has_write)
		snprintf(buf, len, "%s", f->write ? "write" : "read");
	else
		snprintf(buf, len, "-");
}

void sacc_faultlog_print_header(FILE *out)
{
	fprintf(out, "%-17s %-12s %-10s %-7s %-10s %-20s %-19s %-16s %s\n",
		"TIME(s)", "BDF", "REQ_ID", "OP", "ACCESS", "IOVA", "SOURCES",
		"DMAR", "ATTRIBUTION");
}

int sacc_fault_format_row(const struct sacc_fault *f, char *buf, size_t len)
{
	char t[24] = "-", req[16] = "-", op[16] = "-", acc[16];
	char iova[24] = "-", srcs[24] = "", dmar[24] = "-";
	int n;

	if (!f || !buf)
		return -EINVAL;
	if (f->t_from != SACC_TSRC_NONE)
		snprintf(t, sizeof(t), "%s%" PRIu64 ".%06" PRIu64,
			 f->t_from == SACC_TSRC_QEMU ? "~" : "",
			 f->t_ns / 1000000000u, f->t_ns % 1000000000u / 1000u);
	if (f->has_req) {
		snprintf(req, sizeof(req), "0x%" PRIx32, f->req_id);
		if (!f->has_access || f->access != SACC_FAULT_DESC_FETCH)
			op_text(f, op, sizeof(op));
	}
	access_text(f, acc, sizeof(acc));
	if (f->has_iova)
		snprintf(iova, sizeof(iova), "0x%" PRIx64 "%s", f->iova,
			 f->iova_exact ? "" : "/pg");
	else if (f->has_intr_index)
		snprintf(iova, sizeof(iova), "irq#0x%" PRIx64, f->intr_index);
	snprintf(srcs, sizeof(srcs), "%s%s%s%s%s",
		 f->sources & SACC_FSRC_DEVICE ? "device" : "",
		 (f->sources & SACC_FSRC_DEVICE) &&
				 (f->sources & ~SACC_FSRC_DEVICE) ?
			 "+" :
			 "",
		 f->sources & SACC_FSRC_KERNEL ? "kernel" : "",
		 (f->sources & SACC_FSRC_KERNEL) &&
				 (f->sources & SACC_FSRC_QEMU) ?
			 "+" :
			 "",
		 f->sources & SACC_FSRC_QEMU ? "qemu" : "");
	if (f->has_kernel && f->kernel_intr)
		snprintf(dmar, sizeof(dmar), "intr-remap");
	else if (f->has_kernel && f->has_kernel_reason)
		snprintf(dmar, sizeof(dmar), "reason 0x%02" PRIx32,
			 f->kernel_reason);
	else if (f->has_kernel)
		snprintf(dmar, sizeof(dmar), "printed");
	else if (f->unlogged)
		snprintf(dmar, sizeof(dmar), "no: %s",
			 sacc_fault_unlogged_name(f->unlogged));
	n = snprintf(buf, len,
		     "%17s %-12s %-10s %-7s %-10s %-20s %-19s %-16s %s: %s", t,
		     f->bdf, req, op, acc, iova, srcs, dmar,
		     sacc_fault_attr_name(f->attr), f->attr_text);
	return n < 0 || (size_t)n >= len ? -EMSGSIZE : n;
}

int sacc_faultlog_print_table(const struct sacc_faultlog *fl, FILE *out)
{
	char row[768];

	if (!fl || !out)
		return -EINVAL;
	sacc_faultlog_print_header(out);
	for (size_t i = 0; i < fl->nrec; i++) {
		sacc_fault_format_row(&fl->rec[i], row, sizeof(row));
		fprintf(out, "%s\n", row);
	}
	fputc('\n', out);
	return sacc_faultlog_print_summary(fl, out);
}

int sacc_faultlog_print_summary(const struct sacc_faultlog *fl, FILE *out)
{
	const struct sacc_faultlog_summary *s;

	if (!fl || !out)
		return -EINVAL;
	s = &fl->sum;
	fprintf(out, "summary: %s\n", s->text);
	for (size_t i = 0; i < s->nr_devices; i++) {
		const struct sacc_faultlog_counts *c = &s->devices[i];

		fprintf(out,
			"  %s: device %" PRIu64 " (journal %" PRIu64
			", counter %" PRIu64 "), faults %" PRIu64
			", kernel printed %" PRIu64
			", qemu saw %" PRIu64 ", vIOMMU recorded %" PRIu64
			", records %" PRIu64 ", unattributed %" PRIu64
			", never reported %" PRIu64 "\n",
			c->bdf, c->device, c->device_journal,
			c->device_counter, c->faults, c->kernel_printed,
			c->qemu_seen, c->viommu_recorded, c->records,
			c->unattributed, c->unreported);
	}
	if (s->unreported_not_iommu)
		fprintf(out, "  never reported, target refused: %s\n",
			sacc_fault_unlogged_text(SACC_UNLOGGED_NOT_IOMMU));
	if (s->unreported_no_dma)
		fprintf(out, "  never reported, wraps past 2^64: %s\n",
			sacc_fault_unlogged_text(SACC_UNLOGGED_NO_DMA));
	if (s->lost)
		fprintf(out, "  lost: %s\n", s->lost_reason);
	if (s->bad_kmsg || s->bad_journal || s->bad_trace ||
	    s->kmsg_user_ignored || s->kmsg_overruns)
		fprintf(out,
			"  input: %" PRIu64 " bad kernel lines, %" PRIu64
			" bad journal lines, %" PRIu64
			" bad trace lines, %" PRIu64
			" forged (userspace) DMAR lines ignored, %" PRIu64
			" kmsg overruns\n",
			s->bad_kmsg, s->bad_journal, s->bad_trace,
			s->kmsg_user_ignored, s->kmsg_overruns);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}
