# cgsum.awk sums the instructions of cg_annotate --threshold=0's per-function
# list, leaving out the Go scheduler's idle spinning: by file and, where its
# code is inlined into other files, by function. It prints one number. Used
# by cachegrind.sh and app.sh:
#
#   cg_annotate --threshold=0 cachegrind.out | awk -f cgsum.awk
/file:function/ { on = 1; next }
/Auto-annotated source/ { on = 0 }
on && $2 ~ /^\(/ {
	gsub(",", "", $1)
	# (asm_amd64.s's gogo, which switches to a goroutine, is named gogo,
	# not runtime.gogo: a spinning scheduler calls it millions of times.)
	if ($0 ~ /runtime\/(proc|lock_spinbit|lock_futex|sys_linux_amd64|netpoll|netpoll_epoll|os_linux|signal_unix|preempt|time)\.go|asm_amd64\.s:(runtime\.)?(mcall|gogo)/) next
	if ($0 ~ /:runtime\.(findRunnable|casgstatus|wakep|goschedImpl|gosched_m|schedule|execute|globrunqget|globrunqgetbatch|mcall|lock2|unlock2|\(\*m\)\.clearAllpSnapshot|\(\*timers\)\.check|\(\*timeHistogram\)\.record|pidleget|pidlegetSpinning|\(\*gcControllerState\)\.releaseNextGCMarkWorker|nanotime1\.abi0|GC)$/) next
	sum += $1
}
END { printf "%.0f\n", sum }
