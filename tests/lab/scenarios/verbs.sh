# shellcheck shell=sh
# Connections made with raw verbs, no rdma_cm: real peers nobody here wrote
# (ibv_rc_pingpong, ib_write_bw and ib_send_bw -q 2 without -R, UCX's
# ucx_perftest over rc_verbs) connect RC QPs on rxe0 by swapping QP numbers
# over TCP, an unprivileged user's ibv_uc_pingpong a UC pair, and a UD
# pingpong binds a UD QP.
# Both ends of each pair are on rxe0 (loopback to its own GID: two rxe
# devices in one namespace cannot reach each other). siw has none: an iWARP
# QP connects only through iw_cm, so every siw QP is a cm id's.
# rdmastat's views (NLDEV, the module, as root and as an unprivileged user)
# are taken while they run, beside `rdma res show qp` and cm_id as referees;
# with the module, root's view names each QP's peer GID (its address vector).
# Writes its evidence to $OUT/verbs; [lab][verbs] judges it.
. "$LAB/lib.sh"
R="$OUT/verbs"
mkdir -p "$R"
capture() { lab_capture "$R" "$@"; }
lab_setup || exit 1

# connected_qps N M: at least N RC QPs with a peer QP number (rdma prints rqpn
# only once it is set) in RTR or RTS (perftest's passive end stays in RTR),
# and M UD QPs in RTS.
connected_qps() {
	[ "$("$LAB_RDMA" res show qp | grep -c "rqpn [1-9][0-9]* type RC state RT[RS] ")" -ge "$1" ] &&
		[ "$("$LAB_RDMA" res show qp | grep -c "type UD state RTS ")" -ge "$2" ]
}
# gid_tables: the GID tables as sysfs has them ("DEV PORT INDEX GID TYPE
# NDEV", - for an attribute the kernel refuses), for rdmastat devices beside
# them. read, not cat: rxe's table has hundreds of entries, and a fork or two
# each took minutes under TCG. Names of its own: start() counts in n.
gid_tables() {
	for gt_dev in /sys/class/infiniband/*; do
		for gt_port in "$gt_dev"/ports/*; do
			for gt_file in "$gt_port"/gids/*; do
				gt_i=${gt_file##*/}
				read -r gt_gid <"$gt_file" || continue
				[ "$gt_gid" != 0000:0000:0000:0000:0000:0000:0000:0000 ] || continue
				read -r gt_type 2>/dev/null <"$gt_port/gid_attrs/types/$gt_i" || gt_type=-
				read -r gt_ndev 2>/dev/null <"$gt_port/gid_attrs/ndevs/$gt_i" || gt_ndev=-
				gt_type=$(echo "$gt_type" | tr ' ' _)
				echo "${gt_dev##*/} ${gt_port##*/} $gt_i $gt_gid ${gt_type:--} ${gt_ndev:--}"
			done
		done
	done
}

