// SPDX-License-Identifier: MIT
/*
 * report.c - output: one JSON object per fault record plus a summary
 * object (json-c), the human table, and the one-line loss summary.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fl_priv.h"
#include "sacc_hw.h"

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

static int sources_json(struct json_object *o, unsigned int sources)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} srcs[] = { { SACC_FSRC_DEVICE, "device" },
		     { SACC_FSRC_KERNEL, "kernel" },
		     { SACC_FSRC_QEMU, "qemu" } };
	struct json_object *a = json_object_new_array();
	int ret = fl_json_add(o, "sources", a);

	for (size_t i = 0; !ret && i < sizeof(srcs) / sizeof(srcs[0]); i++)
		if (sources & srcs[i].bit)
			ret = fl_json_push(a,
					   json_object_new_string(srcs[i].name));
	return ret;
}

static int fault_json(struct json_object *o, const struct sacc_fault *f,
		      size_t n)
{
	bool fetch = f->has_access && f->access == SACC_FAULT_DESC_FETCH;
	char op[16], sid[8];
	int ret = 0;

	op_text(f, op, sizeof(op));
	snprintf(sid, sizeof(sid), "0x%04x", f->sid);
	ret |= fl_json_u64(o, "n", true, n);
	ret |= sources_json(o, f->sources);
	ret |= fl_json_str(o, "bdf", f->bdf);
	ret |= fl_json_str(o, "sid", sid);
	ret |= fl_json_u64(o, "t_ns", f->t_from != SACC_TSRC_NONE, f->t_ns);
	ret |= fl_json_str(o, "t_from", tsrc_name(f->t_from));
	ret |= fl_json_hex(o, "iova", f->has_iova, f->iova);
	ret |= fl_json_bool(o, "iova_exact", true,
			    f->has_iova && f->iova_exact);
	ret |= fl_json_hex(o, "page", f->has_iova, f->page);
	ret |= fl_json_str(o, "access",
			   f->has_access ? sacc_fault_access_name(f->access)
					 : NULL);
	ret |= fl_json_bool(o, "write", f->has_write, f->write);
	ret |= fl_json_u64(o, "req_id", f->has_req, f->req_id);
	/* a descriptor fetch fault never saw the descriptor: no opcode */
	ret |= fl_json_u64(o, "opcode", f->has_req && !fetch, f->opcode);
	ret |= fl_json_str(o, "op", f->has_req && !fetch ? op : NULL);
	ret |= fl_json_u64(o, "status", f->has_req, f->status);
	ret |= fl_json_bool(o, "fatal", true, f->fatal);
	ret |= fl_json_u64(o, "fault_count", f->has_fault_count,
			   f->fault_count);
	ret |= fl_json_u64(o, "pid", f->pid != 0, f->pid);
	ret |= fl_json_str(o, "kernel_kind",
			   !f->has_kernel  ? NULL
			   : f->kernel_intr ? "intr_remap"
					    : "dma");
	ret |= fl_json_u64(o, "kernel_reason", f->has_kernel_reason,
			   f->kernel_reason);
	ret |= fl_json_str(o, "kernel_reason_text",
			   f->has_kernel && f->kernel_reason_text[0]
				   ? f->kernel_reason_text
				   : NULL);
	ret |= fl_json_u64(o, "kernel_t_ns", f->has_kernel_t, f->kernel_t_ns);
	ret |= fl_json_u64(o, "pasid", f->has_pasid, f->pasid);
	ret |= fl_json_u64(o, "intr_index", f->has_intr_index, f->intr_index);
	ret |= fl_json_u64(o, "qemu_reason", f->has_qemu, f->qemu_reason);
	ret |= fl_json_bool(o, "viommu_recorded", f->has_viommu_recorded,
			    f->viommu_recorded);
	ret |= fl_json_str(o, "attribution", sacc_fault_attr_name(f->attr));
	ret |= fl_json_str(o, "attribution_text", f->attr_text);
	ret |= fl_json_str(o, "buffer", f->has_buffer ? f->buffer : NULL);
	ret |= fl_json_u64(o, "buffer_offset", f->has_buffer,
			   f->buffer_offset);
	ret |= fl_json_str(o, "buffer_perm",
			   f->has_buffer ? perm_name(f->buffer_perm) : NULL);
	ret |= fl_json_u64(o, "length", f->has_length, f->length);
	ret |= fl_json_u64(o, "chan", f->has_chan, f->chan);
	ret |= fl_json_str(o, "unlogged", sacc_fault_unlogged_name(f->unlogged));
	ret |= fl_json_str(o, "unlogged_text",
			   sacc_fault_unlogged_text(f->unlogged));
	return ret;
}

struct json_object *sacc_fault_json(const struct sacc_fault *f, size_t n)
{
	struct json_object *o = f ? json_object_new_object() : NULL;

	if (o && fault_json(o, f, n)) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}

int sacc_fault_format_json(const struct sacc_fault *f, size_t n, char *buf,
			   size_t len)
{
	struct json_object *o;
	int ret;

	if (!f || !buf)
		return -EINVAL;
	o = sacc_fault_json(f, n);
	if (!o)
		return -ENOMEM;
	ret = fl_json_format(o, "", buf, len);
	json_object_put(o);
	return ret;
}

