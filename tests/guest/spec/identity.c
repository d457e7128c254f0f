// SPDX-License-Identifier: MIT
/*
 * identity.c - identity (spec 1): PCI IDs, class, BARs, capabilities
 */
#include "spec.h"

static int find_cap(const uint8_t *cfg, uint8_t id)
{
	int pos = cfg[PCI_CAPABILITY_LIST] & ~3, guard = 48;

	while (pos && guard--) {
		if (cfg[pos] == id)
			return pos;
		pos = cfg[pos + 1] & ~3;
	}
	return 0;
}

#define CFG16(o) (cfg[o] | cfg[(o) + 1] << 8)
#define CFG32(o) ((uint32_t)CFG16(o) | (uint32_t)CFG16((o) + 2) << 16)

START_TEST(test_identity)
{
	struct vfio_device_info di = {.argsz = sizeof(di)};
	/* v0.4: BAR4 is DEVMEM_SIZE bytes (spec 1, 18; its own probes in
	 * devmem.c); BAR5 is its upper half, no region of its own. */
	const uint64_t bar_size[6] = {SACC_BAR0_SIZE, SACC_BAR1_SIZE,
				      SACC_BAR2_SIZE, 0,
				      b2_rd64(&D, SACC_DEV_DEVMEM_SIZE)};
	uint8_t cfg[256];
	int exp, msix;

	cfg_read(&D, 0, cfg, sizeof(cfg));
	ck_assert_uint_eq(CFG16(PCI_VENDOR_ID), SACC_PCI_VENDOR_ID);
	ck_assert_uint_eq(CFG16(PCI_DEVICE_ID), SACC_PCI_DEVICE_ID);
	ck_assert_uint_eq(CFG16(PCI_SUBSYSTEM_VENDOR_ID),
			  SACC_PCI_SUBSYS_VENDOR_ID);
	ck_assert_uint_eq(CFG16(PCI_SUBSYSTEM_ID), SACC_PCI_SUBSYS_ID);
	ck_assert_uint_eq(cfg[PCI_REVISION_ID], SACC_PCI_REVISION);
	ck_assert_uint_eq(CFG32(PCI_CLASS_REVISION) >> 8, SACC_PCI_CLASS);
	ck_assert_uint_eq(cfg[PCI_INTERRUPT_PIN], 0); /* no INTx */
	ck_assert(CFG16(PCI_STATUS) & PCI_STATUS_CAP_LIST);

	exp = find_cap(cfg, PCI_CAP_ID_EXP);
	ck_assert_msg(exp, "no PCI Express capability");
	ck_assert_uint_eq(CFG16(exp + PCI_EXP_FLAGS) & PCI_EXP_FLAGS_VERS, 2);
	ck_assert_uint_eq((CFG16(exp + PCI_EXP_FLAGS) & PCI_EXP_FLAGS_TYPE) >> 4,
			  PCI_EXP_TYPE_ENDPOINT);
	ck_assert_msg(CFG32(exp + PCI_EXP_DEVCAP) & PCI_EXP_DEVCAP_FLR,
		      "DevCap does not advertise FLR");

	msix = find_cap(cfg, PCI_CAP_ID_MSIX);
	ck_assert_msg(msix, "no MSI-X capability");
	ck_assert_uint_eq((CFG16(msix + PCI_MSIX_FLAGS) & PCI_MSIX_FLAGS_QSIZE) + 1,
			  SACC_MSIX_VECTORS);
	ck_assert_uint_eq(CFG32(msix + PCI_MSIX_TABLE) & PCI_MSIX_TABLE_BIR,
			  SACC_BAR_MSIX);
	ck_assert_uint_eq(CFG32(msix + PCI_MSIX_TABLE) & PCI_MSIX_TABLE_OFFSET,
			  SACC_MSIX_TABLE_OFFSET);
	ck_assert_uint_eq(CFG32(msix + PCI_MSIX_PBA) & PCI_MSIX_PBA_BIR,
			  SACC_BAR_MSIX);
	ck_assert_uint_eq(CFG32(msix + PCI_MSIX_PBA) & PCI_MSIX_PBA_OFFSET,
			  SACC_MSIX_PBA_OFFSET);

	ck_assert_int_eq(ioctl(D.device, VFIO_DEVICE_GET_INFO, &di), 0);
	ck_assert(di.flags & VFIO_DEVICE_FLAGS_PCI);
	ck_assert_msg(di.flags & VFIO_DEVICE_FLAGS_RESET,
		      "vfio-pci found no working reset (FLR) for %s", D.bdf);
	for (unsigned int i = 0; i < 6; i++) {
		struct vfio_region_info ri = {.argsz = sizeof(ri), .index = i};

		ck_assert_int_eq(ioctl(D.device, VFIO_DEVICE_GET_REGION_INFO, &ri), 0);
		ck_assert_msg(ri.size == bar_size[i], "BAR%u is 0x%llx bytes", i,
			      (unsigned long long)ri.size);
	}
	for (unsigned int i = 0; i < 2; i++) {
		struct vfio_irq_info ii = {.argsz = sizeof(ii)};

		ii.index = i ? VFIO_PCI_MSIX_IRQ_INDEX : VFIO_PCI_INTX_IRQ_INDEX;
		ck_assert_int_eq(ioctl(D.device, VFIO_DEVICE_GET_IRQ_INFO, &ii), 0);
		ck_assert_uint_eq(ii.count, i ? SACC_MSIX_VECTORS : 0);
	}
	ck_assert_uint_eq(rd32(&D, SACC_REG_MAGIC), 0x4A4E524F);
	ck_assert_uint_eq(rd32(&D, SACC_REG_VERSION), SACC_VERSION);
	/* Every SACC device is alone in its IOMMU group. */
	for (unsigned int i = 1; i < guest_nr_devices(); i++) {
		struct sacc_pci_dev pd;

		ck_assert_int_eq(sacc_pci_get(guest_bdf(i), &pd), 0);
		ck_assert_int_ne(pd.iommu_group, D.group_id);
	}
}
END_TEST

void identity_tests(Suite *s)
{
	TCase *t = spec_tc(s, "identity");

	tcase_add_test(t, test_identity);
}
