// SPDX-License-Identifier: MIT
/*
 * input.c - everything the fault log reads: lines told apart by format,
 * and sources read incrementally - /dev/kmsg (one record per read,
 * non-blocking), a directory of <bdf>.jsonl journals (each file from
 * its own offset, new files included), and plain files or pipes.
 * sacc_faultlog_add_file() and _add_journal_dir() read a source once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fl_priv.h"

#define LINE_MAX_LEN (1u << 20) /* longer lines are skipped */
#define KMSG_RECORD  8192	/* CONSOLE_EXT_LOG_MAX */

/* ---- lines ---- */

enum sacc_faultlog_input sacc_faultlog_detect(const char *line)
{
	struct sacc_trace_event te;
	const char *p = line;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '{')
		return SACC_FAULTLOG_JOURNAL;
	if (sacc_trace_parse_line(line, &te) == 1)
		return SACC_FAULTLOG_QEMU_TRACE;
	return SACC_FAULTLOG_KMSG;
}

int sacc_faultlog_add_line(struct sacc_faultlog *fl,
			   enum sacc_faultlog_input kind, const char *line)
{
	if (!line)
		return -EINVAL;
	if (kind == SACC_FAULTLOG_MIXED)
		kind = sacc_faultlog_detect(line);
	switch (kind) {
	case SACC_FAULTLOG_KMSG:
		return sacc_faultlog_add_kmsg_line(fl, line);
	case SACC_FAULTLOG_JOURNAL:
		return sacc_faultlog_add_journal_line(fl, line);
	case SACC_FAULTLOG_QEMU_TRACE:
		return sacc_faultlog_add_trace_line(fl, line);
	case SACC_FAULTLOG_MIXED:
		break;
	}
	return -EINVAL;
}

/* ---- sources ---- */

/* A file read line by line; the start of an unfinished line is kept. */
struct src_file {
	char *path;
	off_t off; /* directory entries: bytes consumed */
	char *part;
	size_t plen, pcap;
	bool overlong; /* the line being collected is too long: skipped */
	dev_t dev;     /* directory entries: the file read so far */
	ino_t ino;
};

enum src_mode {
	SRC_RECORDS, /* a character device: one record per read */
	SRC_LINES,   /* one file, kept open */
	SRC_DIR,     /* every *.jsonl in a directory, reopened per read */
};

struct sacc_faultlog_src {
	enum sacc_faultlog_input kind;
	enum src_mode mode;
	unsigned int flags;
	int fd; /* SRC_RECORDS, SRC_LINES */
	char *path;
	struct src_file one; /* SRC_LINES */
	struct src_file *files; /* SRC_DIR */
	size_t nfiles, capfiles;
	size_t skipped;	     /* SRC_DIR: entries the last read skipped */
	char skip_why[384];  /* ... and why, for the first of them */
};

/* Where a read's lines go. */
struct sink {
	struct sacc_faultlog *fl;
	sacc_faultlog_line_fn fn;
	void *ctx;
	int lines, understood;
};

static int deliver(const struct sacc_faultlog_src *src, struct sink *k,
		   char *line)
{
	enum sacc_faultlog_input kind = src->kind;
	size_t n = strlen(line);
	int r;

	while (n && line[n - 1] == '\r')
		line[--n] = '\0';
	if (kind == SACC_FAULTLOG_MIXED)
		kind = sacc_faultlog_detect(line);
	k->lines++;
	if (k->fl) {
		r = sacc_faultlog_add_line(k->fl, kind, line);
		if (r == -ENOMEM)
			return r;
		k->understood += r == 1; /* bad lines are counted, not fatal */
	}
	if (k->fn)
		k->fn(k->ctx, kind, line);
	return 0;
}

/* Collect @n bytes of @f; deliver each line they complete. */
static int take(const struct sacc_faultlog_src *src, struct sink *k,
		struct src_file *f, const char *buf, size_t n)
{
	while (n) {
		const char *nl = memchr(buf, '\n', n);
		size_t len = nl ? (size_t)(nl - buf) : n;

		if (!f->overlong && f->plen + len >= LINE_MAX_LEN) {
			f->overlong = true;
			f->plen = 0;
		}
		if (!f->overlong) {
			if (fl_grow((void **)&f->part, &f->pcap,
				    f->plen + len + 1, 1))
				return -ENOMEM;
			memcpy(f->part + f->plen, buf, len);
			f->plen += len;
			f->part[f->plen] = '\0';
		}
		if (!nl)
			return 0;
		if (!f->overlong && deliver(src, k, f->part ? f->part : ""))
			return -ENOMEM;
		f->plen = 0;
		f->overlong = false;
		buf += len + 1;
		n -= len + 1;
	}
	return 0;
}

