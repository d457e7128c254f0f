// SPDX-License-Identifier: MIT
/*
 * journal.c - the SACC per-device event journal: the JSON-lines schema
 * (sacc_faultlog.h, section 1), its formatter and its tolerant parser
 * (both through json-c), and the O_APPEND writer libsacc uses.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fl_priv.h"
#include "sacc_hw.h"

static const char *const kind_names[] = {
	[SACC_JEV_MAP] = "map",	      [SACC_JEV_UNMAP] = "unmap",
	[SACC_JEV_RANGES] = "ranges", [SACC_JEV_FAULT] = "fault",
	[SACC_JEV_RESET] = "reset",   [SACC_JEV_ROTATED] = "rotated",
};

const char *sacc_journal_kind_name(enum sacc_journal_kind kind)
{
	if (kind >= SACC_JEV_MAP && kind <= SACC_JEV_ROTATED)
		return kind_names[kind];
	return NULL;
}

static const char *perm_name(uint32_t perm)
{
	switch (perm) {
	case SACC_JOURNAL_PERM_READ:
		return "r";
	case SACC_JOURNAL_PERM_WRITE:
		return "w";
	case SACC_JOURNAL_PERM_READ | SACC_JOURNAL_PERM_WRITE:
		return "rw";
	}
	return NULL;
}

/* ---- format ---- */

static int format_event(struct json_object *o,
			const struct sacc_journal_event *ev)
{
	struct json_object *ranges;
	int ret = 0;

	ret |= fl_json_str(o, "ev", sacc_journal_kind_name(ev->ev));
	ret |= fl_json_u64(o, "t_ns", true, ev->t_ns);
	if (ev->pid)
		ret |= fl_json_u64(o, "pid", true, ev->pid);
	ret |= fl_json_str(o, "bdf", ev->bdf);

	switch (ev->ev) {
	case SACC_JEV_MAP:
	case SACC_JEV_UNMAP:
		ret |= fl_json_str(o, "name", ev->name);
		ret |= fl_json_hex(o, "iova", true, ev->iova);
		ret |= fl_json_u64(o, "len", true, ev->len);
		if (ev->perm)
			ret |= fl_json_str(o, "perm", perm_name(ev->perm));
		break;
	case SACC_JEV_RANGES:
		ranges = json_object_new_array_ext((int)ev->nr_ranges);
		ret |= fl_json_add(o, "ranges", ranges);
		for (uint32_t i = 0; !ret && i < ev->nr_ranges; i++) {
			const struct sacc_iova_range *r = &ev->ranges[i];
			struct json_object *pair = json_object_new_array_ext(2);

			ret = fl_json_push(ranges, pair);
			if (!ret)
				ret = fl_json_push(pair,
						   fl_json_hexval(r->start)) |
				      fl_json_push(pair, fl_json_hexval(r->end));
		}
		break;
	case SACC_JEV_FAULT:
		ret |= fl_json_u64(o, "req_id", true, ev->req_id);
		ret |= fl_json_u64(o, "opcode", true, ev->opcode);
		ret |= fl_json_u64(o, "status", true, ev->status);
		ret |= fl_json_hex(o, "addr", true, ev->addr);
		ret |= fl_json_str(o, "access",
				   sacc_fault_access_name(ev->access));
		ret |= fl_json_bool(o, "write", true, ev->write);
		ret |= fl_json_bool(o, "fatal", true, ev->fatal);
		if (ev->has_fault_count)
			ret |= fl_json_u64(o, "fault_count", true,
					   ev->fault_count);
		if (ev->has_length)
			ret |= fl_json_u64(o, "length", true, ev->length);
		if (ev->has_chan)
			ret |= fl_json_u64(o, "chan", true, ev->chan);
		break;
	case SACC_JEV_RESET:
		break;
	case SACC_JEV_ROTATED:
		ret |= fl_json_u64(o, "rotations", true, ev->rotations);
		ret |= fl_json_u64(o, "faults", true, ev->rotated_faults);
		ret |= fl_json_u64(o, "bytes", true, ev->rotated_bytes);
		break;
	}
	return ret;
}

