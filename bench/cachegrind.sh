#!/bin/bash
# cachegrind.sh counts the client instructions per value of BenchmarkScan
# cells with valgrind's cachegrind: a figure that, unlike CPU time on a
# shared 2-core machine, does not move by ±10-30% from one run to the next.
#
#   PGCACHE_TEST_DSN=... [RUNS=n] [DEST=d] bench/cachegrind.sh DATA ROWS×COLUMNS DRIVER...
#   e.g. RUNS=3 bench/cachegrind.sh orderlines 3200000 pgx 'pgcache\+types'
#        RUNS=3 bench/cachegrind.sh shop 1600000 pgx pgcache pgcache-off 'pgcache\+types'
#        DEST=pgcache-typed bench/cachegrind.sh shop 1600000 pgcache
#        DEST=string bench/cachegrind.sh repetitive 1000000 pgx pgcache
#
# ROWS×COLUMNS is the data set's values per scan (orderlines 200000 × 16,
# shop 200000 × 8, …; see bench/README.md). DEST is the cells' destination
# (default natural, which the mixed data sets have; shop also has typed and
# pgcache-typed; the numeric and hstore ones are scanned into string, …).
#
# With RUNS=n each cell runs n times, the drivers interleaved, and the
# median is printed with the runs.
#
# With DATA short/PATTERN/ROWS it counts BenchmarkShortQueries cells instead,
# per query: the instructions of FROM+N queries of ROWS rows of PATTERN
# (pairs, distinct, repeating, or their table-backed twins table-pairs,
# table-distinct and table-repeating) less those of FROM (default 200),
# divided by N (the second argument), so that starting the program and the
# warm-up drop out;
# one P (-test.cpu 1), as the benchmark's comment asks. No data set is
# needed: the table of the table-* patterns is created, if missing, by one
# run of the cell outside valgrind before the counted ones.
#
#   RUNS=3 bench/cachegrind.sh short/distinct/1 3000 pgx pgcache pgcache-off
#
# FROM=n counts the queries after the first n instead: FROM=6000 counts
# one-row queries of columns the back-off has judged (a column's first
# window is probeWindow = 5120 of its values), the default 200 those of
# columns it is still watching.
#
# With PARTS=n a short-query count also prints, under each driver's line,
# the n functions of this module (github.com/pgcache/pgcache…) that cost
# the most instructions per query, with their share: where a query's cost
# over pgcache=off's goes (planning and starting a result set, the lookups,
# publishing its counts). A function's figure counts its own instructions,
# not those of the functions it calls.
#
#   PARTS=12 bench/cachegrind.sh short/table-distinct/1 1000 pgcache pgcache-off
#
# With DATA kinds/KIND it counts the root package's BenchmarkKindHits
# instead: a column of the fixed-size kind KIND (int2, int4, int8, float8,
# date, timestamp, timestamptz) whose every value hits, replayed through
# Next, per value, for each "driver" named, which is a mode: none (the
# column uncached) or KIND (cached). The second argument is ignored; the
# count is that of 5 replays less that of 3 (each run replays once more
# and reads the result set from the server twice), over their 400000
# values:
#
#   bench/cachegrind.sh kinds/date 0 none date
#
# It needs valgrind (apt-get install valgrind) and a server that already
# holds the data set (run the benchmark once against $PGCACHE_TEST_DSN
# first), so that loading it is not counted. Each cell runs 3 timed scans
# plus the untimed warm-up scan, with GOGC=off: the collector's work depends
# on wall time under valgrind and changes the count by several percent from
# run to run, so this counts the work of the code itself, allocation
# included, and allocations (which the benchmarks report exactly) stand for
# the garbage. For the same reason the Go scheduler's idle spinning
# (runtime/proc.go, lock_spinbit.go, …, and its functions inlined into
# other files, and the goroutine switch gogo) is left out, and so is what
# it does while the goroutine waits for the server: the epoll poller,
# stealing work, parking and waking, sysmon, the timers, the GC CPU
# limiter's idle accounting (cgsum.awk lists them).
# Every other function is summed (--threshold=0): with cg_annotate's default
# 0.1% threshold, which functions made the list depended on how long the
# scheduler spun. Checked: a long scan counts the same to the instruction
# three times in a row. A short query's count leaves out the memory
# profiler (GODEBUG's memprofilerate=0): its stack walk at an allocation
# it samples, one in about 512 KiB on average, costs tens of thousands of
# instructions, so the few a thousand queries sample moved the count by
# 1% either way from one process to the next. (What the profiler costs an
# application follows the bytes it allocates, which the benchmarks
# report; a long scan's count keeps it, spread over many samples.) It
# still moves by a percent or so (map probes, whose cost follows the
# process's random hash seed, the number of socket reads), so compare
# medians of RUNS=3 there, and the module's own functions (PARTS), which
# repeat exactly.
#
# The runs set GODEBUG=cpu.rdtscp=off (after any GODEBUG of the caller's): valgrind 3.19 (Debian 12's) does
# not decode RDTSCP, which the Go runtime's cputicks uses where the CPU has
# it (the AMD machines here do), and the program dies of SIGILL under it;
# cputicks, which the scheduler calls now and then, takes its fenced RDTSC
# instead. A run that fails stops the script with its output's tail.
set -euo pipefail
shopt -s inherit_errexit # a failed run inside $(…) stops the script too
data=$1 values=$2 from=${FROM:-200}
shift 2
: "${PGCACHE_TEST_DSN:?set PGCACHE_TEST_DSN to a server holding the data set}"
cd "$(dirname "$0")"
here=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/bench.test
profiler= # the memory profiler's rate, GODEBUG's: the default, but for short queries (above)
[[ $data == short/* ]] && profiler=,memprofilerate=0
if [[ $data == kinds/* ]]; then
	(cd .. && go test -c -o "$bin" .) # BenchmarkKindHits is the root package's
else
	go test -c -o "$bin" .
fi
# total BENCH N [FLAG...] prints the client instructions of a run of the
# benchmark cell BENCH (a -test.bench pattern) N times.
total() {
	local out=$tmp/cachegrind.out sel=$1 n=$2
	shift 2
	if ! GODEBUG=${GODEBUG:+$GODEBUG,}cpu.rdtscp=off$profiler GOGC=off valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$out" "$bin" \
		-test.run '^$' -test.bench "$sel" -test.benchtime "${n}x" "$@" >"$tmp/run.log" 2>&1; then
		# A count of a run that failed would be a wrong figure, not a low one.
		echo "cachegrind.sh: the run of $sel ${n}x failed:" >&2
		grep -v '^==' "$tmp/run.log" | tail -n 20 >&2
		exit 1
	fi
	cg_annotate --threshold=0 "$out" | awk -f "$here/cgsum.awk"
	if [[ -n ${PARTS:-} ]]; then
		# Each function of the module and its own instructions, for parts.
		cg_annotate --threshold=0 "$out" | awk '/file:function/ { on = 1; next }
			/Auto-annotated source/ { on = 0 }
			on && $2 ~ /^\(/ && /:github\.com\/pgcache\/pgcache/ {
				n = $1; gsub(",", "", n); sub(/^.*:github\.com\/pgcache\/pgcache/, "pgcache"); f[$0] += n
			}
			END { for (k in f) print f[k] "\t" k }' >"$tmp/parts.$n"
	fi
}
# parts N prints the PARTS costliest functions per query of the last two
# runs (FROM+N and FROM queries).
parts() {
	local n=$1
	LC_ALL=C join -t $'\t' -1 2 -2 2 -a 1 -e 0 -o 0,1.1,2.1 \
		<(LC_ALL=C sort -t $'\t' -k 2,2 "$tmp/parts.$((n + from))") \
		<(LC_ALL=C sort -t $'\t' -k 2,2 "$tmp/parts.$from") |
		awk -F '\t' -v n="$n" '{ printf "%8.0f  %s\n", ($2 - $3) / n, $1 }' |
		sort -rn | head -n "$PARTS"
}
# count DRIVER prints the instructions per value of one run of its cell, or
# per query of a short-query cell.
count() {
	local drv=$1
	if [[ $data == short/* ]]; then
		local pattern rows sel
		IFS=/ read -r _ pattern rows <<<"$data"
		sel="^BenchmarkShortQueries\$/^pattern=$pattern\$/^rows=$rows\$/^driver=$drv\$"
		local big small
		big=$(total "$sel" $((values + from)) -test.cpu 1)
		small=$(total "$sel" "$from" -test.cpu 1)
		echo $(((big - small) / values))
		if [[ -n ${PARTS:-} ]]; then
			parts "$values" >"$tmp/parts.$drv"
		fi
		return
	fi
	if [[ $data == kinds/* ]]; then
		local sel="^BenchmarkKindHits\$/^kind=${data#kinds/}\$/^mode=$drv\$" big small
		big=$(total "$sel" 5)
		small=$(total "$sel" 3)
		echo $(((big - small + 200000) / 400000))
		return
	fi
	local sum
	sum=$(total "^BenchmarkScan\$/^driver=$drv\$/^dest=${DEST:-natural}\$/^data=$data\$" 3)
	echo $(((sum + 2 * values) / (4 * values)))
}
# RUNS rounds over the drivers, interleaved; each driver's runs, then their
# median.
unit=value
[[ $data == short/* ]] && unit=query
if [[ $data == short/table-* ]]; then
	# The table-backed patterns' table, created outside the counted runs.
	"$bin" -test.run '^$' -test.bench "^BenchmarkShortQueries\$/^pattern=${data#short/}" -test.benchtime 1x >/dev/null
fi
declare -A runs
for ((round = 1; round <= ${RUNS:-1}; round++)); do
	for drv in "$@"; do
		runs[$drv]+="$(count "$drv") "
	done
done
for drv in "$@"; do
	# shellcheck disable=SC2086 # the runs are words
	median=$(printf '%s\n' ${runs[$drv]} | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
	printf '%-16s %6s instructions/%s (runs: %s)\n' "${drv//\\/}" "$median" "$unit" "${runs[$drv]% }"
	if [[ -n ${PARTS:-} && -s $tmp/parts.$drv ]]; then
		# The last round's parts.
		sed 's/^/    /' "$tmp/parts.$drv"
	fi
done