/* At the end of a complete input: its unterminated last line. */
static int take_rest(const struct sacc_faultlog_src *src, struct sink *k,
		     struct src_file *f)
{
	int ret = 0;

	if (!(src->flags & SACC_FAULTLOG_SRC_WHOLE))
		return 0; /* it may still be completed */
	if (f->plen && !f->overlong)
		ret = deliver(src, k, f->part);
	f->plen = 0;
	f->overlong = false;
	return ret;
}

/* Read @fd to its end (EOF, or EAGAIN for a non-blocking one). */
static int read_lines(const struct sacc_faultlog_src *src, struct sink *k,
		      struct src_file *f, int fd, struct sacc_err *err)
{
	char buf[16384];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return sacc_err_set(err, errno, "reading %s: %s",
					    f->path, strerror(errno));
		if (n == 0)
			return take_rest(src, k, f)
				       ? sacc_err_set(err, ENOMEM, "reading %s",
						      f->path)
				       : 0;
		f->off += n;
		if (take(src, k, f, buf, (size_t)n))
			return sacc_err_set(err, ENOMEM, "reading %s", f->path);
	}
}

/* kmsg: every record there is now; EPIPE (records overwritten before we
 * read them) is counted in the fault log's kmsg_overruns. */
static int read_records(struct sacc_faultlog_src *src, struct sink *k,
			struct sacc_err *err)
{
	char rec[KMSG_RECORD + 1];

	for (;;) {
		ssize_t n = read(src->fd, rec, sizeof(rec) - 1);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE) {
			if (k->fl)
				k->fl->overruns++;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return sacc_err_set(err, errno, "reading %s: %s",
					    src->path, strerror(errno));
		if (n == 0)
			return 0;
		rec[n] = '\0';
		/* the first line is the record; " KEY=value" lines follow */
		nl = strchr(rec, '\n');
		if (nl)
			*nl = '\0';
		if (deliver(src, k, rec))
			return sacc_err_set(err, ENOMEM, "reading %s",
					    src->path);
	}
}

static int jsonl_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 6 && !strcmp(d->d_name + n - 6, ".jsonl");
}

static bool dir_has(const struct sacc_faultlog_src *src, const char *path)
{
	for (size_t i = 0; i < src->nfiles; i++)
		if (!strcmp(src->files[i].path, path))
			return true;
	return false;
}

