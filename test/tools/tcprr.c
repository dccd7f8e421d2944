// SPDX-License-Identifier: GPL-2.0
/*
 * tcprr - TCP 1-byte request/response over many concurrent connections
 * (the workload of netperf's TCP_RR, which Debian does not ship).
 *
 * Server: tcprr -s [-p PORT] [-w WORKERS]
 *   Listens on PORT (default 9100); WORKERS processes (default 1) share the
 *   listening socket and answer every byte read with one byte, until killed.
 * Client: tcprr -c ADDR [-p PORT] [-f FLOWS] [-t SECONDS]
 *   Opens FLOWS connections (default 64), keeps one 1-byte request
 *   outstanding on each, and counts completed transactions (request sent,
 *   1-byte response read) for SECONDS (default 5). Prints one line with the
 *   transaction count, the rate and the CPU it ran on before and after (to
 *   show that taskset pinning held). Exit 0 if every connection completed at
 *   least one transaction, 1 otherwise, 2 on usage errors.
 * Both set TCP_NODELAY, so every request and response is its own segment.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

#define MAX_FLOWS 4096

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: tcprr -s [-p PORT] [-w WORKERS]\n"
		"       tcprr -c ADDR [-p PORT] [-f FLOWS] [-t SECONDS]\n");
	exit(2);
}

static void nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		die("tcprr: TCP_NODELAY");
}

static void serve(int lfd)
{
	struct epoll_event ev, evs[256];
	char b[64];
	int ep, n, i;

	ep = epoll_create1(0);
	if (ep < 0)
		die("tcprr: epoll_create1");
	ev.events = EPOLLIN | EPOLLEXCLUSIVE;
	ev.data.fd = lfd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev) < 0)
		die("tcprr: epoll_ctl");
	for (;;) {
		n = epoll_wait(ep, evs, 256, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("tcprr: epoll_wait");
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			ssize_t r;

			if (fd == lfd) {
				int c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);

				if (c < 0)
					continue;	/* another worker got it */
				nodelay(c);
				ev.events = EPOLLIN;
				ev.data.fd = c;
				if (epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev) < 0)
					die("tcprr: epoll_ctl");
				continue;
			}
			r = read(fd, b, sizeof(b));
			if (r > 0) {
				if (write(fd, b, r) != r)
					close(fd);
			} else if (r == 0 || errno != EAGAIN) {
				close(fd);
			}
		}
	}
}

static int server(long port, long workers)
{
	struct sockaddr_in a;
	int lfd, one = 1;
	long w;

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (lfd < 0)
		die("tcprr: socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("tcprr: bind");
	if (listen(lfd, 4096) < 0)
		die("tcprr: listen");
	printf("tcprr: server on port %ld, %ld workers\n", port, workers);
	fflush(stdout);
	for (w = 1; w < workers; w++) {
		pid_t p = fork();

		if (p < 0)
			die("tcprr: fork");
		if (p == 0) {
			/* Killing the parent takes the workers along. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			serve(lfd);
			_exit(0);
		}
	}
	signal(SIGCHLD, SIG_IGN);
	serve(lfd);
	return 0;
}

static int client(const char *addr, long port, long flows, long seconds)
{
	static long done[MAX_FLOWS];
	struct epoll_event ev, evs[256];
	struct sockaddr_in a;
	long total = 0, idle = 0, f;
	double t0, t1;
	int ep, cpu0, cpu1, i, n;
	static int fds[MAX_FLOWS];
	char b = 'r';

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		fprintf(stderr, "tcprr: bad IPv4 address '%s'\n", addr);
		return 2;
	}
	ep = epoll_create1(0);
	if (ep < 0)
		die("tcprr: epoll_create1");
	for (f = 0; f < flows; f++) {
		fds[f] = socket(AF_INET, SOCK_STREAM, 0);
		if (fds[f] < 0)
			die("tcprr: socket");
		if (connect(fds[f], (struct sockaddr *)&a, sizeof(a)) < 0)
			die("tcprr: connect");
		nodelay(fds[f]);
		fcntl(fds[f], F_SETFL, O_NONBLOCK);
		ev.events = EPOLLIN;
		ev.data.u64 = f;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[f], &ev) < 0)
			die("tcprr: epoll_ctl");
	}
	cpu0 = sched_getcpu();
	t0 = tool_now();
	for (f = 0; f < flows; f++)
		if (write(fds[f], &b, 1) != 1)
			die("tcprr: write");
	for (;;) {
		t1 = tool_now();
		if (t1 - t0 >= seconds)
			break;
		n = epoll_wait(ep, evs, 256, 100);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("tcprr: epoll_wait");
		for (i = 0; i < n; i++) {
			char r;

			f = evs[i].data.u64;
			if (read(fds[f], &r, 1) != 1)
				continue;
			done[f]++;
			total++;
			if (write(fds[f], &b, 1) != 1)
				die("tcprr: write");
		}
	}
	cpu1 = sched_getcpu();
	for (f = 0; f < flows; f++)
		if (!done[f])
			idle++;
	printf("tcprr: %ld transactions in %.3f s: %.1f/s over %ld flows to %s:%ld,"
	       " cpu %d->%d, flows without a transaction %ld\n",
	       total, t1 - t0, total / (t1 - t0), flows, addr, port, cpu0, cpu1, idle);
	return idle ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL;
	long port = 9100, workers = 1, flows = 64, seconds = 5;
	int srv = 0, opt;

	while ((opt = getopt(argc, argv, "sc:p:w:f:t:")) != -1) {
		switch (opt) {
		case 's': srv = 1; break;
		case 'c': addr = optarg; break;
		case 'p': port = tool_num(optarg, 1, 65535); break;
		case 'w': workers = tool_num(optarg, 1, 64); break;
		case 'f': flows = tool_num(optarg, 1, MAX_FLOWS); break;
		case 't': seconds = tool_num(optarg, 1, 3600); break;
		default: usage();
		}
	}
	if (optind != argc || srv == !!addr)
		usage();
	return srv ? server(port, workers) : client(addr, port, flows, seconds);
}
