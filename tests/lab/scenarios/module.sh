# rdmastat.ko in the lab: its dump against NLDEV's and rdma's on the same ids,
# the unprivileged-user policy, churn while dumping, and rmmod while dumping.
# Writes its evidence to $OUT/module; the host-side [lab][module] tests judge it.
. "$LAB/lib.sh"
R="$OUT/module"
mkdir -p "$R/fixtures"
capture() { lab_capture "$R" "$@"; }

lab_setup || exit 1

lab_section "no autoload: a family lookup does not load an installed module"
# Installed where modprobe finds them, as DKMS installs them.
loaded() { [ -d "/sys/module/$1" ] && echo yes || echo no; }
echo "$(loaded rdmastat) $(loaded rdmastat_kping)" >"$R/autoload-before"
kdir=/lib/modules/$(uname -r)
mkdir -p "$kdir/extra" /etc/modprobe.d
cp /lib/modules/extra/rdmastat.ko /lib/modules/extra/rdmastat_kping.ko "$kdir/extra/"
cp "$kdir/modules.dep" /tmp/modules.dep.orig
printf 'extra/rdmastat.ko:\nextra/rdmastat_kping.ko:\n' >>"$kdir/modules.dep"
capture autoload-lab.txt su lab -c "rdmastat --source module -a"
capture autoload-lab-kping.txt su lab -c "rdmastat kping show"
capture autoload-root.txt rdmastat --source module -a
echo "$(loaded rdmastat) $(loaded rdmastat_kping)" >"$R/autoload-after"
# The control: given the alias the modules no longer carry, the same lookup
# loads rdmastat, so the check above can fail.
echo "alias net-pf-16-proto-16-family-rdmastat rdmastat" >/etc/modprobe.d/lab-autoload.conf
capture autoload-control.txt su lab -c "rdmastat --source module -a"
loaded rdmastat >"$R/autoload-control"
rm -f /etc/modprobe.d/lab-autoload.conf
rmmod rdmastat 2>/dev/null
# What an admin does instead.
capture autoload-modprobe.txt modprobe rdmastat
loaded rdmastat >"$R/autoload-modprobe"
rmmod rdmastat 2>/dev/null
cp /tmp/modules.dep.orig "$kdir/modules.dep"
rm -rf "$kdir/extra"

insmod /lib/modules/extra/rdmastat.ko || exit 1
lab_rping_all || exit 1
# A connection of the unprivileged user's own, beside root's.
su lab -c "rping -s -a 10.9.0.1 -p 7178" >/tmp/rping-lab-s.log 2>&1 &
lab_wait 10 lab_cm_listening 7178 || exit 1
su lab -c "rping -c -a 10.9.0.1 -p 7178" >/tmp/rping-lab-c.log 2>&1 &
lab_wait 20 lab_cm_connected_ge 7178 2 || exit 1
# Root's clients are stopped; the lab user's keeps pinging on a stable id.

capture rdma-cm_id.json rdma -j res show cm_id
capture rdma-qp.json rdma -j res show qp
capture module.json rdmastat --source module -j -a
capture nldev.json rdmastat --source nldev -j -a
capture auto.json rdmastat -j -a
capture lab-module.json su lab -c "rdmastat --source module -j -a"
capture listing-module.txt rdmastat --source module -a -p -e
capture listing-nldev.txt rdmastat --source nldev -a -p -e
capture fixtures.txt rdmastat-capture --module "$R/fixtures"
cp "$R/rdma-cm_id.json" "$R/fixtures/module-rdma-cm_id.json"
cp "$R/rdma-qp.json" "$R/fixtures/module-rdma-qp.json"
id -u lab >"$R/lab-uid"
lab_stop_pings
killall rping 2>/dev/null
sleep 0.5

# Churn: ids created and destroyed in a loop while dumping in a loop; every
# dump must succeed and parse back (rdmastat --input is the JSON validator).
rdmastat-cmids -a 10.9.0.1 -n 100 -t 20 -m 1000 -c >"$R/churn-created" &
churn=$!
dumps=0
bad=0
t0=$(cut -d' ' -f1 /proc/uptime)
while kill -0 "$churn" 2>/dev/null; do
	if rdmastat --source module -j -a >/tmp/dump.json 2>/tmp/dump.err &&
		rdmastat --input /tmp/dump.json -a -H >/dev/null 2>>/tmp/dump.err; then
		:
	else
		bad=$((bad + 1))
		cat /tmp/dump.err >>"$R/churn-errors"
	fi
	dumps=$((dumps + 1))
done
wait "$churn"
echo "$dumps $bad $t0 $(cut -d' ' -f1 /proc/uptime)" >"$R/churn-dumps"

# rmmod while a dump loop and churn run, 20 times: a dump in flight holds the
# module, so rmmod may be refused; it must never crash or leave anything behind.
rdmastat-cmids -a 10.9.0.1 -n 100 -t 30 -c >/dev/null &
churn=$!
(while :; do rdmastat --source module -a >/dev/null 2>&1; done) &
loop=$!
cycles=0
refused=0
while [ "$cycles" -lt 20 ]; do
	[ "$cycles" = 0 ] || insmod /lib/modules/extra/rdmastat.ko || break
	sleep 0.3
	tries=0
	until rmmod rdmastat 2>/dev/null; do
		tries=$((tries + 1))
		[ "$tries" -lt 500 ] || break
		sleep 0.01
	done
	refused=$((refused + tries))
	cycles=$((cycles + 1))
done
echo "$cycles $refused" >"$R/rmmod-cycles"
grep -c '^rdmastat ' /proc/modules >"$R/loaded-after" || true
kill "$loop"
kill "$churn"
wait "$churn" 2>/dev/null
capture gone.txt rdmastat --source module -a
capture gone-auto.txt rdmastat -a -j
# Loaded again, it works again.
insmod /lib/modules/extra/rdmastat.ko && capture reloaded.json rdmastat --source module -j -a
rmmod rdmastat
dmesg >"$R/dmesg.txt"