int sacc_journal_format(const struct sacc_journal_event *ev, char *buf,
			size_t len)
{
	const char *kind = ev ? sacc_journal_kind_name(ev->ev) : NULL;
	struct json_object *o;
	int ret;

	if (!kind || !buf || sacc_bdf_to_sid(ev->bdf, NULL, NULL, NULL))
		return -EINVAL;
	if ((ev->ev == SACC_JEV_MAP && !perm_name(ev->perm)) ||
	    (ev->ev == SACC_JEV_UNMAP && ev->perm && !perm_name(ev->perm)) ||
	    (ev->ev == SACC_JEV_FAULT && !sacc_fault_access_name(ev->access)) ||
	    (ev->ev == SACC_JEV_RANGES &&
	     ev->nr_ranges > SACC_IOMMU_MAX_RANGES))
		return -EINVAL;

	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	ret = format_event(o, ev);
	if (!ret)
		ret = fl_json_format(o, "\n", buf, len);
	json_object_put(o);
	return ret;
}

/* ---- parse ---- */

enum {
	SEEN_EV = 1 << 0,
	SEEN_T = 1 << 1,
	SEEN_BDF = 1 << 2,
	SEEN_IOVA = 1 << 3,
	SEEN_LEN = 1 << 4,
	SEEN_PERM = 1 << 5,
	SEEN_RANGES = 1 << 6,
	SEEN_ADDR = 1 << 7,
	SEEN_ACCESS = 1 << 8,
	SEEN_WRITE = 1 << 9,
	SEEN_FAULTS = 1 << 10,
};

struct jctx {
	struct sacc_journal_event *ev;
	unsigned int seen;
	bool unknown_ev;
};

/* A string without NUL bytes ("\u0000"), or NULL. */
static const char *get_str(struct json_object *v)
{
	const char *s = json_object_get_string(v);

	if (!json_object_is_type(v, json_type_string) ||
	    strlen(s) != (size_t)json_object_get_string_len(v))
		return NULL;
	return s;
}

/* A non-negative integer, or a string "0x..." / decimal. */
static int get_u64(struct json_object *v, uint64_t *out)
{
	const char *s;

	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) < 0)
			return -EINVAL;
		*out = json_object_get_uint64(v);
		return 0;
	}
	s = get_str(v);
	return s ? fl_parse_u64(s, out) : -EINVAL;
}

static int get_u32(struct json_object *v, uint32_t *out)
{
	uint64_t x;

	if (get_u64(v, &x) || x > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)x;
	return 0;
}

static int get_bool(struct json_object *v, bool *out)
{
	if (!json_object_is_type(v, json_type_boolean))
		return -EINVAL;
	*out = json_object_get_boolean(v);
	return 0;
}

/* [["0x0","0xfedfffff"],...]: each a [start, end] pair, start <= end. */
static int get_ranges(struct json_object *v, struct sacc_journal_event *ev)
{
	ev->nr_ranges = 0;
	ev->ranges_truncated = false;
	if (!json_object_is_type(v, json_type_array))
		return -EINVAL;
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		struct json_object *p = json_object_array_get_idx(v, i);
		struct sacc_iova_range r;

		if (!json_object_is_type(p, json_type_array) ||
		    json_object_array_length(p) != 2 ||
		    get_u64(json_object_array_get_idx(p, 0), &r.start) ||
		    get_u64(json_object_array_get_idx(p, 1), &r.end) ||
		    r.start > r.end)
			return -EINVAL;
		if (ev->nr_ranges == SACC_IOMMU_MAX_RANGES)
			ev->ranges_truncated = true;
		else
			ev->ranges[ev->nr_ranges++] = r;
	}
	return 0;
}

/* A name as written; a NUL byte in it reads as '?'. */
static void get_name(struct json_object *v, char *dst, size_t size)
{
	const char *s = json_object_get_string(v);
	size_t n = (size_t)json_object_get_string_len(v);

	if (n > size - 1)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		dst[i] = s[i] ? s[i] : '?';
	dst[n] = '\0';
}

