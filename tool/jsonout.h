/* SPDX-License-Identifier: GPL-2.0 */
/* --json output with json-c: one document per command. */
#ifndef XPS_STEER_JSONOUT_H
#define XPS_STEER_JSONOUT_H

#include <json-c/json.h>
#include <hwloc.h>

/* Print obj (pretty, keys in insertion order) with a newline; put it. */
void json_emit(struct json_object *obj);
/* A CPU set as its list string ("0-3,8", "" when empty). */
struct json_object *json_cpulist(hwloc_const_bitmap_t set);
/* A CPU set as an array of CPU numbers. */
struct json_object *json_cpu_array(hwloc_const_bitmap_t set);

#endif
