# capture-trace: --mem 256
# fork/exec and pipe storms: batches of 24 pipelines of two to four
# processes at once, a crowd of 100 sleeping processes, and FIFOs between
# background jobs.  Task, mm, VMA, file, pipe, signal and credential
# structures, almost all of short lives, many of them live at once.
i=0
while [ $i -lt 4 ]; do
	j=0
	while [ $j -lt 24 ]; do
		seq 1 300 | sort -r | head -2 > /dev/null &
		echo "$i $j" | sed 's/0/zero/' | tr a-z A-Z > /dev/null &
		j=$((j + 1))
	done
	wait
	i=$((i + 1))
done
k=0
while [ $k -lt 100 ]; do
	sleep 3 &
	k=$((k + 1))
done
cat /proc/loadavg > /dev/null
wait
mkfifo fifo
for j in 1 2 3 4 5 6 7 8; do
	(seq 1 3000 > fifo &) ; wc -l < fifo > /dev/null
done
rm -f fifo
