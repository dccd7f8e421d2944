// SPDX-License-Identifier: GPL-2.0
/*
 * xwrite - one write() of exact bytes to a file, result printed as a string.
 *
 * Why not `echo > file`: the shell adds a newline (or not), may split or
 * retry the write, and reports errors as localised text on stderr.  Testing
 * that xps_steer's xps_cpus file accepts and rejects exactly what the
 * kernel's /sys/class/net/<dev>/queues/tx-<n>/xps_cpus does needs the same
 * bytes in a single write() to both files and an errno that can be compared
 * as a string.
 *
 * usage: xwrite [-n] [-r] [-R] [-L] [-g PATH] [--] FILE STRING   (options
 *        only before FILE, so a STRING like "-1" is data, not an option)
 *   STRING escapes (unless -r): \n \t \\ \xHH     -n: append a newline
 *   -R: one read() of up to 4096 bytes instead of the write (STRING ignored)
 *   -g PATH: after open(), wait until PATH is gone (up to 30 s, else
 *       "err ETIMEDOUT"), then write or read: I/O through a descriptor
 *       that outlived its file
 *   -L: STRING names a file; each of its lines is written as above (escapes
 *       decoded, fresh open, one write()), one result line each.  The stress
 *       suite's writers use it: on the debug kernel one process start costs
 *       about 0.1 s, which made 10,000 writes by separate processes take
 *       most of an hour.
 * Prints "ok <bytes returned by write>" or "err <ERRNO NAME>" (also when
 * open() fails) and exits 0; exits 2 only on usage errors.  The caller
 * compares the printed strings.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const struct { int err; const char *name; } names[] = {
	{ EPERM, "EPERM" },	{ ENOENT, "ENOENT" },	{ ESRCH, "ESRCH" },
	{ EINTR, "EINTR" },	{ EIO, "EIO" },		{ ENXIO, "ENXIO" },
	{ E2BIG, "E2BIG" },	{ EBADF, "EBADF" },	{ EAGAIN, "EAGAIN" },
	{ ENOMEM, "ENOMEM" },	{ EACCES, "EACCES" },	{ EFAULT, "EFAULT" },
	{ EBUSY, "EBUSY" },	{ EEXIST, "EEXIST" },	{ ENODEV, "ENODEV" },
	{ ENOTDIR, "ENOTDIR" },	{ EISDIR, "EISDIR" },	{ EINVAL, "EINVAL" },
	{ ENFILE, "ENFILE" },	{ EMFILE, "EMFILE" },	{ ENOSPC, "ENOSPC" },
	{ ESPIPE, "ESPIPE" },	{ EROFS, "EROFS" },	{ EPIPE, "EPIPE" },
	{ EDOM, "EDOM" },	{ ERANGE, "ERANGE" },	{ ENOSYS, "ENOSYS" },
	{ ENAMETOOLONG, "ENAMETOOLONG" },		{ EOVERFLOW, "EOVERFLOW" },
	{ EOPNOTSUPP, "EOPNOTSUPP" },			{ ENOTTY, "ENOTTY" },
	{ ETXTBSY, "ETXTBSY" },	{ EFBIG, "EFBIG" },	{ EILSEQ, "EILSEQ" },
	{ ENOBUFS, "ENOBUFS" },	{ ETIMEDOUT, "ETIMEDOUT" },
};

static void print_err(int err)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].err == err) {
			printf("err %s\n", names[i].name);
			return;
		}
	}
	printf("err errno%d\n", err);	/* numeric fallback: still comparable */
}

/* The outcome of one read() or write(): "ok COUNT" or "err NAME". */
static void print_result(ssize_t n)
{
	if (n < 0)
		print_err(errno);
	else
		printf("ok %zd\n", n);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode \n \t \\ \xHH in place; returns the decoded length (may hold NULs). */
static size_t unescape(char *s)
{
	char *in = s, *out = s;

	while (*in) {
		if (in[0] != '\\' || in[1] == '\0') {
			*out++ = *in++;
			continue;
		}
		if (in[1] == 'x' && hexval(in[2]) >= 0 && hexval(in[3]) >= 0) {
			*out++ = (char)(hexval(in[2]) * 16 + hexval(in[3]));
			in += 4;
			continue;
		}
		switch (in[1]) {
		case 'n': *out++ = '\n'; in += 2; break;
		case 't': *out++ = '\t'; in += 2; break;
		case '\\': *out++ = '\\'; in += 2; break;
		default: *out++ = *in++;	/* not an escape: keep it literally */
		}
	}
	return out - s;
}

/* -L: every line of LIST written to FILE as one xwrite FILE LINE would. */
static int write_lines(const char *file, const char *list, int newline, int raw)
{
	char *line = NULL;
	size_t cap = 0, len;
	ssize_t got;
	FILE *in;
	int fd;

	in = fopen(list, "r");
	if (!in) {
		fprintf(stderr, "xwrite: %s: %s\n", list, strerror(errno));
		return 2;
	}
	while ((got = getline(&line, &cap, in)) >= 0) {
		len = got;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!raw)
			len = unescape(line);
		if (newline)
			line[len++] = '\n';	/* getline's '\n' or '\0' made room */
		fd = open(file, O_WRONLY);
		if (fd < 0) {
			print_err(errno);
			continue;
		}
		print_result(write(fd, line, len));
		close(fd);
	}
	free(line);
	fclose(in);
	return 0;
}

int main(int argc, char **argv)
{
	int newline = 0, raw = 0, rd = 0, lines = 0, opt, fd, i;
	const char *gone = NULL;
	struct stat st;
	size_t len;
	char *buf;

	while ((opt = getopt(argc, argv, "+nrRLg:")) != -1) {
		switch (opt) {
		case 'n': newline = 1; break;
		case 'r': raw = 1; break;
		case 'R': rd = 1; break;
		case 'L': lines = 1; break;
		case 'g': gone = optarg; break;
		default: goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	if (lines)
		return write_lines(argv[optind], argv[optind + 1], newline, raw);

	len = strlen(argv[optind + 1]);
	buf = malloc(len + 4096 + 2);
	if (!buf)
		return 2;
	memcpy(buf, argv[optind + 1], len + 1);
	if (!raw)
		len = unescape(buf);
	if (newline)
		buf[len++] = '\n';

	fd = open(argv[optind], rd ? O_RDONLY : O_WRONLY);
	if (fd < 0) {
		print_err(errno);
		return 0;
	}
	for (i = 0; gone && lstat(gone, &st) == 0; i++) {
		const struct timespec tick = { 0, 100 * 1000 * 1000 };

		if (i == 300) {
			print_err(ETIMEDOUT);
			return 0;
		}
		nanosleep(&tick, NULL);
	}
	if (rd) {
		print_result(read(fd, buf, 4096));
		close(fd);
		return 0;
	}
	/* Exactly one write(): a partial count is reported, never retried. */
	print_result(write(fd, buf, len));
	/* sysfs reports errors at write(); close() cannot fail here usefully. */
	close(fd);
	return 0;
usage:
	fprintf(stderr, "usage: xwrite [-n] [-r] [-R] [-L] [-g PATH] FILE STRING\n");
	return 2;
}
