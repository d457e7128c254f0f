/* SPDX-License-Identifier: MIT */
/*
 * SACC: the engine, which does the channels' work: who runs it, when,
 * and for how long (docs/spec.md section 11).
 *
 * The engine is a thread of the device (sacc_engine_thread(),
 * x-engine-thread=on, the default) or v0.3's bottom half (off); both run
 * sacc_process() under the BQL with the device's memory re-entrancy
 * guard engaged, so DMA aimed at the device's own BARs is rejected by the
 * memory core (and reported as a DMA fault) instead of recursing.  On a
 * host with no core to spare, the vCPU that rang does the run itself
 * (sacc_post_run(), x-db-run).  A run serves the channels round robin, a
 * bounded turn each (SACC_TURN_MAX_*), and is bounded itself
 * (SACC_BH_MAX_*, SACC_ENGINE_MAX_*), so a vCPU waits at most about a
 * turn for the BQL; a turn is a series of sacc_exec_one() steps
 * (sacc-exec.c), and a big copy in it makes way for other channels
 * between its pieces (sacc-copy.c).  The engine learns of work from
 * sacc_kick() (a doorbell, CQ_HEAD, a run that ran out of budget) and
 * makes way for vCPUs that wait for the BQL (sacc_engine_make_way()).
 */

#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "hw/misc/sacc.h"
#include "trace.h"

/* Work done per bottom-half run, over all channels, before yielding */
#define SACC_BH_MAX_DESCS 64
#define SACC_BH_MAX_BYTES (4 * SACC_MAX_XFER)

/*
 * The engine thread's run, before it lets go of the BQL: one turn's
 * worth, so a vCPU's MMIO access waits at most that long for the lock.
 */
#define SACC_ENGINE_MAX_DESCS SACC_TURN_MAX_DESCS
#define SACC_ENGINE_MAX_BYTES SACC_TURN_MAX_BYTES

/* Polling at x-poll-us that misses this many in a row stops a while */
#define SACC_ENGINE_POLL_MISSES 4
#define SACC_ENGINE_POLL_BACKOFF_NS (100 * SCALE_MS)

/*
 * Polling that went this long between two looks at the kick flag lost
 * its CPU: the host has no core to spare for it, and spinning only takes
 * turns from the vCPU that would ring (issue 19: QD 1 26 times slower
 * beside one busy process).  It sleeps on its event instead, as the
 * bottom half's main loop does, for SACC_ENGINE_POLL_BACKOFF_NS.
 */
#define SACC_ENGINE_PREEMPTED_NS (200 * SCALE_US)

/* What a bottom-half run may still do (SACC_BH_MAX_*). */
typedef struct SaccBudget {
    uint32_t descs;
    uint64_t bytes;
} SaccBudget;

/*
 * One turn of channel @ch (docs/spec.md section 11): its PUT word if a
 * token came, then up to SACC_TURN_MAX_DESCS descriptors or
 * SACC_TURN_MAX_BYTES, within what is left of the run's @budget.
 * Returns true if it did anything.
 */
static bool sacc_turn(SaccState *s, SaccChannel *ch, SaccBudget *budget)
{
    const uint32_t epoch = ch->epoch;
    uint32_t descs = 0;
    uint64_t bytes = 0;
    bool worked = false;

    if (!(ch->regs.status & SACC_STATUS_READY)) {
        return false;
    }
    if (ch->token) {
        ch->token = false;
        worked = true;
        sacc_read_put(s, ch, epoch);
    }
    /* The epoch check catches a reset caused by our own DMA or MSI. */
    while (ch->epoch == epoch && (ch->regs.status & SACC_STATUS_READY) &&
           (ch->cur.active || ch->seg.active ||
            !sacc_ring_empty(ch->ring.sq_head, ch->ring.sq_tail))) {
        int64_t n;

        /* CQ full (one slot stays free); CQ_HEAD will reschedule us. */
        if (sacc_ring_full(ch->ring.cq_head, ch->ring.cq_tail,
                           ch->regs.cq_size)) {
            trace_sacc_cq_full(ch->id, ch->ring.cq_tail, ch->ring.cq_head);
            break;
        }
        /*
         * A vCPU waiting for the lock ends the turn after one descriptor
         * (the engine thread): it gets in now, the channel's next turn
         * comes after the others' (sacc_engine_make_way()).
         */
        if (descs >= SACC_TURN_MAX_DESCS || bytes >= SACC_TURN_MAX_BYTES ||
            !budget->descs || !budget->bytes ||
            (descs && s->engine_thread && qatomic_read(&s->bql_waiters))) {
            break;
        }
        /*
         * A vCPU rang another channel since (copy_yield): end the turn
         * after this descriptor, as a big copy makes way between its
         * pieces, so that work waits for one descriptor of ours, not
         * for up to SACC_TURN_MAX_DESCS of them (issue 19: QD 1 p99
         * behind a ring of 4 KiB copies).  Once per doorbell.
         */
        if (descs && s->engine_thread && qatomic_read(&s->copy_yield)) {
            /*
             * Consumed either way: one look per doorbell, not a scan of
             * the channels per descriptor while a hint lingers.
             */
            qatomic_set(&s->copy_yield, false);
            if (sacc_others_busy(s, ch)) {
                break;
            }
        }
        worked = true;
        descs++;
        budget->descs--;
        n = sacc_exec_one(s, ch, epoch);
        if (n < 0) {
            break;
        }
        bytes += n;
        budget->bytes -= MIN((uint64_t)n, budget->bytes);
        if (ch->cur.active) {
            break; /* a copy made way part way: the others' turns now */
        }
    }
    if (worked) {
        trace_sacc_turn(ch->id, descs, bytes);
    }
    return worked;
}

