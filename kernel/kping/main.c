// SPDX-License-Identifier: GPL-2.0
/*
 * rdmastat_kping.ko: RDMA traffic from the kernel over rdma_cm, rping's
 * protocol and rdmastat's modes, controlled over the generic netlink family
 * described in include/uapi/linux/rdmastat_kping.h.
 *
 * kping_mutex guards the list of runs; a run's thread never takes it, so
 * stopping a run (kthread_stop(), which waits for the thread's teardown) is
 * done after unlinking it, outside the mutex.
 */
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <uapi/linux/rdmastat_kping.h>

#include "kping.h"

/*
 * The dma memory mode hands the peer the PD's global rkey, which reaches all
 * host memory (on rxe, a DMA MR's iova is a kernel virtual address). It is
 * refused unless the module is loaded with this parameter, and then still
 * used only by runs that ask for it.
 */
bool kping_allow_unsafe_global_rkey;
module_param_named(allow_unsafe_global_rkey, kping_allow_unsafe_global_rkey, bool, 0444);
MODULE_PARM_DESC(allow_unsafe_global_rkey,
		 "let runs ask for the dma memory mode, whose rkey gives the peer all host memory (default: no)");

/* Guards kping_runs, kping_next_id and kping_nr_runs. */
DEFINE_MUTEX(kping_mutex);
LIST_HEAD(kping_runs);
static u32 kping_next_id;
static unsigned int kping_nr_runs;
/* Changes whenever a run is added or removed: dumps flag themselves cut. */
unsigned int kping_generation = 1;

static void kping_runs_changed(void)
{
	if (!++kping_generation)
		kping_generation = 1;
}

/* Records the first error of a run; later ones are its consequences. */
void kping_fail(struct kping_run *run, int err, const char *what)
{
	unsigned long flags;

	spin_lock_irqsave(&run->lock, flags);
	if (!run->error) {
		run->error = err;
		strscpy(run->error_msg, what, sizeof(run->error_msg));
	}
	spin_unlock_irqrestore(&run->lock, flags);
	wake_up(&run->wq);
}

int kping_run_start(struct net *net, const struct kping_params *p,
		    struct kping_run **out)
{
	struct task_struct *task;
	struct kping_run *run;

	lockdep_assert_held(&kping_mutex);
	if (kping_nr_runs >= RDMASTAT_KPING_MAX_RUNS)
		return -ENOSPC;
	run = kzalloc_obj(*run, GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	run->p = *p;
	/*
	 * Not a counted reference. While the thread lives, it holds one
	 * (kping_thread) and every rdma_cm id it creates holds another:
	 * __rdma_create_id() takes get_net() and the id's destruction drops
	 * it, in 6.1, 6.12 and the newest cma.c alike, for kernel ids too.
	 * A namespace's pre_exit and exit methods run only from cleanup_net(),
	 * once its count reached zero, so no pernet method can see a namespace
	 * that was deleted (ip netns del, its last process gone) while one of
	 * its runs is live: no notification exists for "only kernel references
	 * are left", and counting them would depend on how many ids rdma_cm
	 * creates inside (a wildcard listener makes one per device). What ends
	 * such a run is its own deadline: every wait is bounded by the run's
	 * timeout, so a run whose peer went with the namespace ends within one
	 * timeout of the last thing it heard, tears its ids down and drops its
	 * references; the namespace is then freed and kping_net_exit() frees
	 * the ended run. A peer that keeps talking from another namespace keeps
	 * its run (and so the namespace) alive until it stops; rmmod ends it.
	 */
	run->net = net;
	spin_lock_init(&run->lock);
	init_waitqueue_head(&run->wq);
	run->cm_event = -1;
	run->state = RDMASTAT_KPING_STATE_CONNECTING;
	/* Ids are not reused while the module is loaded (0 is never one). */
	run->id = ++kping_next_id;
	task = kthread_create(kping_thread, run, "kping/%u", run->id);
	if (IS_ERR(task)) {
		kping_run_free(run);
		return PTR_ERR(task);
	}
	get_task_struct(task);
	run->task = task;
	list_add_tail(&run->node, &kping_runs);
	kping_nr_runs++;
	kping_runs_changed();
	*out = run;
	return 0;
}

/* Starts a listed run's thread; kping_mutex keeps STOP from freeing it first. */
void kping_run_go(struct kping_run *run)
{
	lockdep_assert_held(&kping_mutex);
	wake_up_process(run->task);
}

struct kping_run *kping_run_find(struct net *net, u32 id)
{
	struct kping_run *run;

	lockdep_assert_held(&kping_mutex);
	list_for_each_entry(run, &kping_runs, node)
		if (run->id == id && net_eq(run->net, net))
			return run;
	return NULL;
}

/* Takes run off the list; the caller then stops it outside kping_mutex. */
void kping_run_unlink(struct kping_run *run)
{
	lockdep_assert_held(&kping_mutex);
	list_del(&run->node);
	kping_nr_runs--;
	kping_runs_changed();
}

/*
 * Stops the thread, which tears its connection down before it exits; a
 * thread never started does not run kping_thread() at all.
 */
void kping_run_stop(struct kping_run *run)
{
	unsigned long flags;

	kthread_stop(run->task);
	put_task_struct(run->task);
	run->task = NULL;
	spin_lock_irqsave(&run->lock, flags);
	/* A thread stopped before it ran leaves the state it started with. */
	if (run->state < RDMASTAT_KPING_STATE_DONE)
		run->state = RDMASTAT_KPING_STATE_STOPPED;
	spin_unlock_irqrestore(&run->lock, flags);
}

void kping_run_free(struct kping_run *run)
{
	kfree(run);
}

/*
 * The runs of a namespace that is going away: off the list, stopped, freed.
 * Only ended runs are left by then (see kping_run_start()); a thread that
 * never started holds nothing either.
 */
static void __net_exit kping_net_exit(struct net *net)
{
	struct kping_run *run, *next;
	LIST_HEAD(gone);

	mutex_lock(&kping_mutex);
	list_for_each_entry_safe(run, next, &kping_runs, node) {
		if (net_eq(run->net, net)) {
			kping_run_unlink(run);
			list_add_tail(&run->node, &gone);
		}
	}
	mutex_unlock(&kping_mutex);
	list_for_each_entry_safe(run, next, &gone, node) {
		list_del(&run->node);
		kping_run_stop(run);
		kping_run_free(run);
	}
}

static struct pernet_operations kping_net_ops = {
	.exit = kping_net_exit,
};

static int __init kping_init(void)
{
	int ret;

	ret = register_pernet_subsys(&kping_net_ops);
	if (ret)
		return ret;
	ret = kping_netlink_init();
	if (ret)
		unregister_pernet_subsys(&kping_net_ops);
	return ret;
}

static void __exit kping_exit(void)
{
	struct kping_run *run, *next;
	LIST_HEAD(runs);

	/* No new requests first; then every run, whatever it is doing. */
	kping_netlink_exit();
	mutex_lock(&kping_mutex);
	list_splice_init(&kping_runs, &runs);
	kping_nr_runs = 0;
	kping_runs_changed();
	mutex_unlock(&kping_mutex);
	list_for_each_entry_safe(run, next, &runs, node) {
		list_del(&run->node);
		kping_run_stop(run);
		kping_run_free(run);
	}
	unregister_pernet_subsys(&kping_net_ops);
}

module_init(kping_init);
module_exit(kping_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The rdmastat authors");
MODULE_DESCRIPTION("RDMA ping, latency and bandwidth from the kernel over generic netlink");
