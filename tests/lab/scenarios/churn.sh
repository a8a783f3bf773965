# Churn over NLDEV: ids created and destroyed at a high rate on siw and rxe
# while rdmastat lists in a loop (-a -j, -a -p -e, lsof -j). Every listing must
# exit 0; the JSON ones are kept in $OUT/churn and the [lab][churn] tests parse
# every one of them.
. "$LAB/lib.sh"
R="$OUT/churn"
mkdir -p "$R"
lab_setup || exit 1
rmmod rdmastat 2>/dev/null # an earlier scenario may leave it loaded: NLDEV here

rdmastat-cmids -a 10.9.0.1 -n 200 -t 25 -c >"$R/created-siw" 2>&1 &
siw=$!
rdmastat-cmids -a 10.9.0.2 -n 200 -t 25 -c >"$R/created-rxe" 2>&1 &
rxe=$!
round=0
: >"$R/rounds"
while kill -0 "$siw" 2>/dev/null || kill -0 "$rxe" 2>/dev/null; do
	round=$((round + 1))
	rdmastat -a -j >"$R/list-$round.json" 2>"$R/list-$round.err"
	a=$?
	rdmastat -a -p -e >/dev/null 2>>"$R/list-$round.err"
	b=$?
	rdmastat lsof -j >"$R/lsof-$round.json" 2>>"$R/list-$round.err"
	c=$?
	echo "$round $a $b $c" >>"$R/rounds"
done
wait "$siw"
echo "$?" >"$R/siw.rc"
wait "$rxe"
echo "$?" >"$R/rxe.rc"
exit 0
