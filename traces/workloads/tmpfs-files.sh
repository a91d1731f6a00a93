# capture-trace: --mem 256
# Many small files on tmpfs, most left in place: a tree of 60 directories of
# 80 files each (dentries, shmem inodes, extended attributes of none, radix
# tree nodes), a third of them removed, some renamed, and the tree walked.
# Long lives: most objects are still live when the trace ends.
d=0
while [ $d -lt 60 ]; do
	mkdir -p tree/d$d/sub
	f=0
	while [ $f -lt 80 ]; do
		echo "$d $f" > tree/d$d/f$f
		f=$((f + 1))
	done
	d=$((d + 1))
done
d=0
while [ $d -lt 60 ]; do
	rm -f tree/d$d/f1* tree/d$d/f2*
	mv tree/d$d/f3 tree/d$d/sub/moved
	d=$((d + 3))
done
find tree -type f | wc -l > /dev/null
ls -lR tree > /dev/null
