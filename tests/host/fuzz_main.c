/* fuzz_main.c - runs fuzz_kmem.c's target on given inputs, without libFuzzer.
 *
 * usage: fuzz_replay FILE|DIR...
 * Each file (or each file of a directory) is one input.  "make test" runs
 * the seed corpus this way under ASan+UBSan and valgrind; a crash file
 * that "make fuzz" found can be replayed the same way.  At the end it
 * prints what the inputs exercised (operations, allocation failures, bad
 * pointers), so that a corpus that stopped reaching them shows.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tiny/types.h>
#include "host.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const u8 *data, size_t size);
void fuzz_summary(void);

static int run_file(const char *path)
{
	size_t len;
	u8 *data = host_read_file(path, &len);

	LLVMFuzzerTestOneInput(data, len);
	free(data);
	return 1;
}

static int run_path(const char *path)
{
	struct dirent *de;
	struct stat st;
	char sub[4096];
	int n = 0;
	DIR *d;

	if (stat(path, &st)) {
		perror(path);
		exit(2);
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	d = opendir(path);
	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		n += run_path(sub);
	}
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	int i, n = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++)
		n += run_path(argv[i]);
	fuzz_summary();
	printf("fuzz_replay: %d inputs ran clean\n", n);
	return n ? 0 : 2;
}
