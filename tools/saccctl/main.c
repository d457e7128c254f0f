// SPDX-License-Identifier: MIT
/*
 * saccctl - control and exercise SACC devices through libsacc.
 *
 *   saccctl list | bind | unbind | info | run | bench | inject | faults
 *           | trace | names [--help]
 */
#include <string.h>

#include "saccctl.h"

const struct cmd saccctl_cmds[] = {
    {"list", "list SACC devices: driver, IOMMU group, viability", cmd_list,
     usage_list},
    {"bind", "bind SACC devices to vfio-pci", cmd_bind, usage_bind},
    {"unbind", "unbind a device, clear its driver_override", cmd_unbind,
     usage_unbind},
    {"info", "identity, BARs, IOMMU group, IOVA ranges, registers", cmd_info,
     usage_info},
    {"run", "run operations, optionally verified", cmd_run, usage_run},
    {"bench", "measure ops/s, bandwidth and latency", cmd_bench, usage_bench},
    {"inject", "fault injection: prove the IOMMU blocks bad DMA", cmd_inject,
     usage_inject},
    {"faults", "the IOMMU fault log: DMAR lines + journal, attributed",
     cmd_faults, usage_faults},
    {"trace", "doorbell writes the watchpoint tracer trapped, decoded",
     cmd_trace, usage_trace},
    {"names", "the names of opcodes, statuses and fault codes", cmd_names,
     usage_names},
    {NULL, NULL, NULL, NULL},
};

static void usage(FILE *f)
{
	const struct cmd *c;

	fputs("usage: saccctl COMMAND [ARGS...]\n"
	      "       saccctl COMMAND --help\n\n"
	      "Drive SACC accelerators (PCI 1b36:1092) from user space through "
	      "VFIO.\n\nCommands:\n",
	      f);
	for (c = saccctl_cmds; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->summary);
	fputs("\nExit status: 0 success, 1 failure (the message says what to "
	      "do),\n2 bad arguments.\n",
	      f);
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2)
		return usage_error(usage, NULL, "no command given");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		if (argc > 2 && strcmp(argv[1], "help") == 0) {
			for (c = saccctl_cmds; c->name; c++) {
				if (!strcmp(c->name, argv[2])) {
					c->usage(stdout);
					return EXIT_OK;
				}
			}
			return usage_error(usage, NULL, "unknown command '%s'",
					   argv[2]);
		}
		usage(stdout);
		return EXIT_OK;
	}
	for (c = saccctl_cmds; c->name; c++) {
		if (!strcmp(c->name, argv[1])) {
			optind = 1;
			return c->fn(argc - 1, argv + 1);
		}
	}
	return usage_error(usage, NULL, "unknown command '%s'", argv[1]);
}
