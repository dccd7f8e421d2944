// SPDX-License-Identifier: GPL-2.0
/*
 * xps-steer - manage xps_steer's transmit queue maps: status, set,
 * automatic maps from the machine's topology, a configuration that
 * persists, and a live CPU x queue view. See xps-steer(8).
 *
 * The front door: one table of the commands (their operands, options and
 * summaries, from which every usage text is printed) and one parser for
 * every command's command line. Options may come before, between or after
 * the operands; "--" ends them. --help and -h print the command's usage.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "common.h"
#include "device.h"

#ifndef XPS_STEER_VERSION
#define XPS_STEER_VERSION "unknown"
#endif

/* The options, in the order the usage lines show them. */
enum opt_id {
	OPT_POLICY,
	OPT_DRY_RUN,
	OPT_IF_CONFIGURED,
	OPT_JSON,
	OPT_KERNEL,
	OPT_OUTPUT,
	OPT_CONFIG,
	OPT_TOPOLOGY,
	OPT_TRACE,
	OPT_HELP,		/* every command's */
	NOPTS
};

#define O(id)		(1u << (id))
/* getopt_long's value for a long option: above every short one. */
#define OPT_VAL		256

static const struct cmd_option {
	const char *name;	/* --name */
	char short_name;	/* -c; 0: none */
	const char *arg;	/* the argument's name; NULL: takes none */
	const char *help;
} options[NOPTS] = {
	[OPT_POLICY] = { "policy", 0, "POLICY",
			 "one-to-one, cache, numa or irq: how the map is computed" },
	[OPT_DRY_RUN] = { "dry-run", 0, NULL, "compute and print, write nothing" },
	[OPT_IF_CONFIGURED] = { "if-configured", 0, NULL,
				"a DEV that no section matches is no error" },
	[OPT_JSON] = { "json", 'j', NULL,
		       "print one JSON document instead of the text" },
	[OPT_KERNEL] = { "kernel", 0, NULL,
			 "write the kernel's own xps_cpus, of any device" },
	[OPT_OUTPUT] = { "output", 0, "FILE",
			 "write FILE instead of " XS_CONF_DIR "/90-saved.conf" },
	[OPT_CONFIG] = { "config", 0, "FILE",
			 "read FILE instead of " XS_CONF_FILE " and " XS_CONF_DIR "/*.conf" },
	[OPT_TOPOLOGY] = { "topology", 0, "FILE",
			   "the hwloc XML topology in FILE instead of this machine's" },
	[OPT_TRACE] = { "trace", 0, "FILE",
			"analyse a saved trace instead of recording one" },
	[OPT_HELP] = { "help", 'h', NULL, "print this help and exit" },
};

#define ANY_NUMBER	-1

static const struct command {
	const char *name;
	int (*run)(const struct cmd_args *a);
	const char *operands;	/* as the usage shows them */
	int min_args, max_args;	/* how many operands */
	unsigned int opts;	/* O(OPT_...) it takes, besides --help */
	unsigned int required;	/* of those, the ones it cannot do without */
	const char *summary;
} commands[] = {
	{ "status", cmd_status, "[DEV...]", 0, ANY_NUMBER, O(OPT_JSON), 0,
	  "each device's state, backend, mode, queue masks and counters" },
	{ "map", cmd_map, "DEV", 1, 1, O(OPT_JSON), 0,
	  "the map as operators read it: each CPU's transmit queues" },
	{ "set", cmd_set, "DEV QUEUE CPULIST", 3, 3, O(OPT_KERNEL), 0,
	  "set the CPUs of one queue (QUEUE: N or tx-N; CPULIST: 0-3,8, or none)" },
	{ "attach", cmd_attach, "DEV[" DEV_GUARD_SUFFIX "]...", 1, ANY_NUMBER, 0, 0,
	  "add devices to the module's device list (loading the module)" },
	{ "detach", cmd_detach, "DEV...", 1, ANY_NUMBER, 0, 0,
	  "remove devices from the module's device list" },
	{ "auto", cmd_auto, "DEV", 1, 1,
	  O(OPT_POLICY) | O(OPT_DRY_RUN) | O(OPT_JSON) | O(OPT_TOPOLOGY),
	  O(OPT_POLICY),
	  "compute a map for the device's queues in use, print it, write it" },
	{ "apply", cmd_apply, "[DEV...]", 0, ANY_NUMBER,
	  O(OPT_DRY_RUN) | O(OPT_IF_CONFIGURED) | O(OPT_CONFIG) | O(OPT_TOPOLOGY),
	  0, "write the configured maps where they differ from the live ones" },
	{ "save", cmd_save, "[DEV...]", 0, ANY_NUMBER,
	  O(OPT_OUTPUT) | O(OPT_CONFIG), 0,
	  "record the live maps as a configuration file" },
	{ "verify", cmd_verify, "DEV [SECONDS]", 1, 2,
	  O(OPT_JSON) | O(OPT_TRACE), 0,
	  "check each CPU's packets against the map, from live traffic or a trace" },
	{ "load", cmd_load, "", 0, 0, O(OPT_CONFIG) | O(OPT_TOPOLOGY), 0,
	  "at boot: list the configured devices, load the module, apply" },
	{ "hotplug", cmd_hotplug, "IFNAME", 1, 1,
	  O(OPT_CONFIG) | O(OPT_TOPOLOGY), 0,
	  "for udev: list a configured device that appeared, or apply its map" },
};

