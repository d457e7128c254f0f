/* SPDX-License-Identifier: MIT */
/*
 * What the SACC device's qtests share (sacc-qtest.h): booting the
 * device, its registers, channels and their rings, bounded waits for
 * completions and registers, device memory through BAR4.
 */

#include "sacc-qtest.h"
#include "qapi/qmp/qdict.h"

/* Boot with "-device sacc,id=sacc0,addr=04.0@props", map BAR0 and BAR2. */
void sacc_start_props(Sacc *t, const char *props)
{
    uint64_t size;

    memset(t, 0, sizeof(*t));
    t->ch0.t = t;
    t->qs = qtest_pc_boot("-M q35 -m 256M -nodefaults "
                          "-device sacc,id=sacc0,addr=04.0%s", props);
    t->qts = t->qs->qts;
    t->dev = qpci_device_find(t->qs->pcibus, SACC_DEVFN);
    g_assert(t->dev);
    qpci_device_enable(t->dev);
    t->bar0 = qpci_iomap(t->dev, SACC_BAR_REGS, &size);
    g_assert_cmpuint(size, ==, SACC_BAR0_SIZE);
    t->bar2 = qpci_iomap(t->dev, SACC_BAR_CHAN, &size);
    g_assert_cmpuint(size, ==, SACC_BAR2_SIZE);
}

void sacc_start(Sacc *t)
{
    sacc_start_props(t, "");
}

void sacc_stop(Sacc *t)
{
    g_free(t->dev);
    qtest_shutdown(t->qs);
}

/* Function level reset through the PCIe capability at @exp. */
void sacc_flr(Sacc *t, uint8_t exp)
{
    qpci_config_writew(t->dev, exp + PCI_EXP_DEVCTL,
                       qpci_config_readw(t->dev, exp + PCI_EXP_DEVCTL) |
                       PCI_EXP_DEVCTL_BCR_FLR);
}

/* FLR, or bus mastering off, cleared the BARs and the command register */
void sacc_remap(Sacc *t)
{
    qpci_device_enable(t->dev);
    t->bar0 = qpci_iomap(t->dev, SACC_BAR_REGS, NULL);
    t->bar2 = qpci_iomap(t->dev, SACC_BAR_CHAN, NULL);
}

void check_power_on(Sacc *t)
{
    static const uint32_t zero_regs[] = {
        SACC_REG_CTRL, SACC_REG_STATUS, SACC_REG_SQ_BASE,
        SACC_REG_SQ_BASE + 4, SACC_REG_SQ_SIZE, SACC_REG_CQ_BASE,
        SACC_REG_CQ_BASE + 4, SACC_REG_CQ_SIZE, SACC_REG_CQ_HEAD,
        SACC_REG_IRQ_STATUS, SACC_REG_IRQ_ACK, SACC_REG_ERR_CODE,
        SACC_REG_SCRATCH, SACC_REG_FAULT_ADDR, SACC_REG_FAULT_ADDR + 4,
        SACC_REG_FAULT_INFO, SACC_REG_FAULT_REQ_ID,
        SACC_REG_FAULT_COUNT, SACC_DOORBELL_OFFSET,
    };
    size_t i;

    g_assert_cmphex(rd(t, SACC_REG_MAGIC), ==, SACC_MAGIC);
    g_assert_cmphex(rd(t, SACC_REG_VERSION), ==, SACC_VERSION);
    for (i = 0; i < ARRAY_SIZE(zero_regs); i++) {
        g_assert_cmphex(rd(t, zero_regs[i]), ==, 0);
    }
}

uint32_t rd(Sacc *t, uint64_t off)
{
    return qpci_io_readl(t->dev, t->bar0, off);
}

void wr(Sacc *t, uint64_t off, uint32_t val)
{
    qpci_io_writel(t->dev, t->bar0, off, val);
}

uint32_t drd(Sacc *t, uint32_t off)
{
    return qpci_io_readl(t->dev, t->bar2, off);
}

uint64_t dev_clock(Sacc *t)
{
    return qpci_io_readq(t->dev, t->bar2, SACC_DEV_CLOCK);
}

static bool chan_page0(Chan *c)
{
    return c == &c->t->ch0;
}

/* Where channel register @off is: page 0 for Sacc.ch0, else the block. */
static QPCIBar chan_bar(Chan *c)
{
    return chan_page0(c) ? c->t->bar0 : c->t->bar2;
}

