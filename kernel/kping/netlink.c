// SPDX-License-Identifier: GPL-2.0
/*
 * The "rdmastat_kping" generic netlink family: START and STOP (CAP_NET_ADMIN)
 * and GET (one run, or a dump of all) with each run's statistics.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/stringify.h>
#include <net/genetlink.h>
#include <net/sock.h>
#include <uapi/linux/rdmastat_kping.h>

#include "kping.h"

static struct genl_family kping_family;

static int kping_put_addr(struct sk_buff *skb, const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

	if (ss->ss_family == AF_INET)
		return nla_put(skb, RDMASTAT_KPING_A_ADDR, sizeof(sin->sin_addr),
			       &sin->sin_addr) ?:
		       nla_put_u16(skb, RDMASTAT_KPING_A_PORT, ntohs(sin->sin_port));
	return nla_put(skb, RDMASTAT_KPING_A_ADDR, sizeof(sin6->sin6_addr),
		       &sin6->sin6_addr) ?:
	       nla_put_u16(skb, RDMASTAT_KPING_A_PORT, ntohs(sin6->sin6_port));
}

static int kping_put_peer(struct sk_buff *skb, const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return nla_put(skb, RDMASTAT_KPING_A_PEER, sizeof(struct sockaddr_in), ss);
	if (ss->ss_family == AF_INET6)
		return nla_put(skb, RDMASTAT_KPING_A_PEER, sizeof(struct sockaddr_in6), ss);
	return 0;
}

static int kping_put_u64(struct sk_buff *skb, int type, u64 value)
{
	return nla_put_u64_64bit(skb, type, value, RDMASTAT_KPING_A_PAD);
}

/* The run's attributes; called under run->lock (nothing here sleeps). */
static int kping_put_run(struct sk_buff *skb, const struct kping_run *run)
{
	const struct kping_stats *st = &run->st;
	u64 end = st->end_ns ? st->end_ns : ktime_get_ns();
	const struct {
		int type;
		u64 value;
	} counters[] = {
		{ RDMASTAT_KPING_A_ITERS, st->iters },
		{ RDMASTAT_KPING_A_SEND_OPS, st->send_ops },
		{ RDMASTAT_KPING_A_SEND_BYTES, st->send_bytes },
		{ RDMASTAT_KPING_A_RECV_OPS, st->recv_ops },
		{ RDMASTAT_KPING_A_RECV_BYTES, st->recv_bytes },
		{ RDMASTAT_KPING_A_WRITE_OPS, st->write_ops },
		{ RDMASTAT_KPING_A_WRITE_BYTES, st->write_bytes },
		{ RDMASTAT_KPING_A_READ_OPS, st->read_ops },
		{ RDMASTAT_KPING_A_READ_BYTES, st->read_bytes },
		{ RDMASTAT_KPING_A_REG_OPS, st->reg_ops },
		{ RDMASTAT_KPING_A_INV_OPS, st->inv_ops },
		{ RDMASTAT_KPING_A_REMOTE_INV_OPS, st->remote_inv_ops },
	};
	int i;

	if (nla_put_u32(skb, RDMASTAT_KPING_A_ID, run->id) ||
	    nla_put_u8(skb, RDMASTAT_KPING_A_ROLE, run->p.role) ||
	    kping_put_addr(skb, &run->p.addr) ||
	    nla_put_u32(skb, RDMASTAT_KPING_A_COUNT, run->p.count) ||
	    nla_put_u32(skb, RDMASTAT_KPING_A_SIZE, run->p.size) ||
	    (run->p.validate && nla_put_flag(skb, RDMASTAT_KPING_A_VALIDATE)) ||
	    nla_put_u8(skb, RDMASTAT_KPING_A_MODE, run->p.mode) ||
	    nla_put_u32(skb, RDMASTAT_KPING_A_DEPTH, run->p.depth) ||
	    nla_put_u8(skb, RDMASTAT_KPING_A_MEM, run->p.mem) ||
	    nla_put_u32(skb, RDMASTAT_KPING_A_TIMEOUT_MS, run->p.timeout_ms) ||
	    nla_put_u8(skb, RDMASTAT_KPING_A_STATE, run->state))
		return -EMSGSIZE;
	if (run->error &&
	    (nla_put_u32(skb, RDMASTAT_KPING_A_ERROR, run->error) ||
	     nla_put_string(skb, RDMASTAT_KPING_A_ERROR_MSG, run->error_msg)))
		return -EMSGSIZE;
	if (kping_put_peer(skb, &run->peer_addr) ||
	    (run->dev_name[0] &&
	     nla_put_string(skb, RDMASTAT_KPING_A_DEV_NAME, run->dev_name)))
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(counters); i++)
		if (kping_put_u64(skb, counters[i].type, counters[i].value))
			return -EMSGSIZE;
	if (st->lat_sum &&
	    (kping_put_u64(skb, RDMASTAT_KPING_A_LAT_MIN_NS, st->lat_min) ||
	     kping_put_u64(skb, RDMASTAT_KPING_A_LAT_MAX_NS, st->lat_max) ||
	     kping_put_u64(skb, RDMASTAT_KPING_A_LAT_SUM_NS, st->lat_sum)))
		return -EMSGSIZE;
	if (st->start_ns &&
	    kping_put_u64(skb, RDMASTAT_KPING_A_ELAPSED_NS, end - st->start_ns))
		return -EMSGSIZE;
	return 0;
}

