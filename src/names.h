/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device list of dev= ("eth0:guard,eth1"): parsing into names, each
 * with the mode it was asked in. Pure logic
 * on caller-owned buffers, like map.c, so the same code also builds in
 * userspace for the fuzzer (test/fuzz/).
 */
#ifndef XPS_STEER_NAMES_H
#define XPS_STEER_NAMES_H

#include <linux/netdevice.h>	/* IFNAMSIZ, dev_valid_name() */
#include <linux/types.h>

/* How many devices can be attached at once (and named by dev=). */
#define XPS_STEER_MAX_DEVS	32

/*
 * The suffix that asks for guard mode: ':' cannot be part of a device
 * name (dev_valid_name()), so "eth0:guard" is unambiguous.
 */
#define XPS_STEER_GUARD_SUFFIX	":guard"

struct xps_steer_names {
	unsigned int nr;
	char name[XPS_STEER_MAX_DEVS][IFNAMSIZ];	/* without the suffix */
	bool guard[XPS_STEER_MAX_DEVS];			/* asked as name:guard */
};

/* Why a list was refused. */
enum xps_steer_names_fault {
	XPS_STEER_NAMES_OK,
	XPS_STEER_NAMES_EMPTY,		/* an empty entry */
	XPS_STEER_NAMES_TOO_LONG,	/* IFNAMSIZ characters or more */
	XPS_STEER_NAMES_INVALID,	/* dev_valid_name() refuses it */
	XPS_STEER_NAMES_TWICE,		/* named earlier in the list */
	XPS_STEER_NAMES_TOO_MANY,	/* the XPS_STEER_MAX_DEVS+1st */
	XPS_STEER_NAMES_BAD_MODE,	/* a ':' not followed by "guard" */
};

/* The first bad entry of a refused list, for the caller's log line. */
struct xps_steer_names_err {
	enum xps_steer_names_fault fault;
	const char *entry;	/* inside the text */
};

int xps_steer_names_parse(struct xps_steer_names *list, char *text,
			  struct xps_steer_names_err *err);
bool xps_steer_names_has(const struct xps_steer_names *list,
			 const char *name);
bool xps_steer_names_guard(const struct xps_steer_names *list,
			   const char *name);

#endif /* XPS_STEER_NAMES_H */