static int member(struct jctx *jc, const char *key, struct json_object *v)
{
	struct sacc_journal_event *ev = jc->ev;
	const char *s = get_str(v);
	unsigned int access;
	uint64_t x;

	if (!strcmp(key, "ev")) {
		if (!s)
			return -EINVAL;
		jc->unknown_ev = true;
		for (int k = SACC_JEV_MAP; k <= SACC_JEV_ROTATED; k++) {
			if (!strcmp(s, kind_names[k])) {
				ev->ev = (enum sacc_journal_kind)k;
				jc->unknown_ev = false;
			}
		}
		jc->seen |= SEEN_EV;
	} else if (!strcmp(key, "t_ns")) {
		if (get_u64(v, &ev->t_ns))
			return -EINVAL;
		jc->seen |= SEEN_T;
	} else if (!strcmp(key, "pid")) {
		if (get_u32(v, &ev->pid))
			return -EINVAL;
	} else if (!strcmp(key, "bdf")) {
		if (!s || sacc_bdf_to_sid(s, &ev->domain, &ev->sid, NULL))
			return -EINVAL;
		sacc_bdf_format(ev->domain, ev->sid, ev->bdf, sizeof(ev->bdf));
		jc->seen |= SEEN_BDF;
	} else if (!strcmp(key, "name")) {
		if (!json_object_is_type(v, json_type_string))
			return -EINVAL;
		get_name(v, ev->name, sizeof(ev->name));
	} else if (!strcmp(key, "iova")) {
		if (get_u64(v, &ev->iova))
			return -EINVAL;
		jc->seen |= SEEN_IOVA;
	} else if (!strcmp(key, "len")) {
		if (get_u64(v, &ev->len))
			return -EINVAL;
		jc->seen |= SEEN_LEN;
	} else if (!strcmp(key, "perm")) {
		if (!s)
			return -EINVAL;
		if (!strcmp(s, "r"))
			ev->perm = SACC_JOURNAL_PERM_READ;
		else if (!strcmp(s, "w"))
			ev->perm = SACC_JOURNAL_PERM_WRITE;
		else if (!strcmp(s, "rw"))
			ev->perm = SACC_JOURNAL_PERM_READ |
				   SACC_JOURNAL_PERM_WRITE;
		else
			return -EINVAL;
		jc->seen |= SEEN_PERM;
	} else if (!strcmp(key, "ranges")) {
		if (get_ranges(v, ev))
			return -EINVAL;
		jc->seen |= SEEN_RANGES;
	} else if (!strcmp(key, "req_id")) {
		if (get_u32(v, &ev->req_id))
			return -EINVAL;
	} else if (!strcmp(key, "opcode")) {
		if (get_u32(v, &ev->opcode))
			return -EINVAL;
	} else if (!strcmp(key, "status")) {
		if (get_u32(v, &ev->status))
			return -EINVAL;
	} else if (!strcmp(key, "addr")) {
		if (get_u64(v, &ev->addr))
			return -EINVAL;
		jc->seen |= SEEN_ADDR;
	} else if (!strcmp(key, "access")) {
		if (json_object_is_type(v, json_type_string)) {
			if (!s || sacc_fault_access_parse(s, &access))
				return -EINVAL;
		} else if (get_u64(v, &x) || !sacc_fault_access_name(x)) {
			return -EINVAL;
		} else {
			access = (unsigned int)x;
		}
		ev->access = access;
		jc->seen |= SEEN_ACCESS;
	} else if (!strcmp(key, "write")) {
		if (get_bool(v, &ev->write))
			return -EINVAL;
		jc->seen |= SEEN_WRITE;
	} else if (!strcmp(key, "fatal")) {
		if (get_bool(v, &ev->fatal))
			return -EINVAL;
	} else if (!strcmp(key, "fault_count")) {
		if (get_u32(v, &ev->fault_count))
			return -EINVAL;
		ev->has_fault_count = true;
	} else if (!strcmp(key, "length")) {
		if (get_u32(v, &ev->length))
			return -EINVAL;
		ev->has_length = true;
	} else if (!strcmp(key, "chan")) {
		if (get_u32(v, &ev->chan))
			return -EINVAL;
		ev->has_chan = true;
	} else if (!strcmp(key, "rotations")) {
		if (get_u64(v, &ev->rotations))
			return -EINVAL;
	} else if (!strcmp(key, "faults")) {
		if (get_u64(v, &ev->rotated_faults))
			return -EINVAL;
		jc->seen |= SEEN_FAULTS;
	} else if (!strcmp(key, "bytes")) {
		if (get_u64(v, &ev->rotated_bytes))
			return -EINVAL;
	}
	return 0; /* unknown keys: ignored */
}

