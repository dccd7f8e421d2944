/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /etc/xps-steer.conf and /etc/xps-steer.d/<name>.conf (INI, read
 * with inih): which devices to steer, and how (a policy or a map).
 */
#ifndef XPS_STEER_CONFIG_H
#define XPS_STEER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <hwloc.h>

#include "device.h"
#include "policy.h"

enum backend_pref { PREF_AUTO, PREF_MODULE, PREF_KERNEL };

struct conf_queue {
	unsigned int index;
	hwloc_bitmap_t cpus;
};

/* One [section]: a device rule. */
struct conf_device {
	char *section;		/* [name] */
	char *file;		/* where it was read */
	int line;		/* of the section header */
	/* Matches: all that are set must match; none set: name = section. */
	char *match_name;	/* fnmatch(3) pattern */
	char *match_mac;
	char *match_driver;	/* fnmatch(3) pattern */
	char *match_bus_id;	/* PCI address, fnmatch(3) pattern */
	bool has_policy;
	enum policy policy;
	struct conf_queue *map;	/* explicit tx-<n> = <cpulist> lines */
	size_t nmap;
	enum backend_pref backend;
};

struct config {
	struct conf_device *devs;
	size_t n;
};

/*
 * Read the configuration: path, or NULL for XS_CONF_FILE then each
 * XS_CONF_DIR/<name>.conf in name order (missing ones are fine). A syntax
 * or semantic error is reported (file:line: why) and returns -EINVAL.
 */
int config_load(struct config *conf, const char *path);
void config_free(struct config *conf);
/*
 * The longest line (without its newline) a configuration file may have
 * once config_load has run: inih's line buffer, which config_load widens
 * where the library lets it.
 */
size_t config_max_line(void);
/* The rule for this device: the last section that matches it, or NULL. */
const struct conf_device *config_match(const struct config *conf,
				       const struct device *dev);
/* Does the rule name one fixed interface (only a name, no pattern)? */
const char *conf_fixed_name(const struct conf_device *rule);
/*
 * Would only a name pattern put this name in dev=: a section's name =
 * pattern (backend not kernel) matches it, and no section has it as its
 * fixed name?
 */
bool config_pattern_only(const struct config *conf, const char *name);

#endif
