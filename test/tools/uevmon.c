// SPDX-License-Identifier: GPL-2.0
/*
 * uevmon - print the kernel's uevents of one subsystem, one line each.
 *
 * Why not `udevadm monitor --kernel --property`: the guest is an
 * initramfs without systemd's udevadm, and the test wants one line per
 * event that it can compare as a string, plus what a udev rule run for
 * an "add" event would find in sysfs.
 *
 * usage: uevmon [-s SUBSYSTEM] [-n COUNT] [-t SECONDS]
 *   Listens on NETLINK_KOBJECT_UEVENT (the kernel's multicast group 1),
 *   prints "uevmon: listening" on stderr once bound, then for every event
 *   whose SUBSYSTEM is SUBSYSTEM (default xps_steer) one line on stdout:
 *   the event's KEY=VALUE pairs in the kernel's order, space-separated,
 *   SEQNUM left out; for an "add" event then " tree=N", the number of
 *   tx-<n>/xps_cpus files under /sys<DEVPATH> when the event was read
 *   (a rule run for the event sees at least these). A lost event (the
 *   socket overflowed) prints "uevmon: events lost". Stops after COUNT
 *   events (default: never), after SECONDS (default 600), or on SIGTERM.
 *   Exits 0, or 1 if the socket cannot be set up.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tool.h"

/* tx-<n> directories of DIR that hold an xps_cpus file. */
static int tree_count(const char *devpath)
{
	char path[4096];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/sys%s", devpath);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "tx-", 3))
			continue;
		snprintf(path, sizeof(path), "/sys%s/%s/xps_cpus", devpath,
			 e->d_name);
		if (access(path, R_OK) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* One event, buf[0..len): "action@devpath" then NUL-separated KEY=VALUE. */
static int show(const char *buf, size_t len, const char *subsystem)
{
	const char *p, *end = buf + len, *action = "", *devpath = "";
	char line[8192];
	size_t at = 0;
	int match = 0;

	for (p = buf + strnlen(buf, len) + 1; p < end; p += strlen(p) + 1) {
		if (!strncmp(p, "SUBSYSTEM=", 10))
			match = !strcmp(p + 10, subsystem);
		else if (!strncmp(p, "ACTION=", 7))
			action = p + 7;
		else if (!strncmp(p, "DEVPATH=", 8))
			devpath = p + 8;
		if (!strncmp(p, "SEQNUM=", 7))
			continue;
		at += snprintf(line + at, sizeof(line) - at, "%s%s",
			       at ? " " : "", p);
		if (at >= sizeof(line))
			at = sizeof(line) - 1;
	}
	if (!match)
		return 0;
	if (!strcmp(action, "add"))
		snprintf(line + at, sizeof(line) - at, " tree=%d",
			 tree_count(devpath));
	printf("%s\n", line);
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	const char *subsystem = "xps_steer";
	long count = -1, seconds = 600;
	int fd, opt, size = 4 << 20;
	static char buf[65536];
	double end;

	while ((opt = getopt(argc, argv, "s:n:t:")) != -1) {
		switch (opt) {
		case 's': subsystem = optarg; break;
		case 'n': count = tool_num(optarg, 1, 1000000); break;
		case 't': seconds = tool_num(optarg, 1, 86400); break;
		default:
			fprintf(stderr, "usage: uevmon [-s SUBSYSTEM] [-n COUNT] [-t SECONDS]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0) {
		perror("uevmon: socket");
		return 1;
	}
	/* As root, beyond rmem_max: a burst must not overflow the socket. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("uevmon: bind");
		return 1;
	}
	fprintf(stderr, "uevmon: listening\n");

	end = tool_now() + seconds;
	while (count && tool_now() < end) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			if (errno == ENOBUFS)
				printf("uevmon: events lost\n");
			continue;
		}
		buf[n] = '\0';
		if (show(buf, n, subsystem) && count > 0)
			count--;
	}
	return 0;
}
