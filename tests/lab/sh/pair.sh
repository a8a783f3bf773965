# shellcheck shell=bash
# lab.sh pair: the two-host lab. Boots guests a and b of the same kernel and
# userspace, joined by two links of their own (QEMU socket netdevs over UDP
# on 127.0.0.1: one for siw, one for rxe), runs one scenario in both and, on
# the host beside them, a driver script. Each guest's `rdmastat serve` port
# 9411 is forwarded to a port of the host's 127.0.0.1 (QEMU user network,
# restricted: nothing else goes in or out).
#
# Output in DIR: a/ and b/ (each guest's /out, as lab.sh run writes it),
# shared/ (the guests' /shared: signal files), driver.log and driver.rc.
# The driver runs with the environment:
#   PAIR_OUT      DIR
#   PAIR_SHARED   DIR/shared (the signal files; the guests' lab_pair_signal
#                 and lab_pair_await; ended-a, ended-b and ended-driver once
#                 a guest's QEMU or the driver has exited, however it ended)
#   PAIR_SCRAPE_A, PAIR_SCRAPE_B   127.0.0.1:PORT of each guest's port 9411
#   PAIR_PROM_PORT  a free TCP port of 127.0.0.1, for the host's Prometheus

lab_pair_usage() {
	die "usage: lab.sh pair [--out DIR] [--bin PATH]... [--ko PATH]... SCENARIO.sh DRIVER"
}

# A port of 127.0.0.1 nothing listens on now (tcp or udp), not in $2, below
# the kernel's ephemeral range (32768 on).
lab_free_port() {
	local proto=$1 taken=" $2 " p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 12768))
		case $taken in *" $p "*) continue ;; esac
		if ! ss -Hln"${proto:0:1}" "sport = :$p" | grep -q .; then
			echo "$p"
			return 0
		fi
	done
	die "no free $proto port on 127.0.0.1"
}

