// SPDX-License-Identifier: GPL-2.0
/*
 * rdmastat_ulp_test.ko: a kernel rdma_cm user that frees its QP behind
 * rdma_cm's back, as the NFS/RDMA server (svc_rdma_free()) and 9p
 * (rdma_destroy_trans()) do: rdma_create_qp(), then a bare ib_destroy_qp(),
 * and the id lives on with id->qp pointing at freed memory. For each address
 * in "addrs" it resolves a route to it, makes the QP, destroys it so, logs
 * "rdmastat_ulp_test: qp N destroyed" and keeps the id until unloaded. A
 * dump that trusted id->qp would read freed memory (a KASAN report on a debug
 * kernel); rdmastat.ko must list each id with its QP number gone.
 * A test module only: tests/kernel/check.sh builds it, the lab loads it.
 */
#include <linux/completion.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#define ULP_MAX 4

static char *addrs[ULP_MAX];
static int n_addrs;
module_param_array(addrs, charp, &n_addrs, 0444);
MODULE_PARM_DESC(addrs, "IPv4 addresses of RDMA devices, one id each");

struct ulp_id {
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct completion resolved;
	int status;
};

static struct ulp_id ulps[ULP_MAX];

static int ulp_handler(struct rdma_cm_id *id, struct rdma_cm_event *event)
{
	struct ulp_id *u = id->context;

	u->status = event->event == RDMA_CM_EVENT_ADDR_RESOLVED ? 0 : -EHOSTUNREACH;
	complete(&u->resolved);
	return 0;
}

static void ulp_release(struct ulp_id *u)
{
	/* The QP is gone already, as in the ULPs this imitates. */
	if (u->id)
		rdma_destroy_id(u->id);
	if (u->cq)
		ib_free_cq(u->cq);
	if (u->pd)
		ib_dealloc_pd(u->pd);
	memset(u, 0, sizeof(*u));
}

static int ulp_start(struct ulp_id *u, const char *addr)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(7999) };
	struct ib_qp_init_attr attr = {};
	u32 qpn;
	int ret;

	if (!in4_pton(addr, -1, (u8 *)&dst.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	init_completion(&u->resolved);
	u->id = rdma_create_id(&init_net, ulp_handler, u, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(u->id)) {
		ret = PTR_ERR(u->id);
		u->id = NULL;
		return ret;
	}
	ret = rdma_resolve_addr(u->id, NULL, (struct sockaddr *)&dst, 2000);
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&u->resolved, 5 * HZ))
		return -ETIMEDOUT;
	if (u->status)
		return u->status;

	u->pd = ib_alloc_pd(u->id->device, 0);
	if (IS_ERR(u->pd)) {
		ret = PTR_ERR(u->pd);
		u->pd = NULL;
		return ret;
	}
	u->cq = ib_alloc_cq(u->id->device, NULL, 2, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(u->cq)) {
		ret = PTR_ERR(u->cq);
		u->cq = NULL;
		return ret;
	}
	attr.send_cq = u->cq;
	attr.recv_cq = u->cq;
	attr.qp_type = IB_QPT_RC;
	attr.cap.max_send_wr = 1;
	attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	ret = rdma_create_qp(u->id, u->pd, &attr);
	if (ret)
		return ret;
	qpn = u->id->qp->qp_num;
	ib_destroy_qp(u->id->qp);
	pr_info("rdmastat_ulp_test: qp %u destroyed, id kept on %s\n", qpn,
		dev_name(&u->id->device->dev));
	return 0;
}

static int __init ulp_init(void)
{
	int i, ret;

	for (i = 0; i < n_addrs; i++) {
		ret = ulp_start(&ulps[i], addrs[i]);
		if (ret) {
			pr_err("rdmastat_ulp_test: %s: error %d\n", addrs[i], ret);
			while (i >= 0)
				ulp_release(&ulps[i--]);
			return ret;
		}
	}
	return 0;
}

static void __exit ulp_exit(void)
{
	int i;

	for (i = 0; i < n_addrs; i++)
		ulp_release(&ulps[i]);
}

module_init(ulp_init);
module_exit(ulp_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The rdmastat authors");
MODULE_DESCRIPTION("rdmastat test: a kernel rdma_cm user that destroys its QP before its id");
