# capture-trace: --mem 256
# Network loopback traffic: HTTP over 127.0.0.1 (busybox httpd serving files
# of 100 bytes to 64 KiB to three wget loops at once), six TCP streams
# through nc whose readers wait before reading (so data queues in socket
# buffers), and ICMP echoes of mixed sizes.  Socket buffers of mixed sizes,
# short lives and many at once, with the sockets, requests and processes
# that carry them.
mkdir -p www
for s in 100 700 1500 4000 9000 20000 65536; do
	dd if=/dev/urandom of=www/f$s bs=$s count=1 2>/dev/null
done
httpd -p 127.0.0.1:8080 -h www
sleep 1
fetch() {
	for round in 1 2 3 4; do
		for s in 100 700 1500 4000 9000 20000 65536; do
			wget -q -O /dev/null http://127.0.0.1:8080/f$s
		done
	done
}
fetch & fetch & fetch &
wait
for port in 9000 9001 9002 9003 9004 9005; do
	nc -l -p $port | (sleep 4; cat > /dev/null) &
done
sleep 1
for port in 9000 9001 9002 9003 9004 9005; do
	dd if=/dev/urandom bs=$((port - 8500)) count=600 2>/dev/null | nc 127.0.0.1 $port &
done
wait
for s in 56 500 1400 3000 8000; do
	ping -q -c 20 -i 0.05 -s $s 127.0.0.1 > /dev/null
done
killall httpd
sleep 1
