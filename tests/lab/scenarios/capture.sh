# shellcheck shell=sh
# Capture: raw NLDEV dump bytes (rdmastat-capture) with the referee's view
# (`rdma -j`) of the same moment, for the unit tests in tests/fixtures.
# Connections are held still (clients stopped) so both views agree.
# shellcheck source=tests/lab/guest/lib.sh
. "$LAB/lib.sh"
set -e
F="$OUT/fixtures"
mkdir -p "$F"
lab_setup
lab_rping_all
rdmastat-capture "$F"
rdma -j res show cm_id >"$F/rdma-cm_id.json"
rdma -j res show qp >"$F/rdma-qp.json"
rdma -j dev show >"$F/rdma-dev.json"
rdma -j link show >"$F/rdma-link.json"
# Owners as /proc shows them, for the join test: "pid uid comm" per line.
for p in $(rdma res show cm_id | sed -n 's/.* pid \([0-9]*\) .*/\1/p' | sort -u); do
	echo "$p $(awk '/^Uid:/ { print $2 }' "/proc/$p/status") $(cat "/proc/$p/comm")"
done >"$F/owners.txt"
[ ! -x /usr/local/bin/rdmastat ] || rdmastat -j -a --pretty >"$F/snapshot.json"
lab_stop_pings

# Enough ids that one device's cm_id dump spans several messages.
rdmastat-cmids -a 10.9.0.1 -n 400 -t 120 >/tmp/cmids.out &
ids=$!
lab_wait 60 grep -q ready /tmp/cmids.out
mkdir -p /tmp/many
rdmastat-capture /tmp/many >/dev/null
cp /tmp/many/cm_id-siw0.bin "$F/cm_id-many-siw0.bin"
rdma -j res show cm_id dev siw0 >"$F/rdma-cm_id-many.json"
kill "$ids"
wait "$ids" || true
ls -l "$F"