/* One run's message; cb for a dump, whose messages then say if it was cut. */
static int kping_fill(struct sk_buff *skb, struct kping_run *run, u32 portid,
		      u32 seq, int flags, u8 cmd, struct netlink_callback *cb)
{
	unsigned long irqflags;
	void *hdr;
	int ret;

	hdr = genlmsg_put(skb, portid, seq, &kping_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	spin_lock_irqsave(&run->lock, irqflags);
	ret = kping_put_run(skb, run);
	spin_unlock_irqrestore(&run->lock, irqflags);
	if (ret) {
		genlmsg_cancel(skb, hdr);
		return ret;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int kping_reply(struct genl_info *info, struct kping_run *run)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	int ret;

	if (!msg)
		return -ENOMEM;
	ret = kping_fill(msg, run, info->snd_portid, info->snd_seq, 0, info->genlhdr->cmd,
			 NULL);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

#define KPING_BAD(info, type, text) ({					\
	NL_SET_ERR_MSG_ATTR((info)->extack, (info)->attrs[type], text);	\
	-EINVAL; })

static u32 kping_u32(struct genl_info *info, int type, u32 dflt)
{
	return info->attrs[type] ? nla_get_u32(info->attrs[type]) : dflt;
}

static u8 kping_u8(struct genl_info *info, int type, u8 dflt)
{
	return info->attrs[type] ? nla_get_u8(info->attrs[type]) : dflt;
}

/* START's attributes into p; an extended ack names the first bad one. */
static int kping_parse(struct genl_info *info, struct kping_params *p)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&p->addr;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&p->addr;
	struct nlattr *addr = info->attrs[RDMASTAT_KPING_A_ADDR];
	u16 port;

	if (GENL_REQ_ATTR_CHECK(info, RDMASTAT_KPING_A_ROLE)) {
		NL_SET_ERR_MSG(info->extack, "role (RDMASTAT_KPING_A_ROLE) missing");
		return -EINVAL;
	}
	if (GENL_REQ_ATTR_CHECK(info, RDMASTAT_KPING_A_ADDR)) {
		NL_SET_ERR_MSG(info->extack, "address (RDMASTAT_KPING_A_ADDR) missing");
		return -EINVAL;
	}
	if (GENL_REQ_ATTR_CHECK(info, RDMASTAT_KPING_A_PORT)) {
		NL_SET_ERR_MSG(info->extack, "port (RDMASTAT_KPING_A_PORT) missing");
		return -EINVAL;
	}
	memset(p, 0, sizeof(*p));
	p->role = nla_get_u8(info->attrs[RDMASTAT_KPING_A_ROLE]);
	port = nla_get_u16(info->attrs[RDMASTAT_KPING_A_PORT]);
	if (nla_len(addr) == sizeof(sin->sin_addr)) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		nla_memcpy(&sin->sin_addr, addr, sizeof(sin->sin_addr));
	} else if (nla_len(addr) == sizeof(sin6->sin6_addr)) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		nla_memcpy(&sin6->sin6_addr, addr, sizeof(sin6->sin6_addr));
	} else {
		return KPING_BAD(info, RDMASTAT_KPING_A_ADDR,
				 "RDMASTAT_KPING_A_ADDR: not 4 (IPv4) or 16 (IPv6) bytes");
	}
	if (p->role == RDMASTAT_KPING_ROLE_CLIENT &&
	    (sin->sin_family == AF_INET ? !sin->sin_addr.s_addr :
	     ipv6_addr_any(&sin6->sin6_addr)))
		return KPING_BAD(info, RDMASTAT_KPING_A_ADDR,
				 "RDMASTAT_KPING_A_ADDR: a client needs the server's address");

	p->mode = kping_u8(info, RDMASTAT_KPING_A_MODE, RDMASTAT_KPING_MODE_PING);
	if (p->role == RDMASTAT_KPING_ROLE_SERVER && p->mode != RDMASTAT_KPING_MODE_PING)
		return KPING_BAD(info, RDMASTAT_KPING_A_MODE,
				 "RDMASTAT_KPING_A_MODE: a server follows its client's mode");
	p->mem = kping_u8(info, RDMASTAT_KPING_A_MEM, RDMASTAT_KPING_MEM_FRWR_LOCAL);
	/*
	 * The DMA mode advertises the PD's global rkey: the peer can then read
	 * and write any memory of this host. Only a module loaded with the
	 * parameter below, and a run that asks for it, get it.
	 */
	if (p->mem == RDMASTAT_KPING_MEM_DMA && !kping_allow_unsafe_global_rkey) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RDMASTAT_KPING_A_MEM],
				    "RDMASTAT_KPING_A_MEM: the dma mode gives the peer all host memory; load rdmastat_kping with allow_unsafe_global_rkey=1 to allow it");
		return -EPERM;
	}
	p->count = kping_u32(info, RDMASTAT_KPING_A_COUNT, 0);
	p->validate = nla_get_flag(info->attrs[RDMASTAT_KPING_A_VALIDATE]);
	p->depth = kping_u32(info, RDMASTAT_KPING_A_DEPTH, RDMASTAT_KPING_DEPTH_DEFAULT);
	p->timeout_ms = kping_u32(info, RDMASTAT_KPING_A_TIMEOUT_MS,
				  RDMASTAT_KPING_TIMEOUT_DEFAULT_MS);
	p->size = kping_u32(info, RDMASTAT_KPING_A_SIZE,
			    p->role == RDMASTAT_KPING_ROLE_SERVER ?
			    RDMASTAT_KPING_PING_MAX_SIZE : RDMASTAT_KPING_CLIENT_SIZE);
	if (p->mode == RDMASTAT_KPING_MODE_PING &&
	    (p->size < RDMASTAT_KPING_PING_MIN_SIZE || p->size > RDMASTAT_KPING_PING_MAX_SIZE))
		return KPING_BAD(info, RDMASTAT_KPING_A_SIZE,
				 "RDMASTAT_KPING_A_SIZE: the ping mode takes "
				 __stringify(RDMASTAT_KPING_PING_MIN_SIZE) " to "
				 __stringify(RDMASTAT_KPING_PING_MAX_SIZE) " bytes");
	return 0;
}