# take_views: the referees and every rdmastat view, while the programs run.
take_views() {
	capture rdma-qp.json "$LAB_RDMA" -j res show qp
	capture rdma-cm_id.json "$LAB_RDMA" -j res show cm_id
	gid_tables >"$R/sysfs-gids.txt"
	capture devices.json rdmastat devices -j
	capture devices.txt rdmastat devices
	# NLDEV's bytes of the same moment, for the unit tests' fixtures
	# (tests/fixtures/verbs, kernels/X.Y/verbs: copied from a run by hand).
	if command -v rdmastat-capture >/dev/null; then
		mkdir -p /tmp/verbs-capture "$R/fixtures"
		rdmastat-capture /tmp/verbs-capture >/dev/null &&
			cp /tmp/verbs-capture/devices.bin /tmp/verbs-capture/qp-rxe0.bin \
				/tmp/verbs-capture/cm_id-rxe0.bin "$R/fixtures/" &&
			"$LAB_RDMA" -j res show qp >"$R/fixtures/rdma-qp.json" &&
			"$LAB_RDMA" -j res show cm_id >"$R/fixtures/rdma-cm_id.json"
	fi
	capture nldev.json rdmastat --source nldev -j -a
	capture nldev-stderr.txt sh -c "rdmastat --source nldev -a >/dev/null"
	capture nldev-lab.json su lab -c "rdmastat --source nldev -j -a"
	capture listing.txt rdmastat --source nldev -a -e -p
	capture default.txt rdmastat --source nldev -p
	capture listeners.txt rdmastat --source nldev -l -p
	capture summary.txt rdmastat --source nldev -s
	capture via-verbs.json rdmastat --source nldev -j -a via verbs
	capture via-cm.json rdmastat --source nldev -j -a via cm
	capture state-rts.json rdmastat --source nldev -j state rts
	capture lsof.txt rdmastat lsof -c ibv_rc_pingpong
	capture lsof.json rdmastat lsof -j
	capture export.prom rdmastat export
	loaded=yes
	[ -d /sys/module/rdmastat ] || { loaded=no && insmod /lib/modules/extra/rdmastat.ko; }
	# With the module, root sees each verbs connection's path (its QP's address
	# vector, from RDMASTAT_CMD_QP_GET); an unprivileged user does not, and is told
	# why on stderr.
	capture module.json rdmastat --source module -j -a
	capture module.txt rdmastat --source module -a -e -p
	capture module-lab.json su lab -c "rdmastat --source module -j -a"
	capture auto.json rdmastat -j -a
	# rxe0's GID 1 (every program's -g 1 / -x 1) as sysfs writes it, and a verbs
	# peer's address (port 0) as the module's listing has it.
	gid=$(awk '$1 == "rxe0" && $2 == 1 && $3 == 1 { print $4 }' "$R/sysfs-gids.txt")
	capture gid.json rdmastat --source module -j -a gid "$gid"
	peer=$(grep -o '"peer":{"address":"[^"]*","port":0}' "$R/module.json" | head -n 1 | cut -d'"' -f6)
	capture dst.json rdmastat --source module -j -a dst "$peer"
	# RDMASTAT_CMD_QP_GET's policy refuses every attribute (past its maximum too),
	# and the kernel refuses the unprivileged before anything else.
	capture qp-probe.txt rdmastat-genlprobe rdmastat 2 20
	capture qp-probe-lab.txt su lab -c "rdmastat-genlprobe rdmastat 2 20"
	if command -v rdmastat-capture >/dev/null; then
		mkdir -p /tmp/verbs-module
		rdmastat-capture --module /tmp/verbs-module >/dev/null &&
			cp /tmp/verbs-module/module-qp.bin /tmp/verbs-module/module-dump.bin "$R/fixtures/"
	fi
	[ "$loaded" = yes ] || rmmod rdmastat
	# The referee once more: a QP that changed while rdmastat read is not judged.
	capture rdma-qp-after.json "$LAB_RDMA" -j res show qp
}

# start CMD...: CMD in the background; its pid and command line go to
# /tmp/verbs-started, its output to /tmp/verbs-N.log (N its line there).
n=0
start() {
	n=$((n + 1))
	"$@" >"/tmp/verbs-$n.log" 2>&1 &
	echo "$! $*" >>/tmp/verbs-started
}
ucx_pair() { [ "$("$LAB_RDMA" res show qp | grep ' comm ucx_perftest' | grep -c "type RC state RTS ")" -ge 2 ]; }
uc_pair() { [ "$("$LAB_RDMA" res show qp | grep -c "type UC state RTS ")" -ge 2 ]; }

listening() { lab_wait 10 sh -c "$LAB_SS -tln | grep -q ':$1 '"; }