/*
 * One run of the engine, under the BQL (the bottom half, or the engine
 * thread's turn with the lock): channels round robin, one turn each,
 * until a whole round finds no work or the run's budget is spent (then a
 * later run goes on with the next channel in the order).
 */
void sacc_process(void *opaque)
{
    SaccState *s = opaque;
    /*
     * The engine thread's run is one turn's worth, and so is a vCPU's
     * (sacc_post_run()): it does what it rang at once, a batch's
     * rest goes to the engine thread, which runs it beside the vCPU's
     * next batch (issue 19: NOP batch 64 on a busy host).  The bottom
     * half's is bigger: a main loop wake-up per 8 descriptors is dear.
     */
    const uint32_t max = s->engine_thread ? SACC_ENGINE_MAX_DESCS
                                          : SACC_BH_MAX_DESCS;
    SaccBudget budget = {
        .descs = max,
        .bytes = s->engine_thread ? SACC_ENGINE_MAX_BYTES : SACC_BH_MAX_BYTES,
    };
    uint32_t idle = 0;

    while (idle < s->nr_channels) {
        SaccChannel *ch;

        /*
         * A vCPU waits for the lock (the engine thread, after a turn
         * with work): end the run, so it gets in now, not after the
         * budget.
         */
        if (!budget.descs || !budget.bytes ||
            (idle == 0 && budget.descs < max && s->engine_thread &&
             qatomic_read(&s->bql_waiters))) {
            /*
             * Let the vCPUs and main loop in; continue in a later run,
             * if there is work left: a wake of a sleeping engine thread
             * for nothing costs a core a host without a spare one has
             * not got (a vCPU's run of a whole batch, say).
             */
            if (sacc_others_busy(s, NULL)) {
                sacc_kick(s);
            }
            return;
        }
        sacc_db_drain(s); /* doorbells rung without the BQL */
        ch = &s->chan[s->rr_next];
        s->rr_next = (s->rr_next + 1) % s->nr_channels;
        idle = sacc_turn(s, ch, &budget) ? 0 : idle + 1;
    }
}

/*
 * One engine run as the engine thread, or a vCPU for it
 * (sacc_post_run()), does it: under the BQL, with the device's
 * re-entrancy guard engaged, as aio_bh_call() does for the bottom half.
 * Returns false if a run is under way already: the engine thread's,
 * copying without the BQL (sacc_copy_unlocked()); a second one must not
 * start meanwhile, it would run the same channels.
 */
static bool sacc_run(SaccState *s)
{
    DeviceState *dev = DEVICE(s);
    bool engaged = dev->mem_reentrancy_guard.engaged_in_io;

    if (s->running) {
        return false;
    }
    s->running = true;
    dev->mem_reentrancy_guard.engaged_in_io = true;
    sacc_process(s);
    dev->mem_reentrancy_guard.engaged_in_io = engaged;
    s->running = false;
    return true;
}

