# capture-trace: --mem 256
# A long mixed workload: 12 rounds, three seconds apart.  Each writes 100
# small files on tmpfs, archives and compresses them, unpacks the archive
# beside them, fetches a file over loopback HTTP and runs a pipeline over
# the listing; the files stay (long lives, growing), the archive and the
# fetched file go at the end of the next round (medium lives), the
# processes and their buffers go at once (short lives).  Over about a
# minute, so that the allocators' timers run many times.
mkdir -p www
dd if=/dev/urandom of=www/blob bs=1024 count=24 2>/dev/null
httpd -p 127.0.0.1:8080 -h www
r=0
while [ $r -lt 12 ]; do
	mkdir -p r$r/a r$r/b
	f=0
	while [ $f -lt 100 ]; do
		echo "round $r file $f" > r$r/a/n$f
		f=$((f + 1))
	done
	tar -cf r$r.tar r$r/a && gzip -1 r$r.tar
	(cd r$r/b && zcat ../../r$r.tar.gz | tar -xf -)
	wget -q -O r$r.blob http://127.0.0.1:8080/blob
	ls -l r$r/b/r$r/a | sort | md5sum > r$r/sum
	old=$((r - 1))
	rm -f r$old.tar.gz r$old.blob
	r=$((r + 1))
	sleep 3
done
killall httpd