static uint64_t chan_reg(Chan *c, uint32_t off)
{
    return chan_page0(c) ? off : SACC_CHAN_BLOCK(c->id) + off;
}

uint32_t crd(Chan *c, uint32_t off)
{
    return qpci_io_readl(c->t->dev, chan_bar(c), chan_reg(c, off));
}

uint64_t crd64(Chan *c, uint32_t off)
{
    return qpci_io_readq(c->t->dev, chan_bar(c), chan_reg(c, off));
}

void cwr(Chan *c, uint32_t off, uint32_t val)
{
    qpci_io_writel(c->t->dev, chan_bar(c), chan_reg(c, off), val);
}

void cwr64(Chan *c, uint32_t off, uint64_t val)
{
    cwr(c, off, val);
    cwr(c, off + 4, val >> 32);
}

/*
 * Allocate (and zero) channel @id's rings and, in a block, its PUT word;
 * no registers.  For Sacc.ch0, @id and @mode are 0.
 */
void chan_init(Sacc *t, Chan *c, uint32_t id, uint32_t mode,
               uint32_t sq_n, uint32_t cq_n)
{
    memset(c, 0, sizeof(*c));
    c->t = t;
    c->id = id;
    c->mode = mode;
    g_assert(!chan_page0(c) || (id == 0 && mode == 0));
    c->sq_n = sq_n;
    c->cq_n = cq_n;
    c->sq = guest_alloc(&t->qs->alloc, sq_n * sizeof(struct sacc_desc));
    c->cq = guest_alloc(&t->qs->alloc, cq_n * sizeof(struct sacc_cqe));
    qtest_memset(t->qts, c->sq, 0, sq_n * sizeof(struct sacc_desc));
    qtest_memset(t->qts, c->cq, 0, cq_n * sizeof(struct sacc_cqe));
    if (!chan_page0(c)) {
        c->put = guest_alloc(&t->qs->alloc, 8);
        qtest_memset(t->qts, c->put, 0, 8);
    }
    c->phase = 1;
}

/* Program the ring registers (no validation here) and set ENABLE. */
void ring_enable(Chan *c, uint64_t sq, uint32_t sq_n, uint64_t cq,
                 uint32_t cq_n)
{
    cwr64(c, SACC_REG_SQ_BASE, sq);
    cwr(c, SACC_REG_SQ_SIZE, sq_n);
    cwr64(c, SACC_REG_CQ_BASE, cq);
    cwr(c, SACC_REG_CQ_SIZE, cq_n);
    cwr(c, SACC_REG_CTRL, SACC_CTRL_ENABLE);
}

/* Program the rings from *c, in a block MODE and PUT_ADDR first; ENABLE. */
void chan_enable(Chan *c)
{
    if (!chan_page0(c)) {
        cwr(c, SACC_REG_MODE, c->mode);
        cwr64(c, SACC_REG_PUT_ADDR, c->put);
    }
    ring_enable(c, c->sq, c->sq_n, c->cq, c->cq_n);
}

/* chan_init() and chan_enable(); the channel must go READY. */
void chan_setup(Sacc *t, Chan *c, uint32_t id, uint32_t mode,
                uint32_t sq_n, uint32_t cq_n)
{
    chan_init(t, c, id, mode, sq_n, cq_n);
    chan_enable(c);
    g_assert_cmphex(crd(c, SACC_REG_STATUS), ==, SACC_STATUS_READY);
}

/* Write one slot at the SQ tail (the doorbell is rung separately). */
static void chan_put_slot(Chan *c, const void *slot)
{
    qtest_memwrite(c->t->qts,
                   c->dev_pa + c->sq + c->sq_tail * sizeof(struct sacc_desc),
                   slot, sizeof(struct sacc_desc));
    c->sq_tail = (c->sq_tail + 1) % c->sq_n;
}

void chan_submit(Chan *c, uint16_t op, uint64_t src, uint64_t dst,
                 uint32_t len, uint16_t flags, uint32_t req_id)
{
    struct sacc_desc d = {
        .src = cpu_to_le64(src),
        .dst = cpu_to_le64(dst),
        .length = cpu_to_le32(len),
        .opcode = cpu_to_le16(op),
        .flags = cpu_to_le16(flags),
        .req_id = cpu_to_le32(req_id),
    };

    chan_put_slot(c, &d);
}

