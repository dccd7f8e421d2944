// SPDX-License-Identifier: GPL-2.0
/*
 * tapq - attach queues to a multi-queue tap device and count what it sends.
 *
 * Why: a tap device made by `ip tuntap add ... multi_queue` has no queue
 * attached, so its carrier is off and nothing reaches its xmit routine (and
 * `ip link set tap0 carrier on` is refused).  The xps_steer test for tun
 * ("refused: the driver recognises its devices by their netdev_ops pointer")
 * also needs to show the device still works afterwards: TUNSETIFF on an
 * existing tap checks exactly that pointer, so attaching here fails if the
 * device had been wrapped, and frames read here prove transmission works.
 *
 * usage: tapq -i IFNAME [-q NQUEUES] [-t SECONDS] [-n FRAMES]
 *   Attaches NQUEUES queues (IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE), prints
 *   "tapq: attached N queues to IFNAME" (flushed: callers wait for it), then
 *   reads frames from all queues until FRAMES were read or SECONDS passed,
 *   and prints "tapq: read N frames".  Exit 0 iff FRAMES were read.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_Q 16

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int main(int argc, char **argv)
{
	const char *ifname = NULL;
	long nq = 1, secs = 10, want = 1, got = 0, deadline;
	struct pollfd pfd[MAX_Q];
	static char frame[65536];
	int opt, i;

	while ((opt = getopt(argc, argv, "i:q:t:n:")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'q': nq = atol(optarg); break;
		case 't': secs = atol(optarg); break;
		case 'n': want = atol(optarg); break;
		default: goto usage;
		}
	}
	if (!ifname || strlen(ifname) >= IFNAMSIZ || nq < 1 || nq > MAX_Q ||
	    secs < 1 || want < 1 || optind != argc)
		goto usage;

	for (i = 0; i < nq; i++) {
		struct ifreq ifr;

		pfd[i].fd = open("/dev/net/tun", O_RDWR);
		if (pfd[i].fd < 0) {
			perror("tapq: open /dev/net/tun");
			return 1;
		}
		memset(&ifr, 0, sizeof(ifr));
		ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE;
		strcpy(ifr.ifr_name, ifname);
		if (ioctl(pfd[i].fd, TUNSETIFF, &ifr) < 0) {
			fprintf(stderr, "tapq: TUNSETIFF %s queue %d: %s\n",
				ifname, i, strerror(errno));
			return 1;
		}
		pfd[i].events = POLLIN;
	}
	printf("tapq: attached %ld queues to %s\n", nq, ifname);
	fflush(stdout);

	deadline = now_ms() + secs * 1000L;
	while (got < want) {
		long left = deadline - now_ms();
		int n;

		if (left <= 0)
			break;
		n = poll(pfd, nq, (int)left);
		if (n < 0 && errno != EINTR) {
			perror("tapq: poll");
			break;
		}
		for (i = 0; n > 0 && i < nq; i++)
			if ((pfd[i].revents & POLLIN) &&
			    read(pfd[i].fd, frame, sizeof(frame)) > 0)
				got++;
	}
	printf("tapq: read %ld frames\n", got);
	return got >= want ? 0 : 1;
usage:
	fprintf(stderr, "usage: tapq -i IFNAME [-q NQUEUES] [-t SECONDS] [-n FRAMES]\n");
	return 2;
}
