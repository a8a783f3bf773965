# The benchmark's report: reads one line per run, "N CM_IDS NAME MICROSECONDS
# MAXRSS_KIB [USER_US SYS_US MINFLT]" (tab-separated, from bench/lab.sh and
# bench/run.sh), prints per N a table of medians with ratios against the raw
# dumps (floor) and against rdma res show cm_id + qp, and where the time went
# (CPU in user space and in the kernel, minor page faults) when the lines say,
# then whether the targets hold; writes everything, each run included, as JSON
# to the file json.
BEGIN {
	FS = "\t"
	label["floor"] = "raw cm_id+QP dumps (rdmastat-floor)"
	label["rdmastat_ape"] = "rdmastat -a -p -e"
	label["rdmastat_aj"] = "rdmastat -a -j"
	label["rdmastat_lsof"] = "rdmastat lsof"
	label["rdma_cm_qp"] = "rdma res show cm_id + qp"
	label["rdma_j_cm"] = "rdma -j res show cm_id"
	label["rdmastat_startup"] = "rdmastat --version (startup only)"
	label["rdmastat_input_ape"] = "rdmastat --input saved.json -a -p -e"
	label["host_text"] = "rdmastat --input N.json -a -p -e (host)"
	label["host_json"] = "rdmastat --input N.json -a -j (host)"
}
NF == 5 || NF == 8 {
	key = $1 SUBSEP $3
	if (!($1 in seen)) { seen[$1] = 1; order[++ns] = $1 }
	if (!(key in count)) { names[$1] = names[$1] " " $3; keys[++nk] = key }
	ids[$1] = $2
	times[key, ++count[key]] = $4
	if ($5 > rss[key]) rss[key] = $5
	# Where the time went, for a command every run of which says.
	if (NF == 8 && $6 != "" && $7 != "" && $8 != "") {
		ncpu[key]++
		user[key, count[key]] = $6; sys[key, count[key]] = $7; faults[key, count[key]] = $8
	}
}
# The median of the c values of key in a (a[key, 1..c]); lo[key] is set to the least.
function median_of(a, key, c, lo,   i, j, v, t) {
	for (i = 1; i <= c; i++) v[i] = a[key, i]
	for (i = 2; i <= c; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
	lo[key] = v[1]
	return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
}
# Median and best of each command's runs, and the medians of its CPU times and faults.
function summarize(   k, key, c, unused) {
	for (k = 1; k <= nk; k++) {
		key = keys[k]; c = count[key]
		median[key] = median_of(times, key, c, best)
		if (ncpu[key] == c) {
			cpu[key] = 1
			muser[key] = median_of(user, key, c, unused)
			msys[key] = median_of(sys, key, c, unused)
			mfaults[key] = median_of(faults, key, c, unused)
		}
	}
}
# A number for JSON: a median of an even count of runs may end in .5.
function num(x) { return x == int(x) ? sprintf("%d", x) : sprintf("%.1f", x) }
function cpu_ms(a, key) { return key in cpu ? ms(a[key]) : "-" }
function ms(us) { return sprintf("%.1f", us / 1000) }
function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
function verdict(ok) { return ok ? "holds" : "MISSED" }
function target(text, ok, value) {
	nt++
	tt[nt] = text; tok[nt] = ok; tv[nt] = value
	printf "  %-62s %-7s %s\n", text, verdict(ok), value
}
END {
	summarize()
	for (s = 1; s <= ns; s++) {
		n = order[s]
		f = median[n, "floor"]; r = median[n, "rdma_cm_qp"]
		printf "\nN=%s (%s %s), median of %d runs\n", n, ids[n], n ~ /^verbs/ ? "connections" : "cm_ids", count[n, "floor"] ? count[n, "floor"] : count[n, "host_text"]
		printf "%-40s %10s %10s %9s %8s %8s %8s %8s %8s\n", "command", "median ms", "best ms", "RSS MiB",
			"/floor", "/rdma", "user ms", "sys ms", "faults"
		m = split(substr(names[n], 2), list, " ")
		for (i = 1; i <= m; i++) {
			k = n SUBSEP list[i]
			printf "%-40s %10s %10s %9.1f %8s %8s %8s %8s %8s\n", label[list[i]], ms(median[k]), ms(best[k]),
				rss[k] / 1024, ratio(median[k], f), ratio(median[k], r), cpu_ms(muser, k),
				cpu_ms(msys, k), k in cpu ? mfaults[k] : "-"
		}
	}
	printf "\ntargets (issue 17)\n"
	if ((10000, "rdmastat_ape") in median) {
		f = median[10000, "floor"]; r = median[10000, "rdma_cm_qp"]
		for (c in label) if (c == "rdmastat_ape" || c == "rdmastat_aj") {
			a = median[10000, c]
			target("N=10000: " label[c] " <= 1.2x raw cm_id+QP dumps", a <= 1.2 * f, ratio(a, f) "x")
			target("N=10000: " label[c] " <= 0.12x rdma res show cm_id + qp", a <= 0.12 * r, ratio(a, r) "x")
		}
		a = median[10000, "rdmastat_lsof"]
		target("N=10000: rdmastat lsof <= 1.5x raw cm_id+QP dumps", a <= 1.5 * f, ratio(a, f) "x")
		for (c in label) if ((10000, c) in rss && c ~ /^rdmastat/)
			target("N=10000: " label[c] " peak RSS < 32 MiB", rss[10000, c] < 32768,
				sprintf("%.1f MiB", rss[10000, c] / 1024))
	}
	# Raw-verbs QPs: the listing's ratio to rdma stays at or under the cm_ids'.
	if (("verbs10000", "rdmastat_ape") in median && (10000, "rdmastat_ape") in median) {
		for (c in label) if (c == "rdmastat_ape" || c == "rdmastat_aj") {
			vr = median["verbs10000", c] / median["verbs10000", "rdma_cm_qp"]
			cr = median[10000, c] / median[10000, "rdma_cm_qp"]
			target("N=verbs10000: " label[c] " /rdma <= N=10000's", vr <= cr,
				sprintf("%.3fx against %.3fx", vr, cr))
		}
	}
	if ((50000, "rdmastat_ape") in median) {
		a = median[50000, "rdmastat_ape"]; f = median[50000, "floor"]
		target("N=50000: rdmastat -a -p -e <= 1.1x raw cm_id+QP dumps", a <= 1.1 * f, ratio(a, f) "x")
	}
	# A million connections in a second; ten million streamed in bounded memory.
	for (s = 1; s <= ns; s++) for (c in label) if ((order[s], c) in median && c ~ /^host_/) {
		n = order[s]; t = median[n, c]; m = rss[n, c]
		shown = sprintf("%.2f s, %.1f MiB", t / 1e6, m / 1024)
		if (n == 1000000)
			target("N=1000000: " label[c] " < 1 s, < 512 MiB", t < 1e6 && m < 524288, shown)
		else if (n >= 10000000)
			target("N=" n ": " label[c] " streamed, peak RSS < 64 MiB", m < 65536, shown)
	}
	if (json == "") exit
	printf "{\"results\": [" > json
	for (k = 1; k <= nk; k++) {
		split(keys[k], v, SUBSEP)
		runs = ""
		for (i = 1; i <= count[keys[k]]; i++) runs = runs (i > 1 ? ", " : "") times[keys[k], i]
		extra = keys[k] in cpu ? sprintf(", \"median_user_us\": %s, \"median_sys_us\": %s, \"median_minflt\": %s",
			num(muser[keys[k]]), num(msys[keys[k]]), num(mfaults[keys[k]])) : ""
		printf "%s\n  {\"n\": %s, \"cm_ids\": %s, \"command\": \"%s\", \"label\": \"%s\", \"median_us\": %s, \"best_us\": %s, \"max_rss_kib\": %s%s, \"runs_us\": [%s]}", \
			(k > 1 ? "," : ""), v[1] ~ /^[0-9]+$/ ? v[1] : "\"" v[1] "\"", ids[v[1]], v[2], label[v[2]], num(median[keys[k]]), best[keys[k]], rss[keys[k]], extra, runs > json
	}
	printf "\n], \"targets\": [" > json
	for (i = 1; i <= nt; i++)
		printf "%s\n  {\"target\": \"%s\", \"holds\": %s, \"value\": \"%s\"}", (i > 1 ? "," : ""), tt[i],
			tok[i] ? "true" : "false", tv[i] > json
	printf "\n]}\n" > json
	close(json)
	printf "\nresults: %s\n", json
}
