#!/bin/bash
# app.sh measures the catalog and orders service of integration/app_test.go
# (BenchmarkApp: 50-row pages, lookups by id, a report over the order lines,
# an order-placing transaction; through database/sql, sqlx and GORM; on
# pgcache, pgx stdlib and lib/pq) and compares the drivers with benchstat.
#
#   [ROUNDS=n] [ROWS=n] [BENCH=pattern] [BENCHTIME=d] [OUT=file] bench/app.sh
#   e.g. bench/app.sh
#        BENCH='/types=plain/' ROUNDS=8 bench/app.sh
#        GOTOOLCHAIN=go1.27.3 OUT=app127.txt bench/app.sh
#
# It builds the integration module's test binary once and runs it ROUNDS
# times (default 6), one process per round with -test.count 1, so that drift
# of a shared machine spreads over every sub-benchmark; one P (-test.cpu 1),
# so cpu-ns is the client's CPU without a second P's idle spinning. The
# report reads ROWS order lines (default 300000). Each round starts a
# throwaway PostgreSQL and loads the tables, unless $PGCACHE_TEST_DSN names a
# server (each round then loads a database of its own there). The raw output
# goes to OUT (default app.txt), then benchstat prints it with a column per
# driver (go run golang.org/x/perf/cmd/benchstat@latest, which needs the Go
# module proxy once).
#
# With INSTR=1 it counts client instructions instead (valgrind's cachegrind,
# GOGC=off, the Go scheduler's idle spinning left out as bench/cachegrind.sh
# does) for each sub-benchmark BENCH matches, once: per row of a report,
# per operation of the others.
#
#   INSTR=1 ROWS=100000 BENCH='/api=sql/types=plain/op=report/' bench/app.sh
set -euo pipefail
shopt -s inherit_errexit # a failed run inside $(…) stops the script too
rounds=${ROUNDS:-6} rows=${ROWS:-300000} out=${OUT:-app.txt}
pattern=${BENCH:-.}
benchtime=${BENCHTIME:-1s}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/integration.test
(cd "$here/../integration" && go test -c -o "$bin" .)

if [[ ${INSTR:-} == 1 ]]; then
	# The cells BENCH matches, listed by a one-pass run of a small report.
	cells=$("$bin" -test.run '^$' -test.bench "^BenchmarkApp\$/$pattern" -test.benchtime 1x -test.cpu 1 \
		-app.rows 100 2>/dev/null | awk '/^BenchmarkApp\// {print $1}')
	# total CELL N prints the client instructions of a run of CELL with N
	# timed iterations (and the untimed one before them).
	total() {
		local cgout=$tmp/cachegrind.out sel
		sel="^BenchmarkApp\$/$(sed -E 's|^BenchmarkApp/||; s|/|$/^|g; s|^|^|; s|$|$|; s|\+|\\+|g' <<<"$1")"
		if ! GODEBUG=cpu.rdtscp=off GOGC=off valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$cgout" "$bin" \
			-test.run '^$' -test.bench "$sel" -test.benchtime "${2}x" -test.cpu 1 -app.rows "$rows" >"$tmp/run.log" 2>&1; then
			echo "app.sh: the run of $sel ${2}x failed:" >&2
			grep -v '^==' "$tmp/run.log" | tail -n 20 >&2
			exit 1
		fi
		cg_annotate --threshold=0 "$cgout" | awk -f "$here/cgsum.awk"
	}
	# Instructions of N+1 timed operations less those of 1 (loading the
	# tables, the warm-up and start-up drop out), over N operations: a
	# report's rows (N=2), or 200 pages, lookups or transactions.
	for cell in $cells; do
		n=200 unit=op per=200
		if [[ $cell == */op=report/* ]]; then
			n=2 unit=row per=$((2 * rows))
		fi
		more=$(total "$cell" $((n + 1)))
		one=$(total "$cell" 1)
		printf '%-60s %8d instructions/%s\n' "$cell" $(((more - one) / per)) "$unit"
	done
	exit 0
fi

: >"$out"
for ((round = 1; round <= rounds; round++)); do
	echo "app.sh: round $round/$rounds" >&2
	if ! "$bin" -test.run '^$' -test.bench "^BenchmarkApp\$/$pattern" -test.benchtime "$benchtime" -test.count 1 \
		-test.cpu 1 -app.rows "$rows" >"$tmp/round.txt"; then
		cat "$tmp/round.txt" >&2
		echo "app.sh: round $round failed" >&2
		exit 1
	fi
	cat "$tmp/round.txt" >>"$out"
done
go run golang.org/x/perf/cmd/benchstat@latest -col /driver "$out"
