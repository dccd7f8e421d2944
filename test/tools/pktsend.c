// SPDX-License-Identifier: GPL-2.0
/*
 * pktsend - send IPv4/UDP frames on an AF_PACKET socket with
 * PACKET_QDISC_BYPASS.
 *
 * Why: with PACKET_QDISC_BYPASS the packet socket hands frames straight to
 * the driver (packet_direct_xmit -> packet_pick_tx_queue), and that path
 * calls the device's ndo_select_queue without holding rcu_read_lock, unlike
 * dev_queue_xmit.  The xps_steer stress suite runs these senders while the
 * module detaches, to show that path never runs into freed code or maps.
 *
 * The frames are complete Ethernet/IPv4/UDP datagrams (IP header checksum
 * set, UDP checksum 0), so the receiving stack counts each one (Udp
 * InDatagrams or NoPorts in /proc/net/snmp) and the caller can prove that
 * every frame reported sent was delivered.
 *
 * usage: pktsend -i IFNAME -m DSTMAC -s SRCIP -d DSTIP [-p PORT] [-n COUNT]
 *                [-t SECONDS] [-f NFLOWS] [-e ETHERTYPE]
 *   Sends until COUNT frames were sent or SECONDS passed (whichever first;
 *   defaults 1000 frames, no time limit), source ports PORT+1000 ..
 *   PORT+1000+NFLOWS-1 round-robin (default 16 flows). -e sends the same
 *   frames with another ethertype (hex, e.g. 88b5: the guard-mode tests'
 *   bnxlike driver sends those to its special queue), in the Ethernet
 *   header and as the packet socket's protocol (skb->protocol).
 * Prints "pktsend: sent N errors E (first error: ...) cpu A->B" and exits 0
 * if at least one frame was sent, 1 otherwise, 2 on usage errors.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

#define PAYLOAD 64

static void usage(void)
{
	fprintf(stderr,
		"usage: pktsend -i IFNAME -m DSTMAC -s SRCIP -d DSTIP [-p PORT] [-n COUNT]\n"
		"               [-t SECONDS] [-f NFLOWS] [-e ETHERTYPE]\n");
	exit(2);
}

static uint16_t ip_csum(const void *buf, size_t len)
{
	const uint16_t *p = buf;
	uint32_t sum = 0;

	for (; len > 1; len -= 2)
		sum += *p++;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

int main(int argc, char **argv)
{
	const char *ifname = NULL, *dmac = NULL, *sip = NULL, *dip = NULL;
	long count = 1000, flows = 16, port = 9000, sent = 0, errors = 0;
	double secs = 0, end = 0;
	int first_err = 0, cpu0, fd, one = 1, opt;
	unsigned long ethertype = ETH_P_IP;
	char *endp;
	unsigned int mac[6];
	unsigned char frame[sizeof(struct ether_header) + sizeof(struct iphdr) +
			    sizeof(struct udphdr) + PAYLOAD];
	struct ether_header *eth = (void *)frame;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);
	struct sockaddr_ll sll;

	while ((opt = getopt(argc, argv, "i:m:s:d:p:n:t:f:e:")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'm': dmac = optarg; break;
		case 's': sip = optarg; break;
		case 'd': dip = optarg; break;
		case 'p': port = tool_num(optarg, 1, 65535); break;
		case 'n': count = tool_num(optarg, 1, 1000000000); break;
		case 't': secs = atof(optarg); break;
		case 'f': flows = tool_num(optarg, 1, 4096); break;
		case 'e':
			ethertype = strtoul(optarg, &endp, 16);
			if (*endp || ethertype < 0x600 || ethertype > 0xffff)
				usage();
			break;
		default: usage();
		}
	}
	if (!ifname || !dmac || !sip || !dip || port + 1000 + flows > 65535 ||
	    sscanf(dmac, "%x:%x:%x:%x:%x:%x", &mac[0], &mac[1], &mac[2],
		   &mac[3], &mac[4], &mac[5]) != 6)
		usage();

	memset(frame, 0, sizeof(frame));
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons((uint16_t)ethertype);
	sll.sll_ifindex = if_nametoindex(ifname);
	sll.sll_halen = ETH_ALEN;
	if (!sll.sll_ifindex) {
		perror("pktsend: if_nametoindex");
		return 1;
	}
	for (int i = 0; i < 6; i++)
		eth->ether_dhost[i] = sll.sll_addr[i] = mac[i];
	eth->ether_type = htons((uint16_t)ethertype);
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->tot_len = htons(sizeof(*ip) + sizeof(*udp) + PAYLOAD);
	if (inet_pton(AF_INET, sip, &ip->saddr) != 1 ||
	    inet_pton(AF_INET, dip, &ip->daddr) != 1)
		usage();
	udp->dest = htons(port);
	udp->len = htons(sizeof(*udp) + PAYLOAD);

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("pktsend: socket(AF_PACKET)");
		return 1;
	}
	if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) < 0) {
		perror("pktsend: PACKET_QDISC_BYPASS");
		return 1;
	}
	{	/* the source MAC: the interface's own */
		struct ifreq ifr;

		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
		if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
			perror("pktsend: SIOCGIFHWADDR");
			return 1;
		}
		memcpy(eth->ether_shost, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	}

	cpu0 = sched_getcpu();
	if (secs > 0)
		end = tool_now() + secs;
	for (long i = 0; sent < count; i++) {
		if (end && (i & 63) == 0 && tool_now() >= end)
			break;
		ip->id = htons((uint16_t)i);
		ip->check = 0;
		ip->check = ip_csum(ip, sizeof(*ip));
		udp->source = htons(port + 1000 + i % flows);
		if (sendto(fd, frame, sizeof(frame), 0, (struct sockaddr *)&sll,
			   sizeof(sll)) == (ssize_t)sizeof(frame)) {
			sent++;
		} else {
			if (!errors)
				first_err = errno;
			errors++;
			/* the device went down or away: do not spin */
			if (errno == ENXIO || errno == ENODEV || errno == ENETDOWN)
				usleep(1000);
			if (errors > 1000000)
				break;
		}
	}
	printf("pktsend: sent %ld errors %ld (first error: %s) cpu %d->%d\n",
	       sent, errors, errors ? strerror(first_err) : "none", cpu0,
	       sched_getcpu());
	close(fd);
	return sent ? 0 : 1;
}
