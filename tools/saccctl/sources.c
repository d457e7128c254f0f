// SPDX-License-Identifier: MIT
/*
 * sources.c - incremental readers for the fault log's inputs, shared by
 * saccctl faults (--follow) and saccctl inject (per-scenario logs):
 * /dev/kmsg records from a starting point on, and every journal in a
 * directory from a remembered offset on.  Lines are handed to a
 * callback; the fault log library does the parsing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "saccctl.h"
#include "sacc_faultlog.h"

int kmsg_open(bool at_end)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && at_end)
		lseek(fd, 0, SEEK_END);
	return fd;
}

int kmsg_read(int fd, line_fn fn, void *ctx, uint64_t *overruns)
{
	char rec[8192];
	int n = 0;

	for (;;) {
		ssize_t r = read(fd, rec, sizeof(rec) - 1);
		char *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EPIPE) { /* overwritten before we read */
			if (overruns)
				(*overruns)++;
			continue;
		}
		if (r <= 0)
			break; /* EAGAIN: at the end */
		rec[r] = '\0';
		/* the first line is the record; " KEY=value" lines follow */
		nl = strchr(rec, '\n');
		if (nl)
			*nl = '\0';
		fn(ctx, rec);
		n++;
	}
	return n;
}

static struct jfile *jfile_get(struct jtail *t, const char *name)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", t->dir, name) >=
	    sizeof(path))
		return NULL;
	for (unsigned int i = 0; i < t->n; i++)
		if (!strcmp(t->f[i].path, path))
			return &t->f[i];
	if (t->n == JTAIL_MAX)
		return NULL;
	memset(&t->f[t->n], 0, sizeof(t->f[t->n]));
	snprintf(t->f[t->n].path, sizeof(t->f[t->n].path), "%s", path);
	return &t->f[t->n++];
}

static int jfile_read(struct jfile *f, line_fn fn, void *ctx)
{
	char buf[16384];
	int fd, lines = 0;
	ssize_t r;

	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (lseek(fd, f->off, SEEK_SET) < 0) {
		close(fd);
		return -errno;
	}
	while ((r = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < r; i++) {
			char c = buf[i];

			if (c == '\n') {
				f->part[f->plen] = '\0';
				if (!f->overlong)
					fn(ctx, f->part);
				f->plen = 0;
				f->overlong = false;
				lines++;
			} else if (f->plen < sizeof(f->part) - 1) {
				f->part[f->plen++] = c;
			} else {
				f->overlong = true; /* a broken line: skipped */
			}
		}
		f->off += r;
	}
	close(fd);
	return lines;
}

int jtail_read(struct jtail *t, line_fn fn, void *ctx)
{
	struct dirent *de;
	DIR *d = opendir(t->dir);
	int lines = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		struct jfile *f;
		int r;

		if (n < 7 || strcmp(de->d_name + n - 6, ".jsonl"))
			continue;
		f = jfile_get(t, de->d_name);
		if (!f)
			continue;
		r = jfile_read(f, fn, ctx);
		if (r > 0)
			lines += r;
	}
	closedir(d);
	return lines;
}
