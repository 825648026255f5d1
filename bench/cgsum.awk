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
	# What the scheduler does while the client waits for the server, inlined
	# into or called from other files: stealing work, parking and waking
	# Ps and Ms, sysmon's rounds, the timers and the poller checked on the
	# way, the GC CPU limiter's idle accounting, spinning and sleeping. How
	# much of it a short query meets depends on how long its round trips
	# take, not on the driver.
	if ($0 ~ /:runtime\.(stealWork|sysmon|pidleput|netpoll|netpollready|netpollblock|park_m|checkTimersNoP|checkRunqsNoP|checkIdleGCNoP|releasepNoTrace|timeSleepUntil|\(\*timers\)\.[a-zA-Z]+|\(\*timer\)\.[a-zA-Z]+|\(\*limiterEvent\)\.(start|stop)|procyieldAsm\.abi0|usleep\.abi0|futex\.abi0)$|:internal\/runtime\/syscall\/linux\.EpollWait$/) next
	sum += $1
}
END { printf "%.0f\n", sum }
