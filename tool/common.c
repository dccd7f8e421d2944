// SPDX-License-Identifier: GPL-2.0
/* Messages, allocation and rooted file access for xps-steer. */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

const char *prog_name = "xps-steer";
const char *cmd_name;

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog_name);
	if (cmd_name)
		fprintf(stderr, "%s: ", cmd_name);
	fputs(kind, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void err_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void warn_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

static void *check_alloc(void *p)
{
	if (!p) {
		err_msg("out of memory");
		exit(EXIT_FAIL);
	}
	return p;
}

void *xmalloc(size_t size)
{
	return check_alloc(malloc(size ? size : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return check_alloc(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t size)
{
	return check_alloc(realloc(p, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}

static char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		check_alloc(NULL);
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

bool fake_root(void)
{
	const char *root = getenv("XPS_STEER_ROOT");

	return root && *root && strcmp(root, "/");
}

char *root_path(const char *path)
{
	if (!fake_root())
		return xstrdup(path);
	return xasprintf("%s%s", getenv("XPS_STEER_ROOT"), path);
}

char *root_pathf(const char *fmt, ...)
{
	va_list ap;
	char *rel, *full;

	va_start(ap, fmt);
	rel = xvasprintf(fmt, ap);
	va_end(ap);
	full = root_path(rel);
	free(rel);
	return full;
}

/*
 * Below a fake root (the tests), a file PATH.read-errno or
 * PATH.write-errno holding an errno number makes reads or writes of PATH
 * fail with it: the kernel's refusals that a plain file cannot give
 * (EFBIG from a map that does not fit in a page). 0: none.
 */
static int injected_errno(const char *path, const char *op)
{
	char *file;
	FILE *f;
	int err = 0;

	if (!fake_root())
		return 0;
	file = xasprintf("%s%s.%s-errno", getenv("XPS_STEER_ROOT"), path, op);
	f = fopen(file, "re");
	free(file);
	if (!f)
		return 0;
	if (fscanf(f, "%d", &err) != 1 || err <= 0)
		err = 0;
	fclose(f);
	return -err;
}

int read_text(const char *path, char **text)
{
	char *full, *buf = NULL;
	size_t len = 0, cap = 0;
	int fd, ret = injected_errno(path, "read");
	ssize_t n;

	*text = NULL;
	if (ret)
		return ret;
	full = root_path(path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	free(full);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	if (ret) {
		free(buf);
		return ret;
	}
	if (!buf)
		buf = xmalloc(1);
	buf[len] = '\0';
	*text = buf;
	return 0;
}

int read_line(const char *path, char **line)
{
	int ret = read_text(path, line);

	if (!ret)
		(*line)[strcspn(*line, "\n")] = '\0';
	return ret;
}

int write_text(const char *path, const char *text)
{
	char *full;
	size_t len = strlen(text);
	ssize_t n;
	int fd, ret = injected_errno(path, "write");

	if (ret)
		return ret;
	full = root_path(path);
	fd = open(full, O_WRONLY | O_TRUNC | O_CLOEXEC);
	free(full);
	if (fd < 0)
		return -errno;
	/* One write: the module's files take a whole value per write. */
	n = write(fd, text, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

bool path_exists(const char *path)
{
	char *full = root_path(path);
	struct stat st;
	bool ok = !stat(full, &st);

	free(full);
	return ok;
}

char *link_basename(const char *path)
{
	char *full = root_path(path), target[PATH_MAX];
	ssize_t n = readlink(full, target, sizeof(target) - 1);
	const char *base;

	free(full);
	if (n < 0)
		return NULL;
	target[n] = '\0';
	base = strrchr(target, '/');
	return xstrdup(base ? base + 1 : target);
}

bool valid_ifname(const char *name)
{
	if (!*name || strlen(name) > 15 || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return false;
	for (const char *c = name; *c; c++)
		if (*c == '/' || *c == ':' || *c == ',' ||
		    isspace((unsigned char)*c))
			return false;
	return true;
}

int check_ifname(const char *name)
{
	if (valid_ifname(name))
		return EXIT_OK;
	err_msg("'%s' is not an interface name (" IFNAME_RULE ")", name);
	return EXIT_USAGE;
}

int check_ifnames(int n, char *const *names)
{
	int ret = EXIT_OK;

	for (int i = 0; i < n; i++)
		if (check_ifname(names[i]))
			ret = EXIT_USAGE;
	return ret;
}
