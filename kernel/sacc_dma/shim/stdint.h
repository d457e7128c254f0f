/* Kernel builds have no <stdint.h>: <linux/types.h> has the same names. */
#include <linux/types.h>