# start_programs OFFSET: every pair on its ports + OFFSET, connected.
# Iterations enough to outlive the captures under TCG; killed at the end.
start_programs() {
	o=$1
	n=0
	: >/tmp/verbs-started
	rm -f /tmp/verbs-[0-9]*.log
	start ibv_rc_pingpong -d rxe0 -g 1 -n 1000000 -p $((18515 + o))
	listening $((18515 + o)) || return 1
	start ibv_rc_pingpong -d rxe0 -g 1 -n 1000000 -p $((18515 + o)) 127.0.0.1
	start ib_write_bw -d rxe0 -x 1 -D 600 -p $((18600 + o))
	listening $((18600 + o)) || return 1
	start ib_write_bw -d rxe0 -x 1 -D 600 -p $((18600 + o)) 127.0.0.1
	start ib_send_bw -d rxe0 -x 1 -q 2 -D 600 -p $((18601 + o))
	listening $((18601 + o)) || return 1
	start ib_send_bw -d rxe0 -x 1 -q 2 -D 600 -p $((18601 + o)) 127.0.0.1
	start ibv_ud_pingpong -d rxe0 -g 1 -n 1000000 -p $((18516 + o))
	listening $((18516 + o)) || return 1
	start ibv_ud_pingpong -d rxe0 -g 1 -n 1000000 -p $((18516 + o)) 127.0.0.1
	# UCX over its rc_verbs transport, as Open MPI and NCCL's UCX plugin
	# connect (ucx_perftest at the transport level: endpoints connected by
	# address).
	start ucx_perftest -t put_bw -x rc_verbs -d rxe0:1 -n 1000000000 -p $((18530 + o))
	listening $((18530 + o)) || return 1
	start ucx_perftest -t put_bw -x rc_verbs -d rxe0:1 -n 1000000000 -p $((18530 + o)) 127.0.0.1
	# A UC pair of the unprivileged user's own: what the module tells them of it.
	start su lab -c "exec ibv_uc_pingpong -d rxe0 -g 1 -n 1000000 -p $((18517 + o))"
	listening $((18517 + o)) || return 1
	start su lab -c "exec ibv_uc_pingpong -d rxe0 -g 1 -n 1000000 -p $((18517 + o)) 127.0.0.1"
	# 2 + 2 + 4 connected RC QPs, 2 UD ones, 2 UC ones.
	lab_wait_wall 60 connected_qps 8 2 && lab_wait_wall 30 uc_pair && lab_wait_wall 60 ucx_pair
}

stop_programs() {
	while read -r p _; do
		kill "$p" 2>/dev/null || true
	done </tmp/verbs-started
	while read -r p _; do
		wait "$p" 2>/dev/null || true
	done </tmp/verbs-started
	# su passes its TERM on; the guest has no pkill, so /proc names any left.
	for c in /proc/[0-9]*/comm; do
		read -r comm 2>/dev/null <"$c" && [ "$comm" = ibv_uc_pingpong ] || continue
		c=${c%/comm}
		kill "${c#/proc/}" 2>/dev/null || true
	done
	lab_wait 10 sh -c "! grep -qx ibv_uc_pingpong /proc/[0-9]*/comm" || true
}

# ended: each program that is no longer running, with what it printed (the
# rdmastat views below are judged against the QPs its peers had).
ended() {
	i=0
	while read -r p cmd; do
		i=$((i + 1))
		running "$p" && continue
		echo "== ended: $cmd"
		cat "/tmp/verbs-$i.log"
	done </tmp/verbs-started
}

# running PID: PID is a process that has not exited (this shell reaps its
# background jobs only when it waits: one that exited is a zombie until then,
# and kill -0 succeeds on it).
running() {
	while read -r key value _; do
		[ "$key" != State: ] || { [ "$value" != Z ]; return; }
	done 2>/dev/null </proc/"$1"/status
	return 1
}

# A program that ends while rdmastat reads (a peer of perftest's under a
# loaded host, once in CI) leaves views that disagree with each other: every
# program is started again, once, and the repeat is recorded for the judge.
: >"$R/repeats.txt"
for attempt in 1 2; do
	start_programs $(((attempt - 1) * 50)) || {
		"$LAB_RDMA" res show qp
		cat /tmp/verbs-[0-9]*.log
		exit 1
	}
	take_views
	gone=$(ended)
	[ -n "$gone" ] || break
	printf 'attempt %s\n%s\n' "$attempt" "$gone" | tee -a "$R/repeats.txt"
	stop_programs
	[ "$attempt" -lt 2 ] || exit 1
done
mkdir -p "$R/programs"
cp /tmp/verbs-started /tmp/verbs-[0-9]*.log "$R/programs/"
stop_programs
capture after.json rdmastat --source nldev -j -a via verbs
capture rdma-qp-end.json "$LAB_RDMA" -j res show qp
cat "$R/listing.txt"