/*
 * START answers with the run's id or leaves no run: the run's thread starts
 * only once the reply is on its way; a reply that cannot be built or sent
 * takes the run back (its thread never ran). kping_mutex, held until the
 * thread starts, keeps a STOP of the id just sent from freeing it first.
 */
static int kping_start_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kping_run *run, *gone = NULL;
	struct kping_params p;
	struct sk_buff *msg;
	int ret;

	ret = kping_parse(info, &p);
	if (ret)
		return ret;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&kping_mutex);
	ret = kping_run_start(genl_info_net(info), &p, &run);
	if (ret == -ENOSPC)
		NL_SET_ERR_MSG(info->extack, "too many runs: stop some first");
	if (!ret) {
		ret = kping_fill(msg, run, info->snd_portid, info->snd_seq, 0,
				 info->genlhdr->cmd, NULL);
		if (!ret) {
			/* Consumes msg, sent or not. */
			ret = genlmsg_reply(msg, info);
			msg = NULL;
		}
		if (!ret) {
			kping_run_go(run);
		} else {
			kping_run_unlink(run);
			gone = run;
		}
	}
	mutex_unlock(&kping_mutex);
	nlmsg_free(msg);
	if (gone) {
		kping_run_stop(gone);
		kping_run_free(gone);
	}
	return ret;
}

static struct kping_run *kping_lookup(struct genl_info *info)
{
	struct kping_run *run;

	if (GENL_REQ_ATTR_CHECK(info, RDMASTAT_KPING_A_ID)) {
		NL_SET_ERR_MSG(info->extack, "run id (RDMASTAT_KPING_A_ID) missing");
		return ERR_PTR(-EINVAL);
	}
	run = kping_run_find(genl_info_net(info),
			     nla_get_u32(info->attrs[RDMASTAT_KPING_A_ID]));
	if (!run) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RDMASTAT_KPING_A_ID],
				    "RDMASTAT_KPING_A_ID: no run with this id");
		return ERR_PTR(-ENOENT);
	}
	return run;
}

static int kping_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kping_run *run;
	int ret;

	mutex_lock(&kping_mutex);
	run = kping_lookup(info);
	if (!IS_ERR(run))
		kping_run_unlink(run);
	mutex_unlock(&kping_mutex);
	if (IS_ERR(run))
		return PTR_ERR(run);
	/* Ours alone now: the thread's teardown may sleep, no lock held. */
	kping_run_stop(run);
	ret = kping_reply(info, run);
	kping_run_free(run);
	return ret;
}