/*
 * @n descriptors at the SQ tail (@n < SQ_SIZE), with one qtest command, or
 * two where they wrap, instead of one each: a test that submits many is
 * mostly qtest's round trips.
 */
void chan_submit_many(Chan *c, const struct sacc_desc *d, uint32_t n)
{
    uint32_t first = MIN(n, c->sq_n - c->sq_tail);

    qtest_memwrite(c->t->qts,
                   c->dev_pa + c->sq + c->sq_tail * sizeof(*d), d,
                   first * sizeof(*d));
    if (n > first) {
        qtest_memwrite(c->t->qts, c->dev_pa + c->sq, d + first,
                       (n - first) * sizeof(*d));
    }
    c->sq_tail = (c->sq_tail + n) % c->sq_n;
}

/*
 * A WRITE_INLINE descriptor saying @len, followed by @slots payload
 * slots holding @data (the rest of the last slot is junk the device must
 * ignore).  A driver following the spec passes SACC_INLINE_SLOTS(len).
 */
void chan_inline(Chan *c, uint64_t dst, uint32_t len,
                 const uint8_t *data, uint32_t slots, uint32_t req_id)
{
    uint8_t slot[sizeof(struct sacc_desc)];
    uint32_t i, n;

    chan_submit(c, SACC_OP_WRITE_INLINE, 0, dst, len, 0, req_id);
    for (i = 0; i < slots; i++) {
        memset(slot, 0xee, sizeof(slot));
        n = i * sizeof(slot) < len ? MIN(len - i * sizeof(slot), sizeof(slot))
                                   : 0;
        if (data && n) {
            memcpy(slot, data + i * sizeof(slot), n);
        }
        chan_put_slot(c, slot);
    }
}

/*
 * The channel's doorbell: the tail (channel 0's is v0.2's doorbell), or
 * the PUT word and the token.
 */
void chan_ring(Chan *c)
{
    if (c->mode & SACC_MODE_TOKEN) {
        qtest_writel(c->t->qts, c->dev_pa + c->put, c->sq_tail);
        wr(c->t, SACC_DOORBELL_TOKEN, c->id);
    } else {
        wr(c->t, SACC_DOORBELL(c->id), c->sq_tail);
    }
}

/*
 * Bounded poll for the completion at cq_head; consumes it on success,
 * moving cq_head and phase.
 */
bool chan_wait_cqe(Chan *c, struct sacc_cqe *cqe, gint64 timeout_us)
{
    uint64_t addr = c->cq + c->cq_head * sizeof(*cqe);
    gint64 deadline = g_get_monotonic_time() + timeout_us;

    do {
        qtest_memread(c->t->qts, addr, cqe, sizeof(*cqe));
        if ((le16_to_cpu(cqe->phase) & SACC_CQE_PHASE) == c->phase) {
            cqe->req_id = le32_to_cpu(cqe->req_id);
            cqe->result_len = le32_to_cpu(cqe->result_len);
            cqe->reserved = le32_to_cpu(cqe->reserved);
            cqe->status = le16_to_cpu(cqe->status);
            if (++c->cq_head == c->cq_n) {
                c->cq_head = 0;
                c->phase ^= 1;
            }
            return true;
        }
        g_usleep(100);
    } while (g_get_monotonic_time() < deadline);
    return false;
}

/*
 * chan_wait_cqe() for the @n completions from cq_head on (@n < CQ_SIZE),
 * read with one qtest command a poll, or two where they wrap.
 */
bool chan_wait_cqes(Chan *c, struct sacc_cqe *cqe, uint32_t n,
                    gint64 timeout_us)
{
    uint32_t first = MIN(n, c->cq_n - c->cq_head);
    gint64 deadline = g_get_monotonic_time() + timeout_us;
    uint32_t i;

    do {
        qtest_memread(c->t->qts, c->cq + c->cq_head * sizeof(*cqe), cqe,
                      first * sizeof(*cqe));
        if (n > first) {
            qtest_memread(c->t->qts, c->cq, cqe + first,
                          (n - first) * sizeof(*cqe));
        }
        /* past the end of the ring, the other phase */
        for (i = 0; i < n; i++) {
            if ((le16_to_cpu(cqe[i].phase) & SACC_CQE_PHASE) !=
                (c->phase ^ (i >= first))) {
                break;
            }
        }
        if (i == n) {
            for (i = 0; i < n; i++) {
                cqe[i].req_id = le32_to_cpu(cqe[i].req_id);
                cqe[i].result_len = le32_to_cpu(cqe[i].result_len);
                cqe[i].reserved = le32_to_cpu(cqe[i].reserved);
                cqe[i].status = le16_to_cpu(cqe[i].status);
            }
            c->cq_head += n;
            if (c->cq_head >= c->cq_n) {
                c->cq_head -= c->cq_n;
                c->phase ^= 1;
            }
            return true;
        }
        g_usleep(100);
    } while (g_get_monotonic_time() < deadline);
    return false;
}