static int members(struct jctx *jc, struct json_object *o)
{
	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	json_object_object_foreach(o, key, v)
	{
		if (member(jc, key, v))
			return -EINVAL;
	}
	return 0;
}

int sacc_journal_parse_line(const char *line, struct sacc_journal_event *ev)
{
	struct jctx jc = { .ev = ev };
	struct json_object *o;
	size_t n;
	unsigned int need = SEEN_EV | SEEN_T | SEEN_BDF;
	int ret;

	if (!line || !ev)
		return -EINVAL;
	memset(ev, 0, sizeof(*ev));
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' ||
		     line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	if (!n)
		return 0;
	ret = fl_json_parse(line, n, &o);
	if (ret)
		return ret;
	ret = members(&jc, o);
	json_object_put(o);
	if (ret || !(jc.seen & SEEN_EV))
		return -EINVAL;
	if (jc.unknown_ev)
		return 0; /* a newer writer's event */
	switch (ev->ev) {
	case SACC_JEV_MAP:
		need |= SEEN_IOVA | SEEN_LEN | SEEN_PERM;
		break;
	case SACC_JEV_UNMAP:
		need |= SEEN_IOVA | SEEN_LEN;
		break;
	case SACC_JEV_RANGES:
		need |= SEEN_RANGES;
		break;
	case SACC_JEV_FAULT:
		need |= SEEN_ADDR | SEEN_ACCESS;
		break;
	case SACC_JEV_RESET:
		break;
	case SACC_JEV_ROTATED:
		need |= SEEN_FAULTS;
		break;
	}
	if ((jc.seen & need) != need)
		return -EINVAL;
	if ((ev->ev == SACC_JEV_MAP || ev->ev == SACC_JEV_UNMAP) &&
	    (ev->len == 0 || ev->iova + (ev->len - 1) < ev->iova))
		return -EINVAL;
	if (ev->ev == SACC_JEV_FAULT && !(jc.seen & SEEN_WRITE))
		ev->write = ev->access == SACC_FAULT_DST_WRITE ||
			    ev->access == SACC_FAULT_CQ_WRITE;
	return 1;
}

/* ---- writer ---- */

struct sacc_journal {
	int fd;
	char bdf[SACC_BDF_MAX];
	uint64_t (*now)(void *ctx);
	void *now_ctx;
	uint64_t max; /* rotate past this size; 0: never */
	void (*rotated)(void *ctx, struct sacc_journal *j);
	void *rotated_ctx;
	bool in_hook; /* the hook's own lines never rotate */
	/* threads sharing the journal: fd changes when it rotates
	 * (recursive: the rotation hook writes lines itself) */
	pthread_mutex_t mu;
	char path[PATH_MAX];
};

static uint64_t default_now(void *ctx)
{
	(void)ctx;
	return sacc_monotonic_ns();
}

static int not_regular(const char *path, mode_t mode, int code,
		       struct sacc_err *err)
{
	return sacc_err_set(err, code,
			    "journal %s is %s, not a regular file: remove it",
			    path, fl_file_type(mode));
}

/*
 * Open @path to append, created 0644 if missing.  Only a regular file
 * will do: O_NOFOLLOW refuses a symbolic link, O_NONBLOCK keeps a FIFO
 * from blocking the open (with no reader it fails with ENXIO, with one
 * it opens and fstat() tells), and a device, socket or FIFO is refused.
 */