/* The directory's journals, new ones added (at offset 0). */
static int dir_scan(struct sacc_faultlog_src *src, struct sacc_err *err)
{
	struct dirent **names;
	char *path = NULL;
	int n, i, ret = 0;

	n = scandir(src->path, &names, jsonl_filter, alphasort);
	if (n < 0) {
		if (errno == ENOENT)
			return 0; /* nobody has journaled yet */
		return sacc_err_set(err, errno, "listing %s: %s", src->path,
				    strerror(errno));
	}
	for (i = 0; i < n && !ret; i++) {
		if (asprintf(&path, "%s/%s", src->path, names[i]->d_name) < 0 ||
		    fl_grow((void **)&src->files, &src->capfiles,
			    src->nfiles + 1, sizeof(*src->files))) {
			ret = sacc_err_set(err, ENOMEM, "listing %s",
					   src->path);
			break;
		}
		if (dir_has(src, path)) {
			free(path);
			continue;
		}
		memset(&src->files[src->nfiles], 0, sizeof(*src->files));
		src->files[src->nfiles++].path = path;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

/* A *.jsonl that is no regular file (a FIFO would block the reader):
 * skipped, and said so by sacc_faultlog_src_skipped(). */
static void skip_file(struct sacc_faultlog_src *src, struct src_file *f,
		      mode_t mode)
{
	if (!src->skipped++)
		snprintf(src->skip_why, sizeof(src->skip_why),
			 "journal %s is %s, not a regular file: skipped "
			 "(remove it)",
			 f->path, sacc_file_type(mode));
	f->off = 0; /* replaced by a journal later: from its start */
	f->ino = 0;
	f->plen = 0;
	f->overlong = false;
}

/*
 * The journal was replaced since the last read: if it was rotated, the
 * old file is <path>.1 now, and what was written to it after that read
 * is read from there first (same file: same inode).
 */
static int finish_rotated(struct sacc_faultlog_src *src, struct sink *k,
			  struct src_file *f, struct sacc_err *err)
{
	struct stat st;
	char *old;
	int fd, ret = 0;

	if (asprintf(&old, "%s.1", f->path) < 0)
		return sacc_err_set(err, ENOMEM, "reading %s", f->path);
	fd = open(old, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	free(old);
	if (fd < 0)
		return 0;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_ino == f->ino &&
	    st.st_dev == f->dev && st.st_size >= f->off &&
	    lseek(fd, f->off, SEEK_SET) >= 0)
		ret = read_lines(src, k, f, fd, err);
	close(fd);
	return ret;
}

/* One journal of the directory, from where the last read stopped.
 * Opened non-blocking, so a FIFO cannot stall the open. */
static int read_dir_file(struct sacc_faultlog_src *src, struct sink *k,
			 struct src_file *f, struct sacc_err *err)
{
	struct stat st;
	int fd, ret, rot = 0;

	fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? 0 /* removed meanwhile */
				       : sacc_err_set(err, errno,
						      "opening %s: %s", f->path,
						      strerror(errno));
	if (fstat(fd, &st)) {
		ret = sacc_err_set(err, errno, "stat %s: %s", f->path,
				   strerror(errno));
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		skip_file(src, f, st.st_mode);
		close(fd);
		return 0;
	}
	if (f->ino && (st.st_ino != f->ino || st.st_dev != f->dev)) {
		rot = finish_rotated(src, k, f, err);
		if (rot == -ENOMEM) {
			close(fd);
			return rot;
		}
	}
	if (st.st_size < f->off ||
	    (f->ino && (st.st_ino != f->ino || st.st_dev != f->dev))) {
		/* truncated, or replaced (rotated): from its start */
		f->off = 0;
		f->plen = 0;
		f->overlong = false;
	}
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	if (lseek(fd, f->off, SEEK_SET) < 0)
		ret = sacc_err_set(err, errno, "seeking in %s: %s", f->path,
				   strerror(errno));
	else
		ret = read_lines(src, k, f, fd, rot ? NULL : err);
	close(fd);
	return rot ? rot : ret;
}

static int read_dir(struct sacc_faultlog_src *src, struct sink *k,
		    struct sacc_err *err)
{
	int ret = dir_scan(src, err);

	src->skipped = 0;
	src->skip_why[0] = '\0';

	/* an unreadable journal does not hide the others */
	for (size_t i = 0; i < src->nfiles; i++) {
		int r = read_dir_file(src, k, &src->files[i],
				      ret ? NULL : err);

		if (r == -ENOMEM)
			return r;
		if (!ret)
			ret = r;
	}
	return ret;
}

static int src_read(struct sacc_faultlog_src *src, struct sink *k,
		    struct sacc_err *err)
{
	switch (src->mode) {
	case SRC_RECORDS:
		return read_records(src, k, err);
	case SRC_LINES:
		return read_lines(src, k, &src->one, src->fd, err);
	case SRC_DIR:
		break;
	}
	return read_dir(src, k, err);
}

int sacc_faultlog_src_read(struct sacc_faultlog_src *src,
			   struct sacc_faultlog *fl, sacc_faultlog_line_fn fn,
			   void *ctx, struct sacc_err *err)
{
	struct sink k = { .fl = fl, .fn = fn, .ctx = ctx };
	int ret;

	if (!src)
		return sacc_err_set(err, EINVAL, "NULL fault log source");
	ret = src_read(src, &k, err);
	return ret ? ret : k.lines;
}

/* Count what a directory's journals hold now as read. */
static void dir_skip(struct sacc_faultlog_src *src)
{
	struct stat st;

	for (size_t i = 0; i < src->nfiles; i++) {
		if (!stat(src->files[i].path, &st)) {
			src->files[i].off = st.st_size;
			src->files[i].dev = st.st_dev;
			src->files[i].ino = st.st_ino;
		}
	}
}

static const char *default_path(enum sacc_faultlog_input kind)
{
	if (kind == SACC_FAULTLOG_KMSG)
		return "/dev/kmsg";
	if (kind != SACC_FAULTLOG_JOURNAL)
		return NULL;
	return sacc_journal_dir();
}

static int src_setup(struct sacc_faultlog_src *src, struct sacc_err *err)
{
	struct stat st;
	int ret;

	if (stat(src->path, &st) ? errno == ENOENT &&
					   src->kind == SACC_FAULTLOG_JOURNAL
				 : S_ISDIR(st.st_mode)) {
		if (src->kind != SACC_FAULTLOG_JOURNAL &&
		    src->kind != SACC_FAULTLOG_MIXED)
			return sacc_err_set(err, EISDIR, "%s is a directory",
					    src->path);
		src->kind = SACC_FAULTLOG_JOURNAL;
		src->mode = SRC_DIR;
		if (!(src->flags & SACC_FAULTLOG_SRC_AT_END))
			return 0;
		ret = dir_scan(src, err);
		if (!ret)
			dir_skip(src);
		return ret;
	}
	src->fd = open(src->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (src->fd < 0)
		return sacc_err_set(err, errno, "opening %s: %s", src->path,
				    strerror(errno));
	if (fstat(src->fd, &st))
		return sacc_err_set(err, errno, "stat %s: %s", src->path,
				    strerror(errno));
	if (S_ISCHR(st.st_mode)) {
		src->mode = SRC_RECORDS;
	} else {
		src->mode = SRC_LINES; /* blocking reads for files and pipes */
		fcntl(src->fd, F_SETFL, fcntl(src->fd, F_GETFL) & ~O_NONBLOCK);
		src->one.path = src->path;
	}
	if ((src->flags & SACC_FAULTLOG_SRC_AT_END) &&
	    lseek(src->fd, 0, SEEK_END) < 0 && errno != ESPIPE)
		return sacc_err_set(err, errno, "seeking in %s: %s", src->path,
				    strerror(errno));
	return 0;
}

int sacc_faultlog_src_open(struct sacc_faultlog_src **out,
			   enum sacc_faultlog_input kind, const char *path,
			   unsigned int flags, struct sacc_err *err)
{
	struct sacc_faultlog_src *src;
	int ret;

	if (!out)
		return sacc_err_set(err, EINVAL, "NULL fault log source");
	*out = NULL;
	if (!path)
		path = default_path(kind);
	if (!path || kind < SACC_FAULTLOG_KMSG || kind > SACC_FAULTLOG_MIXED)
		return sacc_err_set(err, EINVAL, "bad fault log input");
	src = calloc(1, sizeof(*src));
	if (!src || !(src->path = strdup(path))) {
		free(src);
		return sacc_err_set(err, ENOMEM, "opening %s", path);
	}
	src->kind = kind;
	src->flags = flags;
	src->fd = -1;
	ret = src_setup(src, err);
	if (ret) {
		sacc_faultlog_src_close(src);
		return ret;
	}
	*out = src;
	return 0;
}

int sacc_faultlog_src_fd(const struct sacc_faultlog_src *src)
{
	return src && src->mode == SRC_RECORDS ? src->fd : -1;
}

const char *sacc_faultlog_src_path(const struct sacc_faultlog_src *src)
{
	return src ? src->path : NULL;
}

size_t sacc_faultlog_src_skipped(const struct sacc_faultlog_src *src,
				 const char **why)
{
	size_t n = src && src->mode == SRC_DIR ? src->skipped : 0;

	if (why)
		*why = n ? src->skip_why : NULL;
	return n;
}

void sacc_faultlog_src_close(struct sacc_faultlog_src *src)
{
	if (!src)
		return;
	if (src->fd >= 0)
		close(src->fd);
	free(src->one.part);
	for (size_t i = 0; i < src->nfiles; i++) {
		free(src->files[i].path);
		free(src->files[i].part);
	}
	free(src->files);
	free(src->path);
	free(src);
}

/* ---- a source read once ---- */

static int add_once(struct sacc_faultlog *fl, enum sacc_faultlog_input kind,
		    const char *path, struct sacc_err *err)
{
	struct sacc_faultlog_src *src;
	struct sink k = { .fl = fl };
	int ret;

	if (!fl)
		return sacc_err_set(err, EINVAL, "NULL fault log");
	ret = sacc_faultlog_src_open(&src, kind, path, SACC_FAULTLOG_SRC_WHOLE,
				     err);
	if (ret)
		return ret;
	ret = src_read(src, &k, err);
	sacc_faultlog_src_close(src);
	return ret ? ret : k.understood;
}

int sacc_faultlog_add_file(struct sacc_faultlog *fl,
			   enum sacc_faultlog_input kind, const char *path,
			   struct sacc_err *err)
{
	if (!path)
		return sacc_err_set(err, EINVAL, "bad fault log input");
	return add_once(fl, kind, path, err);
}

int sacc_faultlog_add_journal_dir(struct sacc_faultlog *fl, const char *dir,
				  struct sacc_err *err)
{
	return add_once(fl, SACC_FAULTLOG_JOURNAL, dir, err);
}