static struct json_object *counts_json(const struct sacc_faultlog_counts *c,
				       bool with_bdf)
{
	struct json_object *o = json_object_new_object();
	int ret = 0;

	if (!o)
		return NULL;
	if (with_bdf)
		ret |= fl_json_str(o, "bdf", c->bdf);
	ret |= fl_json_u64(o, "device", true, c->device);
	ret |= fl_json_u64(o, "device_journal", true, c->device_journal);
	ret |= fl_json_u64(o, "device_counter", true, c->device_counter);
	ret |= fl_json_u64(o, "faults", true, c->faults);
	ret |= fl_json_u64(o, "kernel_printed", true, c->kernel_printed);
	ret |= fl_json_u64(o, "matched_kernel", true, c->matched_kernel);
	ret |= fl_json_u64(o, "qemu_seen", true, c->qemu_seen);
	ret |= fl_json_u64(o, "viommu_recorded", true, c->viommu_recorded);
	ret |= fl_json_u64(o, "matched_qemu", true, c->matched_qemu);
	ret |= fl_json_u64(o, "records", true, c->records);
	ret |= fl_json_u64(o, "unattributed", true, c->unattributed);
	ret |= fl_json_u64(o, "unreported", true, c->unreported);
	ret |= fl_json_u64(o, "journal_rotated", true, c->journal_rotated);
	if (ret) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int summary_json(struct json_object *o,
			const struct sacc_faultlog_summary *s)
{
	struct json_object *devs;
	int ret = 0;

	ret |= fl_json_str(o, "text", s->text);
	ret |= fl_json_add(o, "total", counts_json(&s->total, false));
	ret |= fl_json_u64(o, "kernel_suppressed", true, s->kernel_suppressed);
	ret |= fl_json_u64(o, "kernel_suppressed_lines", true,
			   s->kernel_suppressed_lines);
	ret |= fl_json_u64(o, "drhd_lines", true, s->drhd_lines);
	ret |= fl_json_u64(o, "overflow_events", true, s->overflow_events);
	ret |= fl_json_bool(o, "have_qemu", true, s->have_qemu);
	ret |= fl_json_bool(o, "have_frr", true, s->have_frr);
	ret |= fl_json_u64(o, "lost", true, s->lost);
	ret |= fl_json_bool(o, "lost_exact", true, s->lost_exact);
	ret |= fl_json_str(o, "lost_reason", s->lost_reason);
	ret |= fl_json_u64(o, "unreported_not_iommu", true,
			   s->unreported_not_iommu);
	ret |= fl_json_u64(o, "unreported_no_dma", true, s->unreported_no_dma);
	ret |= fl_json_u64(o, "unreported_devmem", true, s->unreported_devmem);
	ret |= fl_json_u64(o, "bad_kmsg", true, s->bad_kmsg);
	ret |= fl_json_u64(o, "bad_journal", true, s->bad_journal);
	ret |= fl_json_u64(o, "bad_trace", true, s->bad_trace);
	ret |= fl_json_u64(o, "kmsg_user_ignored", true, s->kmsg_user_ignored);
	ret |= fl_json_u64(o, "kmsg_overruns", true, s->kmsg_overruns);
	ret |= fl_json_u64(o, "trace_chunk_lines", true, s->trace_chunk_lines);
	ret |= fl_json_u64(o, "journal_rotations", true, s->journal_rotations);
	devs = json_object_new_array();
	ret |= fl_json_add(o, "devices", devs);
	for (size_t i = 0; !ret && i < s->nr_devices; i++)
		ret = fl_json_push(devs, counts_json(&s->devices[i], true));
	return ret;
}

int sacc_faultlog_print_json_summary(const struct sacc_faultlog *fl,
				     FILE *out)
{
	struct json_object *o, *sum;
	int ret;

	if (!fl || !out)
		return -EINVAL;
	o = json_object_new_object();
	sum = json_object_new_object();
	if (!o || !sum) {
		json_object_put(o);
		json_object_put(sum);
		return -ENOMEM;
	}
	ret = fl_json_add(o, "summary", sum);
	if (!ret)
		ret = summary_json(sum, &fl->sum);
	if (!ret)
		ret = fl_json_print(o, out);
	json_object_put(o);
	if (!ret && fflush(out))
		ret = -EIO;
	return ret;
}

int sacc_faultlog_print_json(const struct sacc_faultlog *fl, FILE *out)
{
	int ret = 0;

	if (!fl || !out)
		return -EINVAL;
	for (size_t i = 0; i < fl->nrec && !ret; i++) {
		struct json_object *o = sacc_fault_json(&fl->rec[i], i);

		ret = o ? fl_json_print(o, out) : -ENOMEM;
		json_object_put(o);
	}
	return ret ? ret : sacc_faultlog_print_json_summary(fl, out);
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
		if (s->unreported_no_dma) {
			ADD("%swraps past 2^64 %" PRIu64, sep,
			    s->unreported_no_dma);
			sep = ", ";
		}
		if (s->unreported_devmem)
			ADD("%sdevice memory %" PRIu64, sep,
			    s->unreported_devmem);
		ADD(")");
	}
	if (t->journal_rotated || s->journal_rotations)
		ADD(", rotated away %" PRIu64 " (journal size cap)",
		    t->journal_rotated);
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
		if (c->journal_rotated)
			fprintf(out,
				"  %s: %" PRIu64 " faults rotated away with "
				"the journal past its size cap (%s.jsonl.1)\n",
				c->bdf, c->journal_rotated, c->bdf);
	}
	if (s->unreported_not_iommu)
		fprintf(out, "  never reported, target refused: %s\n",
			sacc_fault_unlogged_text(SACC_UNLOGGED_NOT_IOMMU));
	if (s->unreported_no_dma)
		fprintf(out, "  never reported, wraps past 2^64: %s\n",
			sacc_fault_unlogged_text(SACC_UNLOGGED_NO_DMA));
	if (s->unreported_devmem)
		fprintf(out, "  never reported, device memory: %s\n",
			sacc_fault_unlogged_text(SACC_UNLOGGED_DEVMEM));
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
