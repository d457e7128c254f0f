// SPDX-License-Identifier: MIT
/*
 * writer.c - the journal's O_APPEND writer and its rotation past the
 * size cap: what libsacc calls from its hooks (vfio-driver/journal.c).
 * One line per event, formatted by format.c, in one write(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sacc_hw.h"
#include "sacc_hw_names.h"
#include "sacc_journal.h"

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
			    path, sacc_file_type(mode));
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
 * The number after "@key": in a line of ours, e.g. ,"faults":12} -> 12.
 * false if there is none, or it does not end the member.
 */
static bool member_u64(const char *line, const char *key, uint64_t *out)
{
	const char *p = strstr(line, key);
	uint64_t v = 0;

	if (!p)
		return false;
	p += strlen(key);
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return *p == ',' || *p == '}';
}

/*
 * A "rotated" line as format.c writes it: {"ev":"rotated",...} whole
 * (a torn last line is not one), its numbers found by their keys.  No
 * JSON parser is needed, since the writer is ours: the line's only
 * strings are "rotated" and a canonical bdf, so the keys cannot appear
 * inside a string.
 */
static bool rotated_line(const char *line, uint64_t *rotations,
			 uint64_t *faults)
{
	size_t n = strlen(line);

	if (strncmp(line, "{\"ev\":\"rotated\",", 16))
		return false;
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	if (!n || line[n - 1] != '}')
		return false;
	if (!member_u64(line, ",\"rotations\":", rotations))
		*rotations = 0;
	return member_u64(line, ",\"faults\":", faults);
}

/*
 * What a journal about to be rotated away holds: its fault events, plus
 * what its own "rotated" line (if any) says went before it.  The writer
 * is ours, so a fault line starts with {"ev":"fault".
 */
static void count_rotated(const char *path, uint64_t *faults,
			  uint64_t *rotations)
{
	uint64_t n = 0, before = 0, rot = 0, lf, lr;
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
		} else if (rotated_line(line, &lr, &lf)) {
			before = lf > before ? lf : before;
			rot = lr > rot ? lr : rot;
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
