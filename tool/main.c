// SPDX-License-Identifier: GPL-2.0
/*
 * xps-steer - manage xps_steer's transmit queue maps: status, set,
 * automatic maps from the machine's topology, a configuration that
 * persists, and a live CPU x queue view. See xps-steer(8).
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "common.h"

#ifndef XPS_STEER_VERSION
#define XPS_STEER_VERSION "unknown"
#endif

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{ "status", cmd_status, "status [DEV...] [--json]" },
	{ "map", cmd_map, "map DEV [--json]" },
	{ "set", cmd_set, "set [--kernel] DEV QUEUE CPULIST" },
	{ "attach", cmd_attach, "attach DEV..." },
	{ "detach", cmd_detach, "detach DEV..." },
	{ "auto", cmd_auto,
	  "auto DEV --policy one-to-one|cache|numa|irq [--dry-run] [--json] [--topology FILE]" },
	{ "apply", cmd_apply,
	  "apply [DEV...] [--dry-run] [--if-configured] [--config FILE] [--topology FILE]" },
	{ "save", cmd_save, "save [DEV...] [--output FILE] [--config FILE]" },
	{ "verify", cmd_verify, "verify DEV [SECONDS] [--json] [--trace FILE]" },
	{ "load", cmd_load, "load [--config FILE]" },
	{ "hotplug", cmd_hotplug, "hotplug IFNAME [--config FILE]" },
};

static void print_usage(FILE *out)
{
	fprintf(out, "usage: %s COMMAND [ARGS]\n\ncommands:\n", prog_name);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "  %s %s\n", prog_name, commands[i].usage);
	fprintf(out, "  %s --version | --help\n\nSee xps-steer(8).\n",
		prog_name);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("xps-steer %s\n", XPS_STEER_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	err_msg("unknown command '%s'", argv[1]);
	print_usage(stderr);
	return EXIT_USAGE;
}
