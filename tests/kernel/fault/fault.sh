# shellcheck shell=sh
# Lab scenario of the debug kernel's check (tests/lab/debug/check.sh): load
# the deliberate use after free (rdmastat_fault.ko) so that the log check
# that judges the real scenarios is seen to catch it. Returns 0 when the
# module loaded: the verdict is the log check's.
# shellcheck source=tests/lab/guest/lib.sh
. "$LAB/lib.sh"
insmod /lib/modules/extra/rdmastat_fault.ko || exit 1
rmmod rdmastat_fault
dmesg | grep -A3 'KASAN' || echo "fault: no KASAN report in dmesg"
exit 0
