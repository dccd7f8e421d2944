/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What apply, save, load and hotplug share (apply.c, save.c,
 * load.c, hotplug.c): their options, the configuration of one run, name
 * lists, and applying a rule to a device.
 */
#ifndef XPS_STEER_APPLY_H
#define XPS_STEER_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <hwloc.h>

#include "commands.h"
#include "config.h"
#include "device.h"

struct apply_opts {
	bool dry_run;
	bool if_configured;	/* apply DEV: no matching section is no error */
	const char *config;	/* --config FILE; NULL: the system's files */
	const char *topology;	/* --topology FILE; NULL: this machine */
	const char *output;	/* save --output FILE */
};

/* What one run shares between its devices. */
struct applier {
	const struct apply_opts *opts;
	struct config conf;
	hwloc_topology_t topo;	/* loaded for the first policy */
	bool topo_failed;
};

/* One device's failure does not stop the others; a failure outranks 3. */
int worse(int a, int b);
/* The options of the command line (the ones the command takes). */
void apply_opts_init(struct apply_opts *o, const struct cmd_args *a);

bool list_has(char *const *names, size_t n, const char *name);
/* Add a copy of name unless it is there already. */
void list_add(char ***names, size_t *n, const char *name);
void list_free(char **names, size_t n);
char *list_join(char *const *names, size_t n, const char *sep);
/* The interfaces in /sys/class/net, in name order. */
void present_devices(char ***names, size_t *n);

/* stdout line-buffered: under systemd and udev it shares stderr's log. */
void line_buffered(void);
/* Read the configuration: EXIT_OK or EXIT_USAGE (reported). */
int applier_init(struct applier *ap, const struct apply_opts *o);
void applier_free(struct applier *ap);

/*
 * backend = kernel for an attached device: the kernel's own xps_cpus
 * become its masks (what apply compares with, what save saves).
 */
void use_kernel_files(struct device *dev);
/* Compute the rule's masks for dev and write them where they differ. */
int apply_to(struct applier *ap, struct device *dev,
	     const struct conf_device *rule);
/* Every present device a section matches. */
int apply_present(struct applier *ap);

/*
 * Add names to dev= (the union with what is there), dropping the absent
 * names that only a name pattern of conf listed; when the module is not
 * loaded, load it with them if may_load, else change nothing.
 */
int attach_names(const struct config *conf, char *const *names, size_t n,
		 bool may_load);

#endif
