#!/usr/bin/env bash
# The debug kernel's verdict on a lab run (tests/lab/debug/check.sh):
#   logcheck.sh DIR...     (DIR: what lab.sh run wrote: dmesg.txt, console.log)
# Counts the kernel's reports in each DIR by kind and prints the counts, zeros
# included, as "logcheck: DIR: KASAN n, lockdep n, refcount n, WARN n, BUG n":
#   KASAN     "BUG: KASAN: ..." (any KASAN report)
#   lockdep   possible circular or recursive locking, inconsistent lock state,
#             sleeping in atomic context (DEBUG_ATOMIC_SLEEP), suspicious RCU
#             usage, bad unlock balance, held locks freed or returned to user
#             space, lockdep's tables running out
#   refcount  "refcount_t: ..." (saturation, underflow, increment on 0)
#   WARN      any other "WARNING:" (WARN_ON splats, debug objects' ODEBUG)
#   BUG       any other "BUG:", "kernel BUG at", an Oops, a general protection
#             fault, UBSAN, a kernel panic
# Each line counts once, under the first kind it matches. Both files are read:
# dmesg.txt is the kernel's log when the guest finished, since the last
# scenario that cleared it (dmesg -c); console.log has every error and warning
# line of the whole boot (the debug kernel boots with loglevel=5), and all a
# crashed guest leaves. A kind's count is the larger of the two. Exit 0 iff every count of every DIR is zero and each DIR
# has its dmesg.txt; otherwise the reports are printed with what follows them.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 DIR..." >&2; exit 2; }

# kind of each line that is a report's, as "KIND<TAB>LINE".
classify() {
	awk '
	/KASAN:/ { print "KASAN\t" $0; next }
	/possible circular locking|WARNING: possible|inconsistent lock state|sleeping function called from invalid context|suspicious RCU usage|bad unlock balance|held lock freed|lock held when returning to user space|BUG: MAX_LOCKDEP|BUG: MAX_STACK_TRACE|BUG: scheduling while atomic/ { print "lockdep\t" $0; next }
	/refcount_t:/ { print "refcount\t" $0; next }
	/WARNING:/ { print "WARN\t" $0; next }
	/BUG:|kernel BUG at|Oops:|general protection fault|UBSAN:|Kernel panic/ { print "BUG\t" $0; next }
	' "$1"
}

kinds=(KASAN lockdep refcount WARN BUG)
status=0
for dir in "$@"; do
	declare -A count=()
	for k in "${kinds[@]}"; do count[$k]=0; done
	for f in "$dir/dmesg.txt" "$dir/console.log"; do
		[ -f "$f" ] || continue
		for k in "${kinds[@]}"; do
			n=$(classify "$f" | awk -F'\t' -v k="$k" '$1 == k' | wc -l)
			((n <= count[$k])) || count[$k]=$n
		done
	done
	line="logcheck: $dir:"
	sep=" "
	total=0
	for k in "${kinds[@]}"; do
		line+="$sep$k ${count[$k]}"
		sep=", "
		total=$((total + count[$k]))
	done
	echo "$line"
	if [ ! -f "$dir/dmesg.txt" ]; then
		echo "logcheck: $dir: no dmesg.txt (the guest did not finish): see its console.log"
		status=1
	fi
	if ((total)); then
		status=1
		f=$dir/dmesg.txt
		[ -f "$f" ] || f=$dir/console.log
		echo "---- the reports in $f, each with the 40 lines that follow it:"
		classify "$f" | cut -f2- | while IFS= read -r r; do
			grep -nF -A40 -- "$r" "$f" | head -n 41
			echo "----"
		done | head -n 2000
	fi
	unset count
done
exit "$status"
