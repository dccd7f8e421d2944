// SPDX-License-Identifier: GPL-2.0
/*
 * privdrop - run a command without one capability, or as another user.
 *
 * Why: the xps_cpus permission tests need (a) root WITHOUT CAP_NET_ADMIN,
 * which must get EPERM from the store like the kernel's own file, and
 * (b) an unprivileged uid, which must get EACCES at open (mode 0644).
 * util-linux setpriv does both, but the guest may only have busybox's
 * setpriv, which cannot drop a capability from the bounding set nor change
 * uid.  For root, exec() recomputes permitted = inheritable | bounding (file
 * capabilities are implicitly full), so the capability must leave both the
 * bounding and the inheritable set, not just the effective one.
 *
 * usage: privdrop [-c CAPNUM]... [-u UID] CMD [ARGS...]
 *   -c CAPNUM  drop capability CAPNUM (12 = CAP_NET_ADMIN) from the bounding,
 *              inheritable, permitted, effective and ambient sets
 *   -u UID     setgroups({}), setgid(UID), setuid(UID) (clears all caps)
 */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int drop_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct data[2];
	int i = cap / 32;
	unsigned int bit = 1u << (cap % 32);

	if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
		perror("privdrop: PR_CAPBSET_DROP");
		return -1;
	}
	/* No glibc wrapper without libcap: use the raw syscalls. */
	if (syscall(SYS_capget, &hdr, data) < 0) {
		perror("privdrop: capget");
		return -1;
	}
	data[i].effective &= ~bit;
	data[i].permitted &= ~bit;
	data[i].inheritable &= ~bit;
	if (syscall(SYS_capset, &hdr, data) < 0) {
		perror("privdrop: capset");
		return -1;
	}
	/* Ambient caps survive exec; make sure none is left (EINVAL = old kernel). */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL) {
		perror("privdrop: PR_CAP_AMBIENT_CLEAR_ALL");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long uid = -1;
	char *end;
	int opt;

	while ((opt = getopt(argc, argv, "+c:u:")) != -1) {
		switch (opt) {
		case 'c': {
			long cap = strtol(optarg, &end, 0);

			if (*end || cap < 0 || cap > 63)
				goto usage;
			if (drop_cap((int)cap))
				return 126;
			break;
		}
		case 'u':
			uid = strtol(optarg, &end, 0);
			if (*end || uid < 0)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc)
		goto usage;
	if (uid >= 0) {
		if (setgroups(0, NULL) < 0 || setgid((gid_t)uid) < 0 ||
		    setuid((uid_t)uid) < 0) {
			perror("privdrop: setgroups/setgid/setuid");
			return 126;
		}
	}
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "privdrop: exec %s: %s\n", argv[optind], strerror(errno));
	return 127;
usage:
	fprintf(stderr, "usage: privdrop [-c CAPNUM]... [-u UID] CMD [ARGS...]\n");
	return 2;
}