/*
 * The engine thread (x-engine-thread=on, the default).
 *
 * Why a thread of our own, and why it takes the BQL: with the bottom
 * half, a lone doorbell waits for the main loop to wake up (an eventfd
 * write and a poll return) and every doorbell competes for the BQL with a
 * bottom half that holds it for up to 64 descriptors.  This thread polls
 * for kicks for a window after its last work and only then sleeps on a
 * QemuEvent, so a doorbell that finds it awake costs a barrier and a
 * load (sacc_kick()), and a lone doorbell is picked up within a poll
 * loop's iteration.  The window adapts, as QEMU's AioContext polling
 * does: it grows to cover the gaps between kicks seen after a sleep (a
 * driver's turnaround at queue depth 1) up to x-poll-us, halves after a
 * longer one, and polling that keeps missing stops for a while.
 *
 * The thread runs the very same sacc_process() as the bottom half, with
 * the BQL held and the device's re-entrancy guard engaged, as
 * aio_bh_call() does for the bottom half.  So every argument of the
 * design notes still holds: registers, CTRL.RESET, FLR, disable and the
 * epoch rule are serialised with the engine by the BQL (and with the
 * byte move of a big direct copy, done without it, by
 * sacc_dma_quiesce());
 * DMA through the vIOMMU and its fault MSI, and our own MSI-X, happen
 * under the BQL exactly as from the bottom half.  TCG runs guest code
 * without the BQL, so the lock is normally free when we want it; with
 * x-db-lockless=on the doorbell page is lockless too (patches/0005,
 * sacc_doorbell_post()), so a valid doorbell does not wait for our run.
 * A run is bounded tighter than the bottom half's (SACC_ENGINE_MAX_*), so
 * a vCPU's MMIO waits at most one turn for the lock.
 *
 * Not an IOThread/AioContext: the engine needs the BQL for each run, and
 * a plain thread with a QemuEvent is the smallest thing that polls a flag
 * and sleeps; QEMU's AioContext polling would add a second event loop
 * for one flag.  The thread works the same under qtest (no vCPU runs
 * guest code there; the main loop releases the BQL while it polls).
 */
static void *sacc_engine_thread(void *opaque)
{
    SaccState *s = opaque;
    const int64_t poll_max = (int64_t)s->poll_us * SCALE_US;
    int64_t window = poll_max / 4; /* adapts within [0, poll_max] */
    int64_t last = get_clock(), idle_since = 0, poll_off_until = 0;
    int64_t spun = 0;     /* the polling loop's previous look */
    bool polling = false; /* after work, until we sleep */
    bool slept = false;   /* slept since the last work */
    uint32_t misses = 0;

    rcu_register_thread(); /* DMA walks RCU-protected flat views */
    while (!qatomic_read(&s->engine_stop)) {
        int64_t now, locked, held;

        if (qatomic_read(&s->engine_kicked)) {
            qatomic_set(&s->engine_kicked, false);
            smp_mb(); /* clear before looking, so no kick is lost */
            spun = 0; /* the run's time is no preemption */
            if (slept) {
                /*
                 * The kick came after the window: widen it to cover
                 * such a gap next time (as QEMU's adaptive AioContext
                 * polling grows poll-ns), unless the gap was longer
                 * than is worth polling through.
                 */
                int64_t idle = get_clock() - idle_since;

                window = idle < poll_max ? MIN(poll_max, MAX(window * 2,
                                                             idle + idle / 4))
                                         : window / 2;
                slept = false;
            } else if (polling) {
                misses = 0; /* polling caught it */
            }
            sacc_engine_make_way(s);
            now = get_clock();
            qemu_mutex_lock_iothread();
            locked = get_clock();
            s->unlocked_ns = 0;
            if (!qatomic_read(&s->engine_stop)) {
                sacc_run(s);
            }
            qemu_mutex_unlock_iothread();
            polling = true;
            last = get_clock();
            held = last - locked - s->unlocked_ns;
            trace_sacc_engine_run(locked - now, held, s->unlocked_ns);
            if (qatomic_read(&s->engine_kicked) &&
                held > SACC_ENGINE_FAIR_MIN_NS) {
                /*
                 * More work at once, after a long hold of the BQL (staged
                 * copies; direct ones drop it): the BQL is not fair, and
                 * a vCPU woken by our unlock would find it taken again.
                 * Stand back for an eighth of the hold, so a vCPU's MMIO
                 * (a reset, say) gets in between runs, as it does between
                 * bottom halves.  Yielding, not a timed sleep: one of a
                 * few microseconds took 40-100 us on this host.
                 */
                int64_t until = last + MIN(held / 8,
                                           SACC_ENGINE_FAIR_MAX_NS);

                while (get_clock() < until &&
                       !qatomic_read(&s->engine_stop)) {
                    sched_yield(); /* the vCPU may need this core */
                }
                last = get_clock();
            }
            continue;
        }
        now = get_clock();
        if (polling && spun && now - spun > SACC_ENGINE_PREEMPTED_NS &&
            now >= poll_off_until) {
            trace_sacc_engine_preempted((now - spun) / SCALE_US);
            poll_off_until = now + SACC_ENGINE_POLL_BACKOFF_NS;
            qatomic_set(&s->nocore_until, poll_off_until);
        }
        if (polling && now - last < window && now >= poll_off_until) {
            spun = now;
            cpu_relax();
            continue;
        }
        spun = 0;
        if (polling && window >= poll_max && now >= poll_off_until &&
            ++misses >= SACC_ENGINE_POLL_MISSES) {
            /*
             * Polling keeps missing at its widest: the kicks come later
             * than the window can grow, or (on a host without a spare
             * core) our spinning keeps the vCPU that would ring from
             * running.  Sleep at once for a while, then try again.
             */
            trace_sacc_engine_poll_off(misses);
            misses = 0;
            poll_off_until = now + SACC_ENGINE_POLL_BACKOFF_NS;
        }
        if (polling) {
            idle_since = last;
            slept = true;
            polling = false;
        }
        /* Sleep until sacc_kick() or stop. */
        qemu_event_reset(&s->engine_ev);
        if (!qatomic_read(&s->engine_kicked) &&
            !qatomic_read(&s->engine_stop)) {
            trace_sacc_engine_sleep(window / SCALE_US);
            qatomic_set(&s->engine_asleep, true);
            qemu_event_wait(&s->engine_ev);
            qatomic_set(&s->engine_asleep, false);
            trace_sacc_engine_wake();
        }
    }
    rcu_unregister_thread();

    qemu_mutex_lock_iothread();
    s->engine_exited = true;
    qemu_cond_broadcast(&s->engine_cond);
    qemu_mutex_unlock_iothread();
    return NULL;
}

