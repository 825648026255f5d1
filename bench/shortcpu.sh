#!/bin/bash
# shortcpu.sh measures the client CPU per value of BenchmarkShortQueries
# cells: every run a process of its own, one P (-test.cpu 1), the drivers'
# order rotating from round to round, and the median of each cell's runs
# printed with its ratio to pgx stdlib's: all CPU time (cpu-ns/value, user
# and system) and the user part alone (user-ns/value: the process's own
# code; the kernel's share is the socket's round trips, which are the same
# for every driver and move by more from run to run than the drivers
# differ).
#
#   PGCACHE_TEST_DSN=... [ROUNDS=n] [QUERIES=n] [VERBOSE=1] [FROM=files] bench/shortcpu.sh PATTERN/ROWS...
#   e.g. ROUNDS=9 bench/shortcpu.sh pairs/1 distinct/1 repeating/1 pairs/20 table-distinct/1
#
# FROM names the saved output of earlier VERBOSE=1 runs: their runs are
# pooled with this one's (ROUNDS=0 measures nothing and only pools).
#
# Why not `go test -bench ShortQueries -count n`: a one-row query's client
# CPU is mostly the kernel's (the socket round trip), and within one process
# each cell also pays for what the cells before it left behind (garbage, the
# scheduler's state), so a cell's place in the sequence moves its figure by
# more than the drivers differ. Separate processes and a rotating order spread
# that evenly. Each run reads QUERIES queries (default 20000 of one row,
# 100000 values' worth of longer ones, at least 50: a second or two each)
# after the benchmark's own warm-up; runs of a fifth of that (1000 queries
# of 20 rows) scattered by up to 9× within one cell. VERBOSE=1 also prints
# every run. Without PGCACHE_TEST_DSN the benchmark starts its own server in
# every process, which works but is slow.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/bench.test
go test -c -o "$bin" .
drivers=(pgx pgcache pgcache-off)
declare -A cpu user
for f in ${FROM:-}; do
	while read -r cell drv _ rest; do
		cpu[$cell/$drv]+="${rest%%;*} " user[$cell/$drv]+="${rest#*; user: } "
	done < <(grep -E '^[a-z-]+/[0-9]+ [a-z-]+ cpu: .*; user: ' "$f")
done
for ((round = 0; round < ${ROUNDS:-7}; round++)); do
	for cell in "$@"; do
		pattern=${cell%/*} rows=${cell#*/}
		n=${QUERIES:-$((rows < 5 ? 20000 : 100000 / rows > 50 ? 100000 / rows : 50))}
		for ((i = 0; i < ${#drivers[@]}; i++)); do
			drv=${drivers[(i + round) % ${#drivers[@]}]}
			read -r c u < <("$bin" -test.run '^$' -test.cpu 1 -test.benchtime "${n}x" \
				-test.bench "^BenchmarkShortQueries\$/^pattern=$pattern\$/^rows=$rows\$/^driver=$drv\$" 2>/dev/null |
				awk '/cpu-ns\/value/ {
					for (f = 2; f <= NF; f++) {
						if ($f == "cpu-ns/value") c = $(f - 1)
						if ($f == "user-ns/value") u = $(f - 1)
					}
					print c, u
				}') || true
			[[ -n ${u:-} ]] || { echo "shortcpu.sh: no figure for $cell $drv" >&2; exit 1; }
			cpu[$cell/$drv]+="$c " user[$cell/$drv]+="$u "
			unset c u
		done
	done
done
median() { printf '%s\n' $1 | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
printf '%-20s %-12s %13s %7s %14s %7s\n' cell driver cpu-ns/value "vs pgx" user-ns/value "vs pgx"
for cell in "$@"; do
	c0=$(median "${cpu[$cell/pgx]}") u0=$(median "${user[$cell/pgx]}")
	for drv in "${drivers[@]}"; do
		c=$(median "${cpu[$cell/$drv]}") u=$(median "${user[$cell/$drv]}")
		printf '%-20s %-12s %13s %6.2f× %14s %6.2f×\n' "$cell" "$drv" "$c" "$(awk -v a="$c" -v b="$c0" 'BEGIN {print a / b}')" \
			"$u" "$(awk -v a="$u" -v b="$u0" 'BEGIN {print a / b}')"
	done
done
if [[ -n ${VERBOSE:-} ]]; then
	for cell in "$@"; do
		for drv in "${drivers[@]}"; do
			printf '%s %s cpu: %s; user: %s\n' "$cell" "$drv" "${cpu[$cell/$drv]% }" "${user[$cell/$drv]% }"
		done
	done
fi