/* "xps-steer CMD OPERANDS [--opt ARG]...": the command's usage line. */
static void print_usage_line(FILE *out, const struct command *c)
{
	fprintf(out, "%s %s", prog_name, c->name);
	if (*c->operands)
		fprintf(out, " %s", c->operands);
	for (int i = 0; i < NOPTS; i++) {
		const struct cmd_option *o = &options[i];
		bool req = c->required & O(i);

		if (!(c->opts & O(i)))
			continue;
		fprintf(out, " %s--%s%s%s%s", req ? "" : "[", o->name,
			o->arg ? " " : "", o->arg ? o->arg : "", req ? "" : "]");
	}
	fputc('\n', out);
}

/* The left column of an option's line: "-j, --json", "    --config FILE". */
static char *option_label(const struct cmd_option *o)
{
	return xasprintf("%c%c%s--%s%s%s", o->short_name ? '-' : ' ',
			 o->short_name ? o->short_name : ' ',
			 o->short_name ? ", " : "  ", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
}

/* A command's usage, summary and options: its --help, and after errors. */
static void print_command_usage(FILE *out, const struct command *c)
{
	unsigned int opts = c->opts | O(OPT_HELP);
	int width = 0;

	fputs("usage: ", out);
	print_usage_line(out, c);
	fprintf(out, "%c%s.\n\noptions:\n", toupper((unsigned char)c->summary[0]),
		c->summary + 1);
	for (int i = 0; i < NOPTS; i++) {
		char *label = option_label(&options[i]);

		if (opts & O(i) && (int)strlen(label) > width)
			width = strlen(label);
		free(label);
	}
	for (int i = 0; i < NOPTS; i++) {
		char *label;

		if (!(opts & O(i)))
			continue;
		label = option_label(&options[i]);
		fprintf(out, "  %-*s  %s\n", width, label, options[i].help);
		free(label);
	}
	fputs("\nOptions may come before, between or after the arguments; -- ends them.\n"
	      "See xps-steer(8).\n", out);
}

static void print_usage(FILE *out)
{
	fprintf(out, "usage: %s COMMAND [ARGUMENTS] [OPTIONS]\n\ncommands:\n",
		prog_name);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n%s COMMAND --help (or -h) prints the command's usage and options;\n"
		"%s --version, the version. See xps-steer(8).\n",
		prog_name, prog_name);
}

static void set_option(struct cmd_args *a, enum opt_id id, char *arg)
{
	switch (id) {
	case OPT_POLICY:
		a->policy = arg;
		break;
	case OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case OPT_IF_CONFIGURED:
		a->if_configured = true;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_KERNEL:
		a->kernel = true;
		break;
	case OPT_OUTPUT:
		a->output = arg;
		break;
	case OPT_CONFIG:
		a->config = arg;
		break;
	case OPT_TOPOLOGY:
		a->topology = arg;
		break;
	case OPT_TRACE:
		a->trace = arg;
		break;
	default:
		break;
	}
}