/* Realize, x-engine-thread=on: the thread starts; it sleeps until a kick */
void sacc_engine_start(SaccState *s)
{
    qemu_event_init(&s->engine_ev, false);
    s->engine_started = true;
    qemu_cond_init(&s->engine_cond);
    s->engine_kicked = false;
    s->engine_stop = false;
    s->engine_exited = false;
    qemu_thread_create(&s->engine, "sacc-engine", sacc_engine_thread, s,
                       QEMU_THREAD_JOINABLE);
}

/*
 * Unrealize (device_del, QEMU exit): stop the thread.  It may be waiting
 * for the BQL we hold, so wait for it with the BQL released
 * (qemu_cond_wait_iothread(), as pause_all_vcpus() waits for vCPUs); it
 * sees engine_stop as soon as it has the lock and touches nothing.
 */
void sacc_engine_stop(SaccState *s)
{
    qatomic_set(&s->engine_stop, true);
    qemu_event_set(&s->engine_ev);
    while (!s->engine_exited) {
        qemu_cond_wait_iothread(&s->engine_cond);
    }
    qemu_thread_join(&s->engine);
}

/*
 * After a doorbell or CQ_HEAD posted without the BQL: the engine's run,
 * by this vCPU, when the engine thread has no core of its own
 * (x-db-run).  On a host without a spare core (issue 19: one busy
 * process beside QEMU on two cores) the engine thread, once it found
 * itself preempted while polling, sleeps for a while (nocore_until), and
 * waking it would leave the work waiting for the host to find it a core,
 * behind the very vCPU that rang.  The vCPU has the core: it takes the
 * BQL and does the run itself, as the bottom half's main loop did, the
 * engine thread's sacc_run() with its bound (one turn; what is left
 * wakes the engine thread).  A CQ_HEAD write does it too: it may have
 * unblocked a full CQ, and a wake of the engine for it would hand the
 * next batch back to the thread without a core.  Returns false if it did
 * not (the engine is awake or busy, or has a core again): then the caller
 * kicks it.
 */
bool sacc_post_run(SaccState *s)
{
    bool ran;

    if (!s->db_run || !qatomic_read(&s->engine_asleep) ||
        get_clock() >= qatomic_read(&s->nocore_until)) {
        return false;
    }
    qemu_mutex_lock_iothread();
    ran = !qatomic_read(&s->gone) && sacc_run(s);
    qemu_mutex_unlock_iothread();
    trace_sacc_post_run(ran);
    return ran;
}