/*
 * The next completion must be this one; word 8 (v0.2's reserved) is 0
 * without MODE.V3.
 */
struct sacc_cqe chan_expect(Chan *c, uint32_t req_id, uint16_t status,
                            uint32_t result_len)
{
    struct sacc_cqe cqe;

    g_assert_true(chan_wait_cqe(c, &cqe, WAIT_US));
    g_assert_cmphex(cqe.req_id, ==, req_id);
    g_assert_cmpuint(cqe.status, ==, status);
    g_assert_cmpuint(cqe.result_len, ==, result_len);
    if (!(c->mode & SACC_MODE_V3)) {
        g_assert_cmpuint(cqe.engine_ns, ==, 0);
    }
    return cqe;
}

void chan_ack(Chan *c)
{
    cwr(c, SACC_REG_CQ_HEAD, c->cq_head);
}

/* Bounded poll until register @off reads @want. */
void chan_wait_reg(Chan *c, uint32_t off, uint32_t want)
{
    gint64 deadline = g_get_monotonic_time() + WAIT_US;

    while (crd(c, off) != want) {
        g_assert_cmpint(g_get_monotonic_time(), <, deadline);
        g_usleep(100);
    }
}

void chan_expect_fault(Chan *c, uint64_t addr, uint32_t info,
                       uint32_t req_id, uint32_t count)
{
    g_assert_cmphex(crd64(c, SACC_REG_FAULT_ADDR), ==, addr);
    g_assert_cmphex(crd(c, SACC_REG_FAULT_INFO), ==, info);
    g_assert_cmphex(crd(c, SACC_REG_FAULT_REQ_ID), ==, req_id);
    g_assert_cmpuint(crd(c, SACC_REG_FAULT_COUNT), ==, count);
}

/* Valid (first-lap) entries in a copy of a zeroed CQ. */
uint32_t cq_valid(const struct sacc_cqe *cq, uint32_t n)
{
    uint32_t i, valid = 0;

    for (i = 0; i < n; i++) {
        valid += le16_to_cpu(cq[i].phase) & SACC_CQE_PHASE;
    }
    return valid;
}

/* The device's x-copies-held (tests only): copies that began the delay */
uint32_t copies_held(QTestState *qts, const char *id)
{
    g_autofree char *path = g_strdup_printf("/machine/peripheral/%s", id);
    QDict *r = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': "
                         "{'path': %s, 'property': 'x-copies-held'}}", path);
    uint32_t n;

    g_assert(qdict_haskey(r, "return"));
    n = qdict_get_int(r, "return");
    qobject_unref(r);
    return n;
}

/* Wait (bounded) until device @id holds its @n-th copy since boot. */
void wait_copies_held(QTestState *qts, const char *id, uint32_t n)
{
    gint64 end = g_get_monotonic_time() + WAIT_US;

    while (copies_held(qts, id) < n) {
        g_assert_cmpint(g_get_monotonic_time(), <, end);
        g_usleep(1000);
    }
}

/*
 * Map BAR4, device memory: qpci_memread/-write reach it as the CPU
 * does, through the BAR.
 */
void sacc_map_devmem(Sacc *t)
{
    uint64_t size;

    t->bar4 = qpci_iomap(t->dev, SACC_BAR_DEVMEM, &size);
    g_assert_cmpuint(size, ==, DEVMEM_SIZE);
}

void host_expect(Sacc *t, uint64_t addr, uint8_t byte, size_t len)
{
    g_autofree uint8_t *b = g_malloc(len);
    size_t i;

    qtest_memread(t->qts, addr, b, len);
    for (i = 0; i < len; i++) {
        g_assert_cmphex(b[i], ==, byte);
    }
}

/* xorshift64: deterministic garbage */
uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}
