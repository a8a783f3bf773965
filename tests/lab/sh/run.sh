# shellcheck shell=bash
# lab.sh run: boot the guest once under QEMU, run the scenarios, report.

lab_run_usage() {
	die "usage: lab.sh run [--out DIR] [--bin PATH]... [--ko PATH]... SCENARIO.sh..."
}

# lab_item --bin|--ko PATH: checks PATH and appends it to LAB_ITEMS as
# lab_run_initramfs takes it (-b BIN, -k KO), for run and pair alike.
LAB_ITEMS=()
lab_item() {
	case $1 in
	--bin) [ -x "${2:?--bin needs a path}" ] || die "--bin $2: not an executable file"
		LAB_ITEMS+=(-b "$(realpath "$2")") ;;
	--ko) [ -f "${2:?--ko needs a path}" ] || die "--ko $2: no such file"
		LAB_ITEMS+=(-k "$(realpath "$2")") ;;
	esac
}

lab_run() {
	local out="" names=() n kver kdir base run accel append rc t0 secs boot
	while [ $# -gt 0 ]; do
		case $1 in
		--out) out=${2:?--out needs a directory} && shift ;;
		--bin | --ko) lab_item "$1" "${2:-}" && shift ;;
		-h | --help) lab_run_usage ;;
		-*) die "unknown option $1" ;;
		*) [ -f "$1" ] || die "scenario $1: no such file"
			n=$(basename "$1" .sh)
			case " ${names[*]} " in *" $n "*) die "two scenarios named $n" ;; esac
			names+=("$n")
			LAB_ITEMS+=(-s "$(realpath "$1")") ;;
		esac
		shift
	done
	((${#names[@]})) || lab_run_usage
	if [ -z "$out" ]; then
		out=$LAB_REPO/build/lab/run-$(date +%Y%m%d-%H%M%S)-$$
	fi
	mkdir -p "$out"
	out=$(realpath "$out")
	for n in "${names[@]}"; do rm -f "$out/$n.log" "$out/$n.rc"; done
	rm -f "$out/console.log" "$out/console-boot1.log" "$out/dmesg.txt" "$out/summary.tsv"

	kver=$(lab_kver)
	kdir=$LAB_CACHE/$kver
	base=$(lab_base_locked)
	run=$(mktemp "${TMPDIR:-/tmp}/rdmastat-lab-initrd.XXXXXX")
	lab_run_initramfs "$run.part" "${LAB_ITEMS[@]}"
	cat "$base" "$run.part" >"$run"
	rm -f "$run.part"

	# TCG by default: where /dev/kvm exists it may be nested KVM that cannot
	# run this guest (seen: "failed to set MSR 0x10a", or a silent hang).
	accel=${RDMASTAT_LAB_ACCEL:-tcg}
	append="console=ttyS0 quiet panic=-1 rdinit=/init"
	((LAB_DEBUG == 0)) || append+=" $LAB_DEBUG_APPEND" # the debug kernel's (debug.sh)
	lab_take_guest_slot
	log "booting $kver (accel=$accel) with ${names[*]}; output in $out"
	t0=$(lab_now)
	# A kernel that panics before /init ran any scenario (seen once: 6.12 under
	# TCG, an int3 oops in the timer interrupt while the kernel patched its
	# code, 3 s into the boot, no module of ours loaded) is booted once more;
	# its console stays as console-boot1.log. A panic after a scenario began
	# is never retried.
	for boot in 1 2; do
		rc=0
		timeout -k 10 "${RDMASTAT_LAB_TIMEOUT:-600}" qemu-system-x86_64 \
			-machine "q35,accel=$accel" -cpu max -smp "${RDMASTAT_LAB_CPUS:-2}" \
			-m "${RDMASTAT_LAB_MEM:-2048}" -nographic -no-reboot -nic none \
			-kernel "$kdir/root/boot/vmlinuz-$kver" -initrd "$run" \
			-append "$append" \
			-virtfs "local,path=$out,mount_tag=out,security_model=none" \
			</dev/null >"$out/console.log" 2>&1 || rc=$?
		if [ "$boot" = 2 ] || ! lab_panicked_before_init "$out" "${names[@]}"; then
			break
		fi
		log "the guest's kernel panicked before any scenario began: booting again" \
			"(the first boot's console is console-boot1.log)"
		mv "$out/console.log" "$out/console-boot1.log"
	done
	lab_drop_guest_slot
	secs=$(lab_elapsed "$t0")
	rm -f "$run"
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		log "TIMEOUT: the guest did not finish within ${RDMASTAT_LAB_TIMEOUT:-600} s" \
			"(RDMASTAT_LAB_TIMEOUT); see $out/console.log"
	elif [ "$rc" != 0 ]; then
		log "qemu exited with status $rc; see $out/console.log"
	fi
	lab_run_report "$out" "$secs" "$rc" "${names[@]}"
}

# lab_panicked_before_init OUT NAME...: the console shows a kernel panic and
# no scenario left a log.
lab_panicked_before_init() {
	local out=$1 n
	shift
	grep -q 'Kernel panic' "$out/console.log" || return 1
	for n in "$@"; do
		[ ! -e "$out/$n.log" ] || return 1
	done
}

# One line per scenario; status 0 iff every scenario ran and returned 0.
lab_run_report() {
	local out=$1 secs=$2 qrc=$3 n r t failed=0
	shift 3
	for n in "$@"; do
		if [ -f "$out/$n.rc" ]; then
			r=$(cat "$out/$n.rc")
			t=$(awk -F'\t' -v n="$n" '$1 == n { print $3 }' "$out/summary.tsv" 2>/dev/null)
			printf '%-4s %-24s rc=%-3s %6ss\n' "$([ "$r" = 0 ] && echo ok || echo FAIL)" \
				"$n" "$r" "${t:-?}"
			[ "$r" = 0 ] || failed=$((failed + 1))
		elif [ -f "$out/$n.log" ]; then
			printf '%-4s %-24s did not finish (see %s.log, console.log)\n' FAIL "$n" "$n"
			failed=$((failed + 1))
		else
			printf '%-4s %-24s did not run (see console.log)\n' FAIL "$n"
			failed=$((failed + 1))
		fi
	done
	log "$# scenarios, $failed failed, ${secs} s wall; output in $out"
	[ "$failed" = 0 ] && [ "$qrc" = 0 ]
}
