/* SPDX-License-Identifier: GPL-2.0 */
/* The xps-steer commands, one function each (main.c). */
#ifndef XPS_STEER_COMMANDS_H
#define XPS_STEER_COMMANDS_H

/* Each takes the arguments after the command name (argv[0] = command). */
int cmd_status(int argc, char **argv);	/* status.c */
int cmd_map(int argc, char **argv);	/* status.c */
int cmd_set(int argc, char **argv);	/* control.c */
int cmd_attach(int argc, char **argv);	/* control.c */
int cmd_detach(int argc, char **argv);	/* control.c */
int cmd_auto(int argc, char **argv);	/* auto.c */
int cmd_apply(int argc, char **argv);	/* apply.c */
int cmd_save(int argc, char **argv);	/* save.c */
int cmd_load(int argc, char **argv);	/* load.c: the systemd unit */
int cmd_hotplug(int argc, char **argv);	/* hotplug.c: the udev rule */
int cmd_verify(int argc, char **argv);	/* verify.c */

#endif