static int open_regular(const char *path, int flags, struct sacc_err *err)
{
	struct stat st;
	int fd, e;

	fd = open(path,
		  O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK |
		      O_NOFOLLOW | flags,
		  0644);
	if (fd < 0) {
		e = errno;
		if ((e == ELOOP || e == ENXIO) && !lstat(path, &st) &&
		    !S_ISREG(st.st_mode))
			return not_regular(path, st.st_mode, e, err);
		return sacc_err_set(err, e, "opening journal %s: %s", path,
				    strerror(e));
	}
	if (fstat(fd, &st)) {
		e = errno;
		close(fd);
		return sacc_err_set(err, e, "stat journal %s: %s", path,
				    strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return not_regular(path, st.st_mode, EINVAL, err);
	}
	/* a regular file: O_NONBLOCK means nothing, writes block as ever */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int sacc_journal_max_bytes(uint64_t *out, struct sacc_err *err)
{
	const char *s = getenv(SACC_JOURNAL_MAX_ENV);

	*out = SACC_JOURNAL_MAX_DEFAULT;
	if (!s || !*s)
		return 0;
	if (sacc_size_parse(s, out)) {
		*out = SACC_JOURNAL_MAX_DEFAULT;
		return sacc_err_set(err, EINVAL,
				    "%s='%s' is not a size: give bytes, or "
				    "with K, M or G (0: no cap)",
				    SACC_JOURNAL_MAX_ENV, s);
	}
	return 0;
}

int sacc_journal_open_path(struct sacc_journal **out, const char *path,
			   const char *bdf, struct sacc_err *err)
{
	struct sacc_journal *j;
	uint32_t domain;
	uint64_t max;
	uint16_t sid;
	int ret;

	if (!out || !path)
		return sacc_err_set(err, EINVAL, "NULL journal arguments");
	*out = NULL;
	if (sacc_bdf_to_sid(bdf, &domain, &sid, err))
		return -EINVAL;
	if (strlen(path) + 4 >= sizeof(j->path)) /* room for ".tmp" */
		return sacc_err_set(err, ENAMETOOLONG,
				    "journal path too long");
	ret = sacc_journal_max_bytes(&max, err);
	if (ret)
		return ret;
	j = calloc(1, sizeof(*j));
	if (!j)
		return sacc_err_set(err, ENOMEM, "allocating the journal");
	j->fd = open_regular(path, 0, err);
	if (j->fd < 0) {
		int e = j->fd;

		free(j);
		return e;
	}
	{
		pthread_mutexattr_t a;

		pthread_mutexattr_init(&a);
		pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
		pthread_mutex_init(&j->mu, &a);
		pthread_mutexattr_destroy(&a);
	}
	sacc_bdf_format(domain, sid, j->bdf, sizeof(j->bdf));
	snprintf(j->path, sizeof(j->path), "%s", path);
	j->now = default_now;
	j->max = max;
	*out = j;
	return 0;
}

const char *sacc_journal_dir(void)
{
	const char *dir = getenv(SACC_JOURNAL_DIR_ENV);

	return dir && *dir ? dir : SACC_JOURNAL_DIR_DEFAULT;
}

int sacc_journal_open(struct sacc_journal **out, const char *bdf,
		      struct sacc_err *err)
{
	const char *dir = sacc_journal_dir();
	char canon[SACC_BDF_MAX], path[PATH_MAX];
	uint32_t domain;
	uint16_t sid;

	if (!out)
		return sacc_err_set(err, EINVAL, "NULL journal arguments");
	*out = NULL;
	if (sacc_bdf_to_sid(bdf, &domain, &sid, err))
		return -EINVAL;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return sacc_err_set(err, errno, "creating %s: %s", dir,
				    strerror(errno));
	sacc_bdf_format(domain, sid, canon, sizeof(canon));
	if ((size_t)snprintf(path, sizeof(path), "%s/%s.jsonl", dir, canon) >=
	    sizeof(path))
		return sacc_err_set(err, ENAMETOOLONG,
				    "journal path too long");
	return sacc_journal_open_path(out, path, canon, err);
}

void sacc_journal_close(struct sacc_journal *j)
{
	if (!j)
		return;
	if (j->fd >= 0)
		close(j->fd);
	pthread_mutex_destroy(&j->mu);
	free(j);
}

const char *sacc_journal_path(const struct sacc_journal *j)
{
	return j ? j->path : NULL;
}

void sacc_journal_set_clock(struct sacc_journal *j, uint64_t (*now)(void *ctx),
			    void *ctx)
{
	if (!j)
		return;
	j->now = now ? now : default_now;
	j->now_ctx = now ? ctx : NULL;
}

void sacc_journal_set_max(struct sacc_journal *j, uint64_t bytes)
{
	if (j)
		j->max = bytes;
}

uint64_t sacc_journal_get_max(const struct sacc_journal *j)
{
	return j ? j->max : 0;
}

void sacc_journal_set_rotate_hook(struct sacc_journal *j,
				  void (*fn)(void *ctx, struct sacc_journal *j),
				  void *ctx)
{
	if (!j)
		return;
	j->rotated = fn;
	j->rotated_ctx = fn ? ctx : NULL;
}

static void event_init(struct sacc_journal *j, struct sacc_journal_event *ev,
		       enum sacc_journal_kind kind)
{
	memset(ev, 0, sizeof(*ev));
	ev->ev = kind;
	ev->t_ns = j->now(j->now_ctx);
	ev->pid = (uint32_t)getpid();
	memcpy(ev->bdf, j->bdf, sizeof(ev->bdf));
}

static int write_line(struct sacc_journal *j, int fd,
		      const struct sacc_journal_event *ev, struct sacc_err *err)
{
	char buf[4096];
	size_t off = 0;
	int n = sacc_journal_format(ev, buf, sizeof(buf));

	if (n < 0)
		return sacc_err_set(err, -n, "formatting a journal event");
	/* one write(2): O_APPEND keeps concurrent lines whole */
	while (off < (size_t)n) {
		ssize_t w = write(fd, buf + off, (size_t)n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return sacc_err_set(err, w < 0 ? errno : EIO,
					    "writing journal %s: %s", j->path,
					    strerror(w < 0 ? errno : EIO));
		off += (size_t)w;
	}
	return 0;
}

static int lock(struct sacc_journal *j, int op, struct sacc_err *err)
{
	while (flock(j->fd, op))
		if (errno != EINTR)
			return sacc_err_set(err, errno,
					    "locking journal %s: %s", j->path,
					    strerror(errno));
	return 0;
}

/* Is @fd still the file at the journal's path?  (@st: its stat) */
static bool still_there(const struct sacc_journal *j, struct stat *st)
{
	struct stat ps;

	return !fstat(j->fd, st) && !lstat(j->path, &ps) &&
	       ps.st_dev == st->st_dev && ps.st_ino == st->st_ino;
}

/* Another writer rotated the journal (or it was removed): write where
 * the path leads now. */
static int follow(struct sacc_journal *j, struct sacc_err *err)
{
	int fd = open_regular(j->path, 0, err);

	if (fd < 0)
		return fd;
	close(j->fd);
	j->fd = fd;
	return 0;
}

/*
 * What a journal about to be rotated away holds: its fault events, plus
 * what its own "rotated" line (if any) says went before it.  The writer
 * is ours, so a fault line starts with {"ev":"fault".
 */
static void count_rotated(const char *path, uint64_t *faults,
			  uint64_t *rotations)
{
	struct sacc_journal_event ev;
	uint64_t n = 0, before = 0, rot = 0;
	size_t cap = 0;
	char *line = NULL;
	FILE *f;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		*faults = *rotations = 0;
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		if (!strncmp(line, "{\"ev\":\"fault\"", 13)) {
			n++;
		} else if (!strncmp(line, "{\"ev\":\"rotated\"", 15) &&
			   sacc_journal_parse_line(line, &ev) == 1 &&
			   ev.ev == SACC_JEV_ROTATED) {
			before = ev.rotated_faults > before ? ev.rotated_faults
							    : before;
			rot = ev.rotations > rot ? ev.rotations : rot;
		}
	}
	free(line);
	fclose(f);
	*faults = before + n;
	*rotations = rot;
}

/*
 * The journal is past its cap: it becomes <path>.1 (replacing an older
 * one) and a new one takes its place, starting with a "rotated" line
 * that counts the fault events rotated away so far.
 *
 * Under an exclusive flock() on the old file: every line is written
 * under a shared one, so none is added between the count and the swap,
 * and of several writers past the cap only one rotates; the others find
 * that the path leads elsewhere and follow it.  The new file is made
 * aside (<path>.tmp) with its "rotated" line and renamed over the path,
 * so the path never goes missing and no writer can fill (and rotate) the
 * new file before that line is in it.  The hook then writes again what
 * a reader needs (libsacc: the ranges and the live mappings).
 */
static int rotate(struct sacc_journal *j, struct sacc_err *err)
{
	struct sacc_journal_event ev;
	char old[PATH_MAX + 2], tmp[PATH_MAX + 4];
	uint64_t faults, rotations;
	struct stat st;
	int fd, ret;

	ret = lock(j, LOCK_EX, err);
	if (ret)
		return ret;
	if (!still_there(j, &st)) {
		flock(j->fd, LOCK_UN);
		return follow(j, err); /* another writer rotated it */
	}
	if ((uint64_t)st.st_size <= j->max) {
		flock(j->fd, LOCK_UN);
		return 0;
	}
	count_rotated(j->path, &faults, &rotations);
	snprintf(old, sizeof(old), "%s.1", j->path);
	snprintf(tmp, sizeof(tmp), "%s.tmp", j->path);
	fd = open_regular(tmp, O_TRUNC, err);
	if (fd < 0) {
		flock(j->fd, LOCK_UN);
		return fd;
	}
	event_init(j, &ev, SACC_JEV_ROTATED);
	ev.rotations = rotations + 1;
	ev.rotated_faults = faults;
	ev.rotated_bytes = (uint64_t)st.st_size;
	ret = write_line(j, fd, &ev, err);
	/* the old file as <path>.1: a second name first, so the path is
	 * never missing (a file system without hard links: renamed) */
	if (!ret && ((unlink(old) && errno != ENOENT) || link(j->path, old)) &&
	    rename(j->path, old))
		ret = sacc_err_set(err, errno, "rotating journal %s: %s",
				   j->path, strerror(errno));
	if (!ret && rename(tmp, j->path))
		ret = sacc_err_set(err, errno, "rotating journal %s: %s",
				   j->path, strerror(errno));
	flock(j->fd, LOCK_UN);
	if (ret) {
		close(fd);
		unlink(tmp);
		return ret; /* the next line tries again (follow()) */
	}
	close(j->fd);
	j->fd = fd;
	if (j->rotated) {
		j->in_hook = true;
		j->rotated(j->rotated_ctx, j);
		j->in_hook = false;
	}
	return 0;
}

/* One line where the path leads now; then, past the cap, rotation. */
static int emit_locked(struct sacc_journal *j,
		       const struct sacc_journal_event *ev,
		       struct sacc_err *err)
{
	struct stat st;
	int ret;

	for (;;) {
		ret = lock(j, LOCK_SH, err);
		if (ret)
			return ret;
		if (still_there(j, &st))
			break;
		flock(j->fd, LOCK_UN);
		ret = follow(j, err);
		if (ret)
			return ret;
	}
	ret = write_line(j, j->fd, ev, err);
	flock(j->fd, LOCK_UN);
	if (ret || !j->max || j->in_hook || fstat(j->fd, &st) ||
	    (uint64_t)st.st_size <= j->max)
		return ret;
	return rotate(j, err);
}

static int emit(struct sacc_journal *j, const struct sacc_journal_event *ev,
		struct sacc_err *err)
{
	int ret;

	pthread_mutex_lock(&j->mu);
	ret = emit_locked(j, ev, err);
	pthread_mutex_unlock(&j->mu);
	return ret;
}

static int map_event(struct sacc_journal *j, enum sacc_journal_kind kind,
		     const char *name, uint64_t iova, uint64_t len,
		     uint32_t perm, struct sacc_err *err)
{
	struct sacc_journal_event ev;

	if (!j)
		return sacc_err_set(err, EINVAL, "NULL journal");
	if (len == 0 || iova + (len - 1) < iova ||
	    perm > (SACC_JOURNAL_PERM_READ | SACC_JOURNAL_PERM_WRITE) ||
	    (kind == SACC_JEV_MAP && !perm))
		return sacc_err_set(err, EINVAL,
				    "bad journal %s of 0x%llx+0x%llx perm %u",
				    sacc_journal_kind_name(kind),
				    (unsigned long long)iova,
				    (unsigned long long)len, perm);
	event_init(j, &ev, kind);
	snprintf(ev.name, sizeof(ev.name), "%s", name ? name : "");
	ev.iova = iova;
	ev.len = len;
	ev.perm = perm;
	return emit(j, &ev, err);
}

int sacc_journal_map(struct sacc_journal *j, const char *name, uint64_t iova,
		     uint64_t len, uint32_t perm, struct sacc_err *err)
{
	return map_event(j, SACC_JEV_MAP, name, iova, len, perm, err);
}

int sacc_journal_unmap(struct sacc_journal *j, const char *name,
		       uint64_t iova, uint64_t len, uint32_t perm,
		       struct sacc_err *err)
{
	return map_event(j, SACC_JEV_UNMAP, name, iova, len, perm, err);
}

int sacc_journal_ranges(struct sacc_journal *j,
			const struct sacc_iova_range *ranges, size_t nr,
			struct sacc_err *err)
{
	struct sacc_journal_event ev;

	if (!j || (!ranges && nr) || nr > SACC_IOMMU_MAX_RANGES)
		return sacc_err_set(err, EINVAL, "bad journal ranges");
	for (size_t i = 0; i < nr; i++)
		if (ranges[i].start > ranges[i].end)
			return sacc_err_set(err, EINVAL,
					    "bad journal range %zu", i);
	event_init(j, &ev, SACC_JEV_RANGES);
	ev.nr_ranges = (uint32_t)nr;
	if (nr)
		memcpy(ev.ranges, ranges, nr * sizeof(*ranges));
	return emit(j, &ev, err);
}

int sacc_journal_fault(struct sacc_journal *j,
		       const struct sacc_journal_fault *f,
		       struct sacc_err *err)
{
	struct sacc_journal_event ev;
	uint32_t access;

	if (!j || !f)
		return sacc_err_set(err, EINVAL, "NULL journal fault");
	access = f->info & SACC_FAULT_ACCESS_MASK;
	if (!sacc_fault_access_name(access))
		return sacc_err_set(err, EINVAL,
				    "bad FAULT_INFO 0x%x", f->info);
	event_init(j, &ev, SACC_JEV_FAULT);
	ev.req_id = f->req_id;
	ev.opcode = f->opcode;
	ev.status = f->status;
	ev.addr = f->addr;
	ev.access = access;
	ev.write = f->info & SACC_FAULT_IS_WRITE;
	ev.fatal = f->fatal;
	ev.has_fault_count = true;
	ev.fault_count = f->fault_count;
	ev.has_length = f->length != 0;
	ev.length = f->length;
	ev.has_chan = f->has_chan;
	ev.chan = f->chan;
	return emit(j, &ev, err);
}

int sacc_journal_reset(struct sacc_journal *j, struct sacc_err *err)
{
	struct sacc_journal_event ev;

	if (!j)
		return sacc_err_set(err, EINVAL, "NULL journal");
	event_init(j, &ev, SACC_JEV_RESET);
	return emit(j, &ev, err);
}