/* What getopt_long refused, said; argv[optind - 1] is the word it took. */
static void bad_option(int ch, char **argv)
{
	if (ch == ':' && optopt >= OPT_VAL)
		err_msg("option '--%s' needs an argument",
			options[optopt - OPT_VAL].name);
	else if (ch == ':')
		err_msg("option '-%c' needs an argument", optopt);
	else if (optopt >= OPT_VAL)
		err_msg("option '--%s' takes no argument",
			options[optopt - OPT_VAL].name);
	else if (optopt)
		err_msg("unknown option '-%c'", optopt);
	else
		err_msg("unknown option '%s'", argv[optind - 1]);
}

enum { PARSED = -1, HELPED = -2 };

/*
 * The command line after the program name (argv[0]: the command) into a:
 * PARSED, HELPED (the usage is printed), or EXIT_USAGE after saying why
 * and printing the usage on stderr.
 */
static int parse_command_line(const struct command *c, int argc, char **argv,
			      struct cmd_args *a)
{
	unsigned int opts = c->opts | O(OPT_HELP), given = 0;
	struct option longopts[NOPTS + 1];
	/*
	 * '-': each operand comes back in order as an "option" 1, so options
	 * may be anywhere, and that whatever POSIXLY_CORRECT says; ':': a
	 * missing argument is told apart, and getopt prints nothing.
	 */
	char shortopts[2 + 2 * NOPTS + 1] = "-:";
	size_t nlong = 0, nshort = 2;
	int ch;

	memset(a, 0, sizeof(*a));
	a->line_argc = argc;
	a->line_argv = argv;
	a->argv = xcalloc(argc + 1, sizeof(*a->argv));
	for (int i = 0; i < NOPTS; i++) {
		const struct cmd_option *o = &options[i];

		if (!(opts & O(i)))
			continue;
		longopts[nlong++] = (struct option){
			o->name, o->arg ? required_argument : no_argument,
			NULL, OPT_VAL + i
		};
		if (o->short_name) {
			shortopts[nshort++] = o->short_name;
			if (o->arg)
				shortopts[nshort++] = ':';
		}
	}
	memset(&longopts[nlong], 0, sizeof(longopts[nlong]));
	shortopts[nshort] = '\0';

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		int id = ch - OPT_VAL;

		if (ch == 1) {
			a->argv[a->argc++] = optarg;
			continue;
		}
		if (ch == '?' || ch == ':') {
			bad_option(ch, argv);
			goto usage;
		}
		for (int i = 0; ch < OPT_VAL && i < NOPTS; i++)
			if (options[i].short_name == ch)
				id = i;
		if (id == OPT_HELP) {
			print_command_usage(stdout, c);
			return HELPED;
		}
		set_option(a, id, optarg);
		given |= O(id);
	}
	/* After "--": operands, whatever they look like. */
	while (optind < argc)
		a->argv[a->argc++] = argv[optind++];

	if (a->argc < c->min_args) {
		err_msg("missing arguments");
		goto usage;
	}
	if (c->max_args != ANY_NUMBER && a->argc > c->max_args) {
		err_msg("too many arguments ('%s')", a->argv[c->max_args]);
		goto usage;
	}
	for (int i = 0; i < NOPTS; i++) {
		if (c->required & ~given & O(i)) {
			err_msg("--%s is required", options[i].name);
			goto usage;
		}
	}
	return PARSED;
usage:
	print_command_usage(stderr, c);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const struct command *c = NULL;
	struct cmd_args a;
	int ret;

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
			c = &commands[i];
	if (!c) {
		err_msg("unknown command '%s'", argv[1]);
		print_usage(stderr);
		return EXIT_USAGE;
	}
	cmd_name = c->name;
	ret = parse_command_line(c, argc - 1, argv + 1, &a);
	if (ret == PARSED)
		ret = c->run(&a);
	else if (ret == HELPED)
		ret = EXIT_OK;
	free(a.argv);
	return ret;
}
