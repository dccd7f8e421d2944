/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The xps-steer commands, one function each, and what main.c's command
 * table and its one command-line parser hand them.
 */
#ifndef XPS_STEER_COMMANDS_H
#define XPS_STEER_COMMANDS_H

#include <stdbool.h>

/*
 * A command's command line, parsed: its operands in order (the options,
 * their arguments and a "--" left out), and its options. The parser has
 * checked the number of operands and the options the command takes.
 */
struct cmd_args {
	int argc;		/* operands */
	char **argv;
	int line_argc;		/* the command name and all after it, as given */
	char **line_argv;
	bool json;		/* --json, -j */
	bool dry_run;		/* --dry-run */
	bool if_configured;	/* --if-configured */
	bool kernel;		/* --kernel */
	const char *policy;	/* --policy POLICY */
	const char *config;	/* --config FILE */
	const char *topology;	/* --topology FILE */
	const char *output;	/* --output FILE */
	const char *trace;	/* --trace FILE */
};

int cmd_status(const struct cmd_args *a);	/* status.c */
int cmd_map(const struct cmd_args *a);		/* status.c */
int cmd_set(const struct cmd_args *a);		/* control.c */
int cmd_attach(const struct cmd_args *a);	/* control.c */
int cmd_detach(const struct cmd_args *a);	/* control.c */
int cmd_auto(const struct cmd_args *a);		/* auto.c */
int cmd_apply(const struct cmd_args *a);	/* apply.c */
int cmd_save(const struct cmd_args *a);		/* save.c */
int cmd_load(const struct cmd_args *a);		/* load.c: the systemd unit */
int cmd_hotplug(const struct cmd_args *a);	/* hotplug.c: the udev rule */
int cmd_verify(const struct cmd_args *a);	/* verify.c */

#endif