lab_pair() {
	local out="" scenario="" driver="" kver kdir base run h n t0 secs ports="" p
	local -A udp tcp pid
	while [ $# -gt 0 ]; do
		case $1 in
		--out) out=${2:?--out needs a directory} && shift ;;
		--bin | --ko) lab_item "$1" "${2:-}" && shift ;;
		-h | --help) lab_pair_usage ;;
		-*) die "unknown option $1" ;;
		*) if [ -z "$scenario" ]; then
				[ -f "$1" ] || die "scenario $1: no such file"
				scenario=$(realpath "$1")
			elif [ -z "$driver" ]; then
				[ -x "$1" ] || die "driver $1: not an executable file"
				driver=$(realpath "$1")
			else
				lab_pair_usage
			fi ;;
		esac
		shift
	done
	[ -n "$driver" ] || lab_pair_usage
	[ -n "$out" ] || out=$LAB_REPO/build/lab/pair-$(date +%Y%m%d-%H%M%S)-$$
	rm -rf "$out/a" "$out/b" "$out/shared" "$out/driver.log" "$out/driver.rc"
	mkdir -p "$out/a" "$out/b" "$out/shared"
	out=$(realpath "$out")
	n=$(basename "$scenario" .sh)

	kver=$(lab_kver)
	kdir=$LAB_CACHE/$kver
	base=$(lab_base_locked)
	run=$(mktemp "${TMPDIR:-/tmp}/rdmastat-pair-initrd.XXXXXX")
	lab_run_initramfs "$run.part" "${LAB_ITEMS[@]}" -s "$scenario"
	for p in a1 a2 b1 b2; do
		udp[$p]=$(lab_free_port udp "$ports")
		ports="$ports ${udp[$p]}"
	done
	for p in a b prom; do
		tcp[$p]=$(lab_free_port tcp "$ports")
		ports="$ports ${tcp[$p]}"
	done

	# TCG, one CPU each: two guests share the machine's cores with the driver.
	lab_take_guest_slot
	log "booting $kver twice (a, b) with $n; output in $out"
	t0=$(lab_now)
	for h in a b; do
		local num=1 peer=b
		[ "$h" = a ] || num=2 peer=a
		lab_pair_host_cpio "$run.$h" "$h" "$num" "${tcp[$h]}"
		cat "$base" "$run.part" "$run.$h" >"$run-$h"
		# ended-HOST tells the other guest and the driver, whatever the end.
		(r=0
		timeout -k 10 "${RDMASTAT_LAB_TIMEOUT:-600}" qemu-system-x86_64 \
			-machine "q35,accel=${RDMASTAT_LAB_ACCEL:-tcg}" -cpu max -smp 1 \
			-m "${RDMASTAT_LAB_MEM:-1024}" -nographic -no-reboot \
			-kernel "$kdir/root/boot/vmlinuz-$kver" -initrd "$run-$h" \
			-append "console=ttyS0 quiet panic=-1 rdinit=/init" \
			-virtfs "local,path=$out/$h,mount_tag=out,security_model=none" \
			-virtfs "local,path=$out/shared,mount_tag=shared,security_model=none" \
			-netdev "socket,id=f1,udp=127.0.0.1:${udp[${peer}1]},localaddr=127.0.0.1:${udp[${h}1]}" \
			-device "virtio-net-pci,netdev=f1,mac=52:54:00:0$num:00:01" \
			-netdev "socket,id=f2,udp=127.0.0.1:${udp[${peer}2]},localaddr=127.0.0.1:${udp[${h}2]}" \
			-device "virtio-net-pci,netdev=f2,mac=52:54:00:0$num:00:02" \
			-netdev "user,id=u,restrict=on,hostfwd=tcp:127.0.0.1:${tcp[$h]}-:9411" \
			-device "virtio-net-pci,netdev=u,mac=52:54:00:0$num:00:03" \
			</dev/null >"$out/$h/console.log" 2>&1 || r=$?
		: >"$out/shared/ended-$h"
		exit "$r") &
		pid[$h]=$!
	done
	(r=0
	PAIR_OUT=$out PAIR_SHARED=$out/shared PAIR_SCRAPE_A=127.0.0.1:${tcp[a]} \
		PAIR_SCRAPE_B=127.0.0.1:${tcp[b]} PAIR_PROM_PORT=${tcp[prom]} \
		timeout -k 10 "${RDMASTAT_LAB_TIMEOUT:-600}" "$driver" >"$out/driver.log" 2>&1 \
		</dev/null 19>&- || r=$?
	: >"$out/shared/ended-driver"
	exit "$r") &
	pid[driver]=$!
	# An early exit (die, a signal) takes the guests and the driver along:
	# timeout runs each in a process group of its own.
	trap 'pkill -P "${pid[driver]}"; pkill -P "${pid[a]}"; pkill -P "${pid[b]}"' EXIT
	local status=0 rc
	for h in a b driver; do
		rc=0
		wait "${pid[$h]}" || rc=$?
		if [ "$h" = driver ]; then
			echo "$rc" >"$out/driver.rc"
			printf '%-4s %-24s rc=%s\n' "$([ "$rc" = 0 ] && echo ok || echo FAIL)" driver "$rc"
		elif [ "$rc" != 0 ]; then
			log "qemu of $h exited with status $rc; see $out/$h/console.log"
		fi
		[ "$rc" = 0 ] || status=1
	done
	trap - EXIT
	lab_drop_guest_slot
	secs=$(lab_elapsed "$t0")
	rm -f "$run" "$run.part" "$run.a" "$run.b" "$run-a" "$run-b"
	for h in a b; do
		lab_run_report "$out/$h" "$secs" 0 "$n" | sed "s/^/$h: /" || status=1
	done
	return "$status"
}

# The per-guest archive: /lab/host.env names the guest.
lab_pair_host_cpio() {
	local dst=$1 stage
	stage=$(mktemp -d "${TMPDIR:-/tmp}/rdmastat-pair-host.XXXXXX")
	chmod 755 "$stage"
	mkdir -p "$stage/lab"
	printf 'export LAB_HOST=%s LAB_HOST_N=%s LAB_SCRAPE_PORT=%s\n' "$2" "$3" "$4" >"$stage/lab/host.env"
	lab_cpio "$stage" >"$dst"
	rm -rf "$stage"
}
