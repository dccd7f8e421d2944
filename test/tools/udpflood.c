// SPDX-License-Identifier: GPL-2.0
/*
 * udpflood - send unconnected UDP datagrams from several sockets.
 *
 * Why unconnected: a connected UDP socket caches its TX queue after the first
 * packet (sk_tx_queue_set), so only the first datagram would exercise queue
 * selection.  With sendto() on an unconnected socket the stack has no cached
 * route/queue and the device's queue is chosen again for every packet, which
 * is what the xps_steer tests need to observe.
 *
 * Why several sockets: each socket has its own source port, hence its own
 * flow hash; NFLOWS sockets used round-robin spread the packets over NFLOWS
 * flows so that "several queues for this CPU" and "stock hashing" can be seen
 * to use more than one queue.  With -P the source ports are fixed
 * (BASE..BASE+NFLOWS-1), so two runs (e.g. on two devices in two network
 * namespaces with the same addresses) send the very same flows in the very
 * same order, and their per-packet queue sequences can be compared.
 *
 * With -c the sockets are connected instead: a connected socket has a cached
 * route, and the stack then caches the chosen TX queue in the socket
 * (sk_tx_queue_set) and keeps it (UDP never sets ooo_okay).  -m CPU moves
 * the sender to CPU after half the packets, so a test can see whether the
 * second half keeps the queue chosen on the first CPU, as the kernel's XPS
 * does, or is steered again.
 *
 * With -t SECONDS the run is time-bounded instead: it sends until SECONDS
 * of CLOCK_MONOTONIC have passed (checked every 32 packets; -n is then
 * ignored) and also prints the elapsed time and packets per second. Under
 * QEMU -icount that clock is guest time, a function of executed guest
 * instructions, so the rate is an exact per-packet cost (test/bench.sh).
 *
 * With -S STOPFILE it sends bursts of COUNT packets, GAP milliseconds apart
 * (-g, default 100), until STOPFILE exists (checked after each burst): one
 * process for the stress suite's background traffic, which started a sender
 * per burst before (on the debug kernel each start cost ~0.1 s of a guest
 * whose every vCPU runs on one host thread, slowing the tests under it
 * about sixfold).
 *
 * With -q PRIO every socket sends at priority PRIO (SO_PRIORITY, 0-6
 * without CAP_NET_ADMIN), which a device with traffic classes (mqprio)
 * maps to a class and so to a range of queues.
 *
 * usage: udpflood -d ADDR [-p PORT] [-f NFLOWS] [-n COUNT] [-s SIZE]
 *                 [-P BASEPORT] [-I IFNAME] [-c] [-m CPU] [-t SECONDS]
 *                 [-q PRIO] [-S STOPFILE [-g GAP]]
 * Prints one line: what was sent, from which CPU (sched_getcpu() before and
 * after, to show taskset pinning held), and send errors if any.
 * Exit 0 if at least one packet was sent, 1 otherwise, 2 on usage errors.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

#define MAX_FLOWS 512

static void move_to_cpu(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("udpflood: sched_setaffinity");
		exit(1);
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: udpflood -d ADDR [-p PORT] [-f NFLOWS] [-n COUNT] [-s SIZE]\n"
		"                [-P BASEPORT] [-I IFNAME] [-c] [-m CPU] [-t SECONDS]\n"
		"                [-q PRIO] [-S STOPFILE [-g GAP]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *daddr = NULL, *ifname = NULL, *stopfile = NULL;
	long port = 9000, nflows = 64, count = 800, size = 64, baseport = 0;
	long gap_ms = 100, total = 0;
	long migrate = -1, seconds = 0, prio = -1;
	double t0 = 0, t1 = 0;
	int connected = 0, cpu_mid = -1;
	static int fds[MAX_FLOWS];
	static char buf[65536];
	struct sockaddr_in dst;
	long i, sent = 0, errs = 0;
	int first_err = 0, cpu0, cpu1, opt;

	while ((opt = getopt(argc, argv, "d:p:f:n:s:P:I:cm:t:q:S:g:")) != -1) {
		switch (opt) {
		case 'd': daddr = optarg; break;
		case 'p': port = tool_num(optarg, 1, 65535); break;
		case 'f': nflows = tool_num(optarg, 1, MAX_FLOWS); break;
		case 'n': count = tool_num(optarg, 1, 100000000); break;
		case 's': size = tool_num(optarg, 0, 65507); break;
		case 'P': baseport = tool_num(optarg, 1, 65535); break;
		case 'I': ifname = optarg; break;
		case 'c': connected = 1; break;
		case 'm': migrate = tool_num(optarg, 0, CPU_SETSIZE - 1); break;
		case 't': seconds = tool_num(optarg, 1, 3600); break;
		case 'q': prio = tool_num(optarg, 0, 15); break;
		case 'S': stopfile = optarg; break;
		case 'g': gap_ms = tool_num(optarg, 0, 60000); break;
		default: usage();
		}
	}
	if (!daddr || optind != argc || (stopfile && (seconds || migrate >= 0)))
		usage();
	if (baseport && baseport + nflows - 1 > 65535) {
		fprintf(stderr, "udpflood: -P %ld + %ld flows exceeds port 65535\n",
			baseport, nflows);
		return 2;
	}

	memset(&dst, 0, sizeof(dst));
	dst.sin_family = AF_INET;
	dst.sin_port = htons(port);
	if (inet_pton(AF_INET, daddr, &dst.sin_addr) != 1) {
		fprintf(stderr, "udpflood: bad IPv4 address '%s'\n", daddr);
		return 2;
	}
	memset(buf, 'x', sizeof(buf));

	for (i = 0; i < nflows; i++) {
		struct sockaddr_in src;

		fds[i] = socket(AF_INET, SOCK_DGRAM, 0);
		if (fds[i] < 0) {
			perror("udpflood: socket");
			return 1;
		}
		/*
		 * SO_BINDTODEVICE pins the egress device without needing a
		 * route that prefers it (useful when two devices share a
		 * subnet); optional.
		 */
		if (ifname && setsockopt(fds[i], SOL_SOCKET, SO_BINDTODEVICE,
					 ifname, strlen(ifname) + 1) < 0) {
			perror("udpflood: SO_BINDTODEVICE");
			return 1;
		}
		if (prio >= 0 && setsockopt(fds[i], SOL_SOCKET, SO_PRIORITY,
					    &(int){ (int)prio }, sizeof(int)) < 0) {
			perror("udpflood: SO_PRIORITY");
			return 1;
		}
		/* Bind now so every flow has its source port before sending. */
		memset(&src, 0, sizeof(src));
		src.sin_family = AF_INET;
		src.sin_port = htons(baseport ? baseport + i : 0);
		if (bind(fds[i], (struct sockaddr *)&src, sizeof(src)) < 0) {
			perror("udpflood: bind");
			return 1;
		}
		if (connected && connect(fds[i], (struct sockaddr *)&dst,
					 sizeof(dst)) < 0) {
			perror("udpflood: connect");
			return 1;
		}
	}

	if (seconds) {
		count = -1;	/* until the deadline */
		migrate = -1;
	}
	cpu0 = sched_getcpu();
	t0 = tool_now();
	for (;;) {	/* bursts: one, or until -S's file exists */
		struct timespec gap = { gap_ms / 1000,
					gap_ms % 1000 * 1000000 };
		struct stat st;

		for (i = 0; count < 0 || i < count; i++) {
			ssize_t n;
			long k = total + i;	/* flows run on across bursts */

			if (seconds && !(i & 31) &&
			    (t1 = tool_now()) - t0 >= seconds)
				break;

			if (migrate >= 0 && i == count / 2) {
				move_to_cpu(migrate);
				cpu_mid = sched_getcpu();
			}
			/* Round-robin: consecutive packets, different flows. */
			if (connected)
				n = send(fds[k % nflows], buf, size, 0);
			else
				n = sendto(fds[k % nflows], buf, size, 0,
					   (struct sockaddr *)&dst, sizeof(dst));
			if (n < 0) {
				/* ENOBUFS/EAGAIN under pressure: count, go on. */
				if (!errs++)
					first_err = errno;
			} else {
				sent++;
			}
		}
		if (!stopfile)
			break;
		total += count;
		if (stat(stopfile, &st) == 0) {
			count = total;
			break;
		}
		nanosleep(&gap, NULL);
	}
	cpu1 = sched_getcpu();
	if (seconds)
		count = i;

	printf("udpflood: sent %ld of %ld packets (%ld bytes payload) to %s:%ld"
	       " from %ld %sflows, cpu %d->%d, errors %ld%s%s\n",
	       sent, count, size, daddr, port, nflows,
	       connected ? "connected " : "", cpu0, cpu1, errs,
	       errs ? " first: " : "", errs ? strerror(first_err) : "");
	if (seconds)
		printf("udpflood: %ld packets in %.6f s: %.1f packets/s\n",
		       sent, t1 - t0, sent / (t1 - t0));
	if (migrate >= 0)
		printf("udpflood: moved to cpu %d after %ld packets\n", cpu_mid,
		       count / 2);
	return sent > 0 ? 0 : 1;
}