static int kping_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kping_run *run;
	int ret;

	mutex_lock(&kping_mutex);
	run = kping_lookup(info);
	ret = IS_ERR(run) ? PTR_ERR(run) : kping_reply(info, run);
	mutex_unlock(&kping_mutex);
	return ret;
}

/* cb->args[0]: the id of the last run sent; ids grow along the list. */
static int kping_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct kping_run *run;
	int ret = 0;

	mutex_lock(&kping_mutex);
	/* Runs started or stopped between two parts of a dump flag it. */
	cb->seq = kping_generation;
	list_for_each_entry(run, &kping_runs, node) {
		if (run->id <= cb->args[0] || !net_eq(run->net, net))
			continue;
		ret = kping_fill(skb, run, NETLINK_CB(cb->skb).portid,
				 cb->nlh->nlmsg_seq, NLM_F_MULTI, RDMASTAT_KPING_CMD_GET, cb);
		if (ret)
			break;
		cb->args[0] = run->id;
	}
	mutex_unlock(&kping_mutex);
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ? ret : skb->len;
}

/*
 * Per-command policies: the core refuses what they do not allow, with an
 * extended ack pointing at the attribute. What they cannot say (an address
 * of 4 or 16 bytes, the ping mode's sizes, the dma mode's parameter) is
 * checked in kping_parse().
 */
static struct netlink_range_validation kping_size_range = {
	.min = 1,
	.max = RDMASTAT_KPING_MAX_SIZE,
};

static struct netlink_range_validation kping_timeout_range = {
	.min = RDMASTAT_KPING_TIMEOUT_MIN_MS,
	.max = RDMASTAT_KPING_TIMEOUT_MAX_MS,
};

/* The reply's attributes in between are NLA_UNSPEC here: refused. */
static const struct nla_policy kping_start_policy[RDMASTAT_KPING_A_TIMEOUT_MS + 1] = {
	[RDMASTAT_KPING_A_ROLE] = NLA_POLICY_MAX(NLA_U8, RDMASTAT_KPING_ROLE_MAX),
	[RDMASTAT_KPING_A_ADDR] = NLA_POLICY_RANGE(NLA_BINARY, 4, 16),
	[RDMASTAT_KPING_A_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[RDMASTAT_KPING_A_COUNT] = { .type = NLA_U32 },
	[RDMASTAT_KPING_A_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &kping_size_range),
	[RDMASTAT_KPING_A_VALIDATE] = { .type = NLA_FLAG },
	[RDMASTAT_KPING_A_MODE] = NLA_POLICY_MAX(NLA_U8, RDMASTAT_KPING_MODE_MAX),
	[RDMASTAT_KPING_A_DEPTH] = NLA_POLICY_RANGE(NLA_U32, RDMASTAT_KPING_DEPTH_MIN,
						    RDMASTAT_KPING_DEPTH_MAX),
	[RDMASTAT_KPING_A_MEM] = NLA_POLICY_MAX(NLA_U8, RDMASTAT_KPING_MEM_MAX),
	[RDMASTAT_KPING_A_TIMEOUT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &kping_timeout_range),
};

static const struct nla_policy kping_id_policy[RDMASTAT_KPING_A_ID + 1] = {
	[RDMASTAT_KPING_A_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct genl_ops kping_ops[] = {
	{
		.cmd = RDMASTAT_KPING_CMD_START,
		.flags = GENL_ADMIN_PERM,
		.doit = kping_start_doit,
		.policy = kping_start_policy,
		.maxattr = ARRAY_SIZE(kping_start_policy) - 1,
	},
	{
		.cmd = RDMASTAT_KPING_CMD_STOP,
		.flags = GENL_ADMIN_PERM,
		.doit = kping_stop_doit,
		.policy = kping_id_policy,
		.maxattr = ARRAY_SIZE(kping_id_policy) - 1,
	},
	{
		/* A dump takes the same policy; it lists every run. */
		.cmd = RDMASTAT_KPING_CMD_GET,
		.doit = kping_get_doit,
		.dumpit = kping_get_dumpit,
		.policy = kping_id_policy,
		.maxattr = ARRAY_SIZE(kping_id_policy) - 1,
	},
};

/*
 * parallel_ops: kping_mutex guards the runs, so nothing needs the global
 * genl mutex (a STOP waits for a thread's teardown). resv_start_op is 0:
 * every request is strictly validated.
 */
static struct genl_family kping_family __ro_after_init = {
	.name = RDMASTAT_KPING_GENL_NAME,
	.version = RDMASTAT_KPING_GENL_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = kping_ops,
	.n_ops = ARRAY_SIZE(kping_ops),
};

int kping_netlink_init(void)
{
	return genl_register_family(&kping_family);
}

void kping_netlink_exit(void)
{
	genl_unregister_family(&kping_family);
}
