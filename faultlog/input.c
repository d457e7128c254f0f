// SPDX-License-Identifier: MIT
/*
 * input.c - feeding files to the fault log: regular files line by line,
 * /dev/kmsg (one record per read, non-blocking, up to its current end),
 * and a directory of <bdf>.jsonl journals.
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

static int add_line(struct sacc_faultlog *fl, enum sacc_faultlog_input kind,
		    const char *line)
{
	switch (kind) {
	case SACC_FAULTLOG_KMSG:
		return sacc_faultlog_add_kmsg_line(fl, line);
	case SACC_FAULTLOG_JOURNAL:
		return sacc_faultlog_add_journal_line(fl, line);
	case SACC_FAULTLOG_QEMU_TRACE:
		return sacc_faultlog_add_trace_line(fl, line);
	}
	return -EINVAL;
}

static int feed(struct sacc_faultlog *fl, enum sacc_faultlog_input kind,
		const char *line, int *understood)
{
	int r = add_line(fl, kind, line);

	if (r == 1)
		(*understood)++;
	return r == -ENOMEM ? r : 0; /* bad lines are counted, not fatal */
}

/* Feed every complete line of @sb (and the rest if @all); keep the tail. */
static int drain(struct sacc_faultlog *fl, enum sacc_faultlog_input kind,
		 struct fl_sb *sb, bool all, int *understood)
{
	size_t start = 0;

	for (size_t i = 0; i < sb->len; i++) {
		if (sb->buf[i] != '\n')
			continue;
		sb->buf[i] = '\0';
		if (feed(fl, kind, sb->buf + start, understood))
			return -ENOMEM;
		start = i + 1;
	}
	if (all && start < sb->len) {
		if (feed(fl, kind, sb->buf + start, understood))
			return -ENOMEM;
		start = sb->len;
	}
	if (!start)
		return 0;
	memmove(sb->buf, sb->buf + start, sb->len - start);
	sb->len -= start;
	sb->buf[sb->len] = '\0';
	return 0;
}

int sacc_faultlog_add_file(struct sacc_faultlog *fl,
			   enum sacc_faultlog_input kind, const char *path,
			   struct sacc_err *err)
{
	struct fl_sb sb;
	struct stat st;
	char buf[8192];
	int fd, understood = 0, ret = 0;
	bool chr;

	if (!fl || !path || kind < SACC_FAULTLOG_KMSG ||
	    kind > SACC_FAULTLOG_QEMU_TRACE)
		return sacc_err_set(err, EINVAL, "bad fault log input");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return sacc_err_set(err, errno, "opening %s: %s", path,
				    strerror(errno));
	if (fstat(fd, &st)) {
		ret = sacc_err_set(err, errno, "stat %s: %s", path,
				   strerror(errno));
		goto out_fd;
	}
	chr = S_ISCHR(st.st_mode);
	if (!chr) /* blocking reads for files and pipes */
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	fl_sb_init(&sb);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && chr && errno == EPIPE) {
			fl->overruns++; /* kmsg records overwritten unread */
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break; /* /dev/kmsg: nothing more for now */
		if (n < 0) {
			ret = sacc_err_set(err, errno, "reading %s: %s", path,
					   strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		/* a kmsg record is one read; make sure it ends a line */
		fl_sb_putn(&sb, buf, (size_t)n);
		if (chr && buf[n - 1] != '\n')
			fl_sb_putc(&sb, '\n');
		if (sb.oom || drain(fl, kind, &sb, false, &understood)) {
			ret = sacc_err_set(err, ENOMEM, "reading %s", path);
			goto out;
		}
	}
	if (drain(fl, kind, &sb, true, &understood))
		ret = sacc_err_set(err, ENOMEM, "reading %s", path);
	else
		ret = understood;
out:
	fl_sb_free(&sb);
out_fd:
	close(fd);
	return ret;
}

static int jsonl_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 6 && !strcmp(d->d_name + n - 6, ".jsonl");
}

int sacc_faultlog_add_journal_dir(struct sacc_faultlog *fl, const char *dir,
				  struct sacc_err *err)
{
	struct dirent **names;
	char path[PATH_MAX];
	int n, total = 0, ret = 0;

	if (!fl)
		return sacc_err_set(err, EINVAL, "NULL fault log");
	if (!dir)
		dir = sacc_journal_dir();
	n = scandir(dir, &names, jsonl_filter, alphasort);
	if (n < 0) {
		if (errno == ENOENT)
			return 0;
		return sacc_err_set(err, errno, "listing %s: %s", dir,
				    strerror(errno));
	}
	for (int i = 0; i < n; i++) {
		int r = 0;

		if (!ret && (size_t)snprintf(path, sizeof(path), "%s/%s", dir,
					     names[i]->d_name) < sizeof(path))
			r = sacc_faultlog_add_file(fl, SACC_FAULTLOG_JOURNAL,
						   path, err);
		if (r < 0)
			ret = r;
		else
			total += r;
		free(names[i]);
	}
	free(names);
	return ret ? ret : total;
}
