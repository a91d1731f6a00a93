# Makefile - builds tinyslab, a multiboot i386 kernel, Kbuild-style.
#
#   make defconfig | slab_defconfig | slob_defconfig | ...   choose a configuration
#   make menuconfig | olddefconfig | savedefconfig           edit it
#   make [O=dir] [V=1]                                       build dir/vmlinux
#   make run | test | help                                   see "make help"
#
# One non-recursive make: every directory's Kbuild file lists its objects
# with obj-$(CONFIG_FOO) += foo.o, and the CONFIG_ values come from
# include/config/auto.conf, which Kconfig regenerates whenever .config
# changes (together with include/generated/autoconf.h, which every object
# depends on, so a configuration change rebuilds what it affects).

VERSION := 0.1

MAKEFLAGS += -rR --no-print-directory
.SUFFIXES:
.DELETE_ON_ERROR:

srctree := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
ifneq ($(O),)
objtree := $(abspath $(O))
else
objtree := $(srctree)
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

CROSS_COMPILE ?= i686-linux-gnu-
CC      := $(CROSS_COMPILE)gcc
LD      := $(CROSS_COMPILE)ld
NM      := $(CROSS_COMPILE)nm
SIZE    := $(CROSS_COMPILE)size
PYTHON  := /usr/bin/python3
KCONFIG_CONF ?= kconfig-conf
KCONFIG_MCONF ?= kconfig-mconf

DEPS := $(srctree)/scripts/install-deps
MEM ?= 32
CPUS ?= 1
QEMU_TIMEOUT ?= 300

# ---------------------------------------------------------------------------
# Configuration targets

DEFCONFIG_DIR := $(srctree)/arch/x86/configs
KBUILD_DEFCONFIG := slab_defconfig
DEFCONFIGS := $(sort $(notdir $(wildcard $(DEFCONFIG_DIR)/*_defconfig)))
KCONFIG_FILES := $(srctree)/Kconfig $(wildcard $(srctree)/*/Kconfig $(srctree)/*/Kconfig.*)
kconfig_env := cd $(objtree) && srctree=$(srctree) KCONFIG_CONFIG=.config

config-targets := defconfig $(DEFCONFIGS) menuconfig olddefconfig savedefconfig oldconfig
meta-targets := help clean distclean test test-bochs run iso qemu gdb sizes fastpath compare bench fuzz coverage host-test \
		script-test check-deps vmlinux-for-qemu quick debug-costs debug-matrix many-caches smpbench soak trace-shapes smallmem slabtest which-allocator
build-goals := $(filter-out $(config-targets) $(meta-targets),$(MAKECMDGOALS))
ifeq ($(MAKECMDGOALS),)
build-goals := all
endif

.PHONY: $(config-targets) $(meta-targets) all vmlinux prepare FORCE

all: vmlinux

defconfig: $(KBUILD_DEFCONFIG)

$(DEFCONFIGS):
	$(Q)$(DEPS) kconfig
	$(Q)mkdir -p $(objtree)
	$(Q)$(kconfig_env) $(KCONFIG_CONF) $(if $(Q),-s) --defconfig=$(DEFCONFIG_DIR)/$@ $(srctree)/Kconfig

menuconfig:
	$(Q)$(DEPS) kconfig
	$(Q)mkdir -p $(objtree)
	$(Q)$(kconfig_env) $(KCONFIG_MCONF) $(srctree)/Kconfig

olddefconfig oldconfig:
	$(Q)$(DEPS) kconfig
	$(Q)mkdir -p $(objtree)
	$(Q)$(kconfig_env) $(KCONFIG_CONF) $(if $(Q),-s) --$@ $(srctree)/Kconfig

savedefconfig:
	$(Q)$(DEPS) kconfig
	$(Q)$(kconfig_env) $(KCONFIG_CONF) --savedefconfig=defconfig $(srctree)/Kconfig
	@echo "  GEN     $(objtree)/defconfig"

# ---------------------------------------------------------------------------
# The kernel build (only when a build goal was asked for)

ifneq ($(build-goals),)
auto_conf := $(objtree)/include/config/auto.conf
autoconf_h := $(objtree)/include/generated/autoconf.h

$(objtree)/.config:
	@echo "  CONFIG  no $(objtree)/.config yet: using $(KBUILD_DEFCONFIG)"
	$(Q)$(MAKE) -f $(srctree)/Makefile O=$(objtree) $(KBUILD_DEFCONFIG)

# autoconf.h is replaced only when its contents change, so that re-running
# a defconfig target does not rebuild everything.
$(auto_conf): $(objtree)/.config $(KCONFIG_FILES)
	$(Q)$(DEPS) kconfig
	$(Q)mkdir -p $(objtree)/include/config $(objtree)/include/generated
	$(Q)$(kconfig_env) KCONFIG_AUTOHEADER=include/generated/autoconf.h.new \
		$(KCONFIG_CONF) --silentoldconfig $(srctree)/Kconfig
	$(Q)cmp -s $(autoconf_h).new $(autoconf_h) && rm -f $(autoconf_h).new || \
		mv -f $(autoconf_h).new $(autoconf_h)
	$(Q)touch $@

$(autoconf_h): $(auto_conf) ;

-include $(auto_conf)

# Collect obj-y from every directory's Kbuild file.
kbuild-dirs := arch/x86 init kernel mm tests
define collect_objs
obj-y :=
include $(srctree)/$(1)/Kbuild
objs += $$(addprefix $(objtree)/$(1)/,$$(obj-y))
endef
objs :=
$(foreach d,$(kbuild-dirs),$(eval $(call collect_objs,$(d))))

ifeq ($(CONFIG_CC_OPTIMIZE_FOR_SIZE),y)
opt := -Os
else
opt := -O2
endif

GCC_INCLUDE := $(shell $(CC) -print-file-name=include 2>/dev/null)
LIBGCC := $(shell $(CC) -m32 -print-libgcc-file-name 2>/dev/null)

KBUILD_CPPFLAGS := -nostdinc -isystem $(GCC_INCLUDE) \
	-I$(srctree)/include -I$(srctree)/arch/x86/include \
	-include $(autoconf_h) -DTINYSLAB_VERSION='"$(VERSION)"'
# -fmacro-prefix-map: __FILE__ (in WARN_ON()'s and BUG_ON()'s reports) is the
# path in the tree, so that an object has the same size in every clone
# (tests/scripts/test_clone_sizes.py); the debug info keeps full paths.
KBUILD_CFLAGS := -std=gnu11 -m32 -march=i686 $(opt) -g \
	-ffreestanding -fno-pic -fno-pie -fno-stack-protector -fno-common \
	-fno-asynchronous-unwind-tables -fno-strict-aliasing -mgeneral-regs-only \
	-mpreferred-stack-boundary=2 \
	-Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter \
	-fmacro-prefix-map=$(srctree)/= \
	$(if $(filter 1,$(WERROR)),-Werror) $(KCFLAGS)
KBUILD_AFLAGS := -m32 -D__ASSEMBLER__
LDSCRIPT := $(srctree)/arch/x86/kernel/vmlinux.lds

# "  CC  file" lines, unless V=1 (full commands instead) or make -s.
silent := $(findstring s,$(firstword -$(filter-out --%,$(MAKEFLAGS))))
quiet_echo = $(if $(Q),$(if $(silent),@:,@echo "  $(1)$(2)"),@:)

$(objtree)/%.o: $(srctree)/%.c $(autoconf_h)
	$(call quiet_echo,CC      ,$(patsubst $(objtree)/%,%,$@))
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS) -MD -MP -c -o $@ $<

$(objtree)/%.o: $(srctree)/%.S $(autoconf_h)
	$(call quiet_echo,AS      ,$(patsubst $(objtree)/%,%,$@))
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(KBUILD_CPPFLAGS) $(KBUILD_AFLAGS) -MD -MP -c -o $@ $<

vmlinux: $(objtree)/vmlinux

# Only the configuration header (the host build of mm/ needs no more).
prepare: $(autoconf_h)

link_vmlinux = $(LD) -m elf_i386 -nostdlib -T $(LDSCRIPT) -Map=$(objtree)/vmlinux.map -o $@ $(objs) $(1) $(LIBGCC)

# CONFIG_KALLSYMS: link with an empty symbol table, generate the table from
# that image (scripts/kallsyms), relink with it, and repeat until the table
# generated from the result is the one linked in (the table lies after the
# text, so one relink is the rule).  .tmp_kallsymsN.S is pass N's table.
ks := $(objtree)/.tmp_kallsyms
kallsyms_pass = $(NM) -n $@ | $(PYTHON) $(srctree)/scripts/kallsyms > $(ks)$(1).S && \
	if cmp -s $(ks)$(1).S $(ks)$(2).S; then exit 0; fi && \
	$(CC) $(KBUILD_AFLAGS) -c -o $(ks)$(1).o $(ks)$(1).S && $(call link_vmlinux,$(ks)$(1).o)

$(objtree)/vmlinux: $(objs) $(LDSCRIPT) $(if $(CONFIG_KALLSYMS),$(srctree)/scripts/kallsyms)
	$(call quiet_echo,LD      ,vmlinux)
ifeq ($(CONFIG_KALLSYMS),y)
	$(Q)$(PYTHON) $(srctree)/scripts/kallsyms --empty > $(ks)0.S && \
	$(CC) $(KBUILD_AFLAGS) -c -o $(ks)0.o $(ks)0.S && $(call link_vmlinux,$(ks)0.o) && \
	$(call kallsyms_pass,1,0) && $(call kallsyms_pass,2,1) && $(call kallsyms_pass,3,2) && \
	{ echo "kallsyms: the symbol table did not settle after 3 links" >&2; rm -f $@; exit 1; }
else
	$(Q)$(call link_vmlinux)
endif
	$(Q)$(NM) -n $@ > $(objtree)/System.map
	$(Q)$(if $(silent),:,cd $(objtree) && $(SIZE) vmlinux | sed 's/^/  /')

-include $(objs:.o=.d)
endif

# ---------------------------------------------------------------------------
# Running, testing, comparing
#
# These build what they need themselves, out of tree under build/: the
# defconfigs in build/<name>/, the host programs in build/host/.

BUILD := $(srctree)/build
TRACE ?= $(srctree)/tests/traces/linux-6.1-boot-files.ftrace.gz
FUZZ_TIME ?= 60
export MEM CPUS QEMU_TIMEOUT TRACE FUZZ_TIME V

# Whether this host runs i386 user programs: $(probe_i386) asks once, after
# install-deps (the probe needs clang -m32), prints the answer and keeps it
# in build/i386.env; "$(with_i386) COMMAND" runs COMMAND with it in
# TINYSLAB_I386.  TINYSLAB_I386=no makes the answer "no" on any host.
I386_PROBE := $(srctree)/scripts/i386_probe.py
I386_ENV := $(BUILD)/i386.env
probe_i386 = mkdir -p $(BUILD) && $(I386_PROBE) --export > $(I386_ENV) && . $(I386_ENV) && \
	{ $(I386_PROBE) || true; }
with_i386 = { [ ! -f $(I386_ENV) ] || . $(I386_ENV); } &&

# Builds one defconfig in build/<name>: $(call build_defconfig,slab)
build_defconfig = $(MAKE) -s -f $(srctree)/Makefile O=$(BUILD)/$(1) $(1)_defconfig && \
	$(MAKE) -s -f $(srctree)/Makefile O=$(BUILD)/$(1)

# The allocators compare, bench and soak run: scripts/allocators.py, the one
# list (an allocator whose defconfig this tree lacks is left out), and the
# kernels of all of them built: $(build_allocators)
ALLOCATORS = $(shell $(PYTHON) $(srctree)/scripts/allocators.py)
# One configuration per allocator, without the variants (SLOB-fast): the
# ISO's kernels, sizes' tables, the fuzzer and coverage
ONE_PER_ALLOCATOR = $(shell $(PYTHON) $(srctree)/scripts/allocators.py --kinds allocator)
# The allocators a debug configuration exists for (debug-costs)
DEBUGGED_ALLOCATORS = $(shell $(PYTHON) $(srctree)/scripts/allocators.py --debugged)
build_allocators = for a in $(ALLOCATORS); do $(call build_defconfig,$${a}) || exit 1; done

# compare, bench and soak replay every shipped trace (scripts/traces.py)
# unless TRACE= was given on the command line or in the environment; only
# then is $(trace_arg) "--trace FILE", and only without it (and at the
# default MEM) do they write their dated files under docs/results/.
given_trace := $(filter command line environment,$(origin TRACE))
trace_arg = $(if $(given_trace),--trace "$(TRACE)")

## run         build the GRUB image with every allocator's kernel and boot it in QEMU on
##             this terminal (the GRUB menu answers on the serial line; Ctrl-A X quits);
##             CPUS=4 boots 4 CPUs (multi-threaded TCG)
run: iso
	$(Q)$(DEPS) qemu
	$(Q)$(srctree)/scripts/qemu-run --interactive --mem $(MEM) --smp $(CPUS) \
		--iso $(BUILD)/tinyslab.iso

## iso         build/tinyslab.iso: GRUB (grub-mkrescue) with the SLAB, SLUB, SLUB_TINY and SLOB
##             kernels and the replay trace
ISO_ALLOCS = $(ONE_PER_ALLOCATOR)
iso:
	$(Q)$(DEPS) build iso python
	$(Q)for a in $(ISO_ALLOCS); do $(call build_defconfig,$${a}) || exit 1; done
	$(Q)$(srctree)/scripts/mkiso $(BUILD)/tinyslab.iso "$(TRACE)" \
		$(foreach a,$(ISO_ALLOCS),$(a)=$(BUILD)/$(a)/vmlinux)

## qemu        boot $(O)/vmlinux itself (QEMU's Multiboot loader, no GRUB); CMDLINE=... INITRD=...
qemu: vmlinux-for-qemu
	$(Q)$(DEPS) qemu
	$(Q)$(srctree)/scripts/qemu-run --interactive --mem $(MEM) --smp $(CPUS) \
		--kernel $(objtree)/vmlinux --append "$(CMDLINE)" $(if $(INITRD),--initrd $(INITRD))

## gdb         boot $(O)/vmlinux in QEMU with the gdb stub on GDB_PORT (1234) and attach
##             gdb-multiarch with vmlinux's symbols and the ts-* helpers of scripts/gdb,
##             stopped at the kernel's entry (_start); serial log in $(O)/serial.log
GDB_PORT ?= 1234
gdb: vmlinux-for-qemu
	$(Q)$(DEPS) qemu gdb
	$(Q)$(srctree)/scripts/qemu-run --quiet --timeout 86400 --mem $(MEM) --gdb $(GDB_PORT) \
		--gdb-stop --log $(objtree)/serial.log --kernel $(objtree)/vmlinux \
		--append "$(CMDLINE)" $(if $(INITRD),--initrd $(INITRD)) & qemu=$$!; \
	gdb-multiarch -q -ex "source $(srctree)/scripts/gdb/tinyslab.py" \
		-ex "target remote 127.0.0.1:$(GDB_PORT)" -ex "tbreak _start" -ex continue \
		$(objtree)/vmlinux; \
	kill $$qemu 2>/dev/null; wait $$qemu; true

.PHONY: vmlinux-for-qemu
vmlinux-for-qemu:
	$(Q)$(MAKE) -f $(srctree)/Makefile O=$(objtree) all

## test        install every package (scripts/install-deps all), build every defconfig,
##             boot each with "selftest", run the host tests, the fuzz corpus, the system
##             and script tests and check-deps; ends with "N passed, N failed, N skipped"
##             and writes docs/results/test-DATE.txt (-2, -3 ... for a further run that
##             day; TEST_BESIDE="..." says there what ran beside it)
test:
	$(Q)$(DEPS) all
	$(Q)$(srctree)/scripts/test-all

## test-bochs  boot build/tinyslab.iso in Bochs (a second PC model) at 1 and 2 CPUs, SLAB
##             and SLOB: the self-tests and a few console commands; not part of "make test"
##             (Bochs is slow); the verdicts and times go to docs/results/test-bochs-DATE.txt
test-bochs: iso
	$(Q)$(DEPS) bochs python
	$(Q)$(PYTHON) $(srctree)/scripts/test-bochs --iso $(BUILD)/tinyslab.iso --out $(BUILD)/bochs \
		--results $(srctree)/docs/results/test-bochs-$$(date +%Y-%m-%d).txt

## host-test   only the host-side tests of mm/ (ASan, UBSan, valgrind, corpus replay)
host-test:
	$(Q)$(DEPS) build python host
	$(Q)$(srctree)/scripts/test-all --host-only

## quick       the fast loop: CONFIG (slob, the default, or slab, ...) built and booted
##             once with selftest (CPUS=1), and its host suites under ASan+UBSan, 64-bit,
##             with 1 CPU and with 4 CPUs as threads
quick:
	$(Q)$(DEPS) build qemu python host
	$(Q)$(srctree)/scripts/test-all --quick $(or $(CONFIG),slob)

## script-test only the tests of scripts/ (KTAP parser, trace converter, ...)
script-test:
	$(Q)$(DEPS) python
	$(Q)$(PYTHON) $(srctree)/tests/scripts/run.py

# A defconfig with options changed by kconfig-tweak arguments $(3), in
# build/sizes/<name>-<tag>: $(call build_tweaked,slab,up,--disable SMP)
SIZES_BUILD := $(BUILD)/sizes
build_tweaked = $(MAKE) -s -f $(srctree)/Makefile O=$(SIZES_BUILD)/$(1)-$(2) $(1)_defconfig && \
	kconfig-tweak --file $(SIZES_BUILD)/$(1)-$(2)/.config $(3) && \
	$(MAKE) -s -f $(srctree)/Makefile O=$(SIZES_BUILD)/$(1)-$(2) olddefconfig && \
	$(MAKE) -s -f $(srctree)/Makefile O=$(SIZES_BUILD)/$(1)-$(2)
# The uniprocessor kernels without the self-tests (<name>-up), as the 2005
# figures were measured; the same with SMP (<name>-smp); and the
# uniprocessor kernel of an allocator with one option changed (-cost-<tag>).
UP := --disable SMP --disable SELFTEST
SIZES_DATE := $(shell date +%Y-%m-%d)

## sizes       size(1) of every allocator's kernel and code (SLAB, SLUB, SLUB_TINY, SLOB),
##             uniprocessor then SMP, without the self-tests, beside the 2005 SLOB patch's
##             figures; what SLOB's fast heap and each debugging option cost; written to
##             docs/results/sizes-DATE.txt and the README's opening table
SIZES_ALLOCS = $(ONE_PER_ALLOCATOR)
sizes:
	$(Q)$(DEPS) build python
	+$(Q)for a in $(SIZES_ALLOCS); do \
		$(call build_tweaked,$${a},up,$(UP)) && $(call build_tweaked,$${a},smp,--disable SELFTEST) && \
		$(call build_defconfig,$${a}) || exit 1; done
	+$(Q)$(call build_tweaked,slob,cost-fast_heap,$(UP) --enable SLOB_FAST_HEAP)
	+$(Q)$(call build_tweaked,slab,cost-kallsyms,$(UP) --disable KALLSYMS)
	+$(Q)$(call build_tweaked,slab,cost-logbuf,$(UP) --set-val LOG_BUF_SHIFT 0)
	+$(Q)$(call build_tweaked,slab,cost-debug_kmem,$(UP) --enable DEBUG_KMEM)
	+$(Q)$(call build_tweaked,slab,cost-fault_injection,$(UP) --enable FAULT_INJECTION)
	$(Q)$(PYTHON) $(srctree)/scripts/sizes \
		--up $(addprefix $(SIZES_BUILD)/,$(addsuffix -up,$(SIZES_ALLOCS))) \
		--smp $(addprefix $(SIZES_BUILD)/,$(addsuffix -smp,$(SIZES_ALLOCS))) \
		--selftest $(addprefix $(BUILD)/,$(SIZES_ALLOCS)) \
		--option SLOB_FAST_HEAP $(SIZES_BUILD)/slob-cost-fast_heap \
		$(addprefix --cost $(SIZES_BUILD)/slab-cost-,kallsyms logbuf debug_kmem fault_injection) \
		--out $(srctree)/docs/results/sizes-$(SIZES_DATE).txt --readme $(srctree)/README.md

## fastpath    SLUB's fast paths (CPU slabs and sheaves) in the SMP and uniprocessor kernels as
##             built (objdump), checked for no lock prefix and no interrupt disable (sheaves: no
##             cmpxchg either): docs/results/slub-fastpath-DATE.txt
##             and the block in docs/design.md; then every allocator's kmalloc, kfree,
##             kmem_cache_alloc and kmem_cache_free fast paths, SMP and uniprocessor: what
##             they execute, checked against what the host glue executes or charges, with
##             this CPU's cost of each class (bench-insns): docs/results/fastpath-DATE.txt
FASTPATH_ALLOCS := $(shell $(PYTHON) $(srctree)/scripts/allocators.py)
fastpath:
	$(Q)$(DEPS) build python
	+$(Q)for a in $(FASTPATH_ALLOCS); do $(call build_tweaked,$${a},smp,--disable SELFTEST) && \
		$(call build_tweaked,$${a},up,$(UP)) || exit 1; done
	$(Q)$(PYTHON) $(srctree)/scripts/fastpath-disasm $(SIZES_BUILD)/slub-smp/vmlinux \
		$(SIZES_BUILD)/slub-up/vmlinux $(SIZES_BUILD)/slub_sheaves-smp/vmlinux \
		$(SIZES_BUILD)/slub_sheaves-up/vmlinux --out $(srctree)/docs/results/slub-fastpath-$(SIZES_DATE).txt \
		--design $(srctree)/docs/design.md
	$(Q)$(probe_i386)
	$(Q)$(with_i386) $(MAKE) -s -f $(srctree)/tests/host/Makefile CONFIG=slab bench-insns
	$(Q)$(with_i386) $(MAKE) -s -f $(srctree)/tests/host/Makefile CONFIG=slab run-bench-insns \
		> $(BUILD)/bench-insns.txt
	$(Q)$(PYTHON) $(srctree)/scripts/fastpath-disasm --table $(SIZES_BUILD) \
		--insns $(BUILD)/bench-insns.txt --table-out $(srctree)/docs/results/fastpath-$(SIZES_DATE).txt \
		--doc $(srctree)/docs/benchmarks.md

## which-allocator the tables and verdicts of docs/which-allocator.md, rewritten from the
##             newest docs/results files of make sizes, compare, bench, slabtest and smallmem
which-allocator:
	$(Q)$(DEPS) python
	$(Q)$(PYTHON) $(srctree)/scripts/which-allocator

## compare     every allocator (scripts/allocators.py) in QEMU (MEM=32) replaying every shipped
##             trace (scripts/traces.py; TRACE=file: that one): per trace, the pages held and
##             MemFree at the peak and the end, the mean pages over the replay, overhead,
##             refusals, corruptions, objects cached per CPU at the peak; the memory goals; a
##             plot with a panel per trace (docs/results/compare-DATE.txt and .png); the heap
##             at each trace's peak, a panel per allocator (docs/results/heapmap-TRACE-DATE.png)
compare:
	$(Q)$(DEPS) build qemu python plot
	$(Q)$(build_allocators)
	$(Q)mkdir -p $(srctree)/docs/results
	$(Q)$(PYTHON) $(srctree)/scripts/compare --mem $(MEM) $(trace_arg) --out $(BUILD)/compare; \
		status=$$?; $(results_file) $(BUILD)/compare/report.txt compare txt; \
		$(results_file) $(BUILD)/compare/footprint.png compare png; \
		for m in $(BUILD)/compare/heapmap-*.png; do \
		$(results_file) $$m $$(basename $$m .png) png; done; exit $$status

## soak        each allocator booted once, every shipped trace replayed ROUNDS rounds back to
##             back (12, about 10 minutes here), what each leaves live kept 3 rounds: pages
##             held and the largest free blocks after every round, validated; table and plot
##             in docs/results/soak-DATE.txt and .png (SOAK_MEM=128 MiB)
ROUNDS ?=
SOAK_MEM ?= 128
soak:
	$(Q)$(DEPS) build qemu python plot
	$(Q)$(build_allocators)
	$(Q)mkdir -p $(srctree)/docs/results
	$(Q)$(PYTHON) $(srctree)/scripts/soak --mem $(SOAK_MEM) $(if $(ROUNDS),--rounds $(ROUNDS)) \
		$(trace_arg) --out $(BUILD)/soak; status=$$?; \
		$(results_file) $(BUILD)/soak/report.txt soak txt; \
		$(results_file) $(BUILD)/soak/soak.png soak png; exit $$status

## trace-shapes each shipped trace's shape (events, allocations, frees, peak live bytes, sizes,
##             origin), computed by scripts/traces.py into docs/benchmarks.md
trace-shapes:
	$(Q)$(DEPS) python
	$(Q)$(PYTHON) $(srctree)/scripts/traces.py --shapes --doc $(srctree)/docs/benchmarks.md

# Copies a report into docs/results/NAME-DATE.EXT (the figures the docs cite),
# for the shipped traces (no TRACE= given) at the default memory only:
# $(results_file) FILE NAME EXT
results_file = sh -c 'if [ -z "$(given_trace)" ] && [ "$(MEM)" = 32 ] && [ -f "$$0" ]; then \
	cp "$$0" $(srctree)/docs/results/"$$1"-$$(date +%Y-%m-%d)."$$2" && \
	echo "(written to docs/results/$$1-$$(date +%Y-%m-%d).$$2)"; fi'

## bench       the replay on the host, every shipped trace (TRACE=file: that one): every allocator
##             and the peers (glibc, jemalloc, mimalloc, tcmalloc), each timed after an untimed pass:
##             ns, cycles and instructions per call, footprint; checked against the kernel's;
##             the worst cases (kernel instructions per call under -icount, the slowest calls'
##             paths) and a plot per trace (docs/results/worst-TRACE-DATE.png)
bench:
	$(Q)$(DEPS) build qemu python host plot
	$(Q)$(probe_i386)
	$(Q)$(build_allocators)
	$(Q)for c in $(ALLOCATORS); do \
		$(with_i386) $(MAKE) -s -f $(srctree)/tests/host/Makefile CONFIG=$$c bench || exit 1; done
	$(Q)mkdir -p $(BUILD)/bench $(srctree)/docs/results
	$(Q){ $(with_i386) $(PYTHON) $(srctree)/scripts/bench --mem $(MEM) $(trace_arg) \
		--out $(BUILD)/bench --plots; echo $$? > $(BUILD)/bench/status; \
	  $(with_i386) $(srctree)/scripts/bench-smp --rounds 5; } | tee $(BUILD)/bench/report.txt
	$(Q)$(results_file) $(BUILD)/bench/report.txt bench txt
	$(Q)for f in $(BUILD)/bench/*/worst-*.png; do [ ! -f "$$f" ] || \
		$(results_file) "$$f" "$$(basename "$$f" .png)" png; done
	$(Q)exit $$(cat $(BUILD)/bench/status)

## smpbench    the kernel's smpbench at CPUS (default 4) CPUs in QEMU, every allocator
##             (scripts/allocators.py) side by side: throughput and cycles per operation
##             against 1 CPU, median of 3 runs (docs/results/smpbench-DATE.txt;
##             SMPBENCH_OPS operations per CPU, 20000)
SMPBENCH_OPS ?= 20000
smpbench:
	$(Q)$(DEPS) build qemu python
	$(Q)$(build_allocators)
	$(Q)mkdir -p $(BUILD)/smpbench $(srctree)/docs/results
	$(Q)$(PYTHON) $(srctree)/scripts/smpbench --build $(BUILD) --cpus $(if $(filter 1,$(CPUS)),4,$(CPUS)) \
		--ops $(SMPBENCH_OPS) > $(BUILD)/smpbench/report.txt; status=$$?; \
		cat $(BUILD)/smpbench/report.txt; [ $$status = 0 ] || exit $$status; \
		cp $(BUILD)/smpbench/report.txt $(srctree)/docs/results/smpbench-$$(date +%Y-%m-%d).txt && \
		echo "(written to docs/results/smpbench-$$(date +%Y-%m-%d).txt)"

# The date the results files carry.
RESULTS_DATE := $(shell date +%Y-%m-%d)

## smallmem    free pages and Slab: of every allocator's uniprocessor kernel without the
##             self-tests (as make sizes builds them) on SMALLMEM_MEM machines (QEMU -m 8
##             and 16), after boot and after replaying each shipped trace (scripts/traces.py), beside
##             the 2007 and 2022 threads' figures; SMALLMEM_ROWS="ALLOC ARGS; ..." adds rows
##             (docs/results/smallmem-DATE.txt for the default sizes and rows)
SMALLMEM_MEM ?= 8,16
SMALLMEM_ROWS ?=
smallmem:
	$(Q)$(DEPS) build qemu python
	+$(Q)for a in $(ALLOCATORS); do $(call build_tweaked,$${a},up,$(UP)) || exit 1; done
	$(Q)mkdir -p $(BUILD)/smallmem $(srctree)/docs/results
	$(Q)$(PYTHON) $(srctree)/scripts/smallmem --build $(BUILD) --mem $(SMALLMEM_MEM) \
		--rows "$(SMALLMEM_ROWS)" > $(BUILD)/smallmem/report.txt; status=$$?; \
		cat $(BUILD)/smallmem/report.txt; [ $$status = 0 ] || exit $$status; \
		if [ "$(SMALLMEM_MEM)" = 8,16 ] && [ -z "$(SMALLMEM_ROWS)" ]; then \
		cp $(BUILD)/smallmem/report.txt $(srctree)/docs/results/smallmem-$(RESULTS_DATE).txt && \
		echo "(written to docs/results/smallmem-$(RESULTS_DATE).txt)"; fi

## slabtest    slab_test's microbenchmark for every allocator: cycles per kmalloc, kfree
##             and pair at 8 to 16384 bytes, and on several CPUs at once, remote frees and
##             one CPU allocating while the others free; on the host (TSC, CPU threads)
##             and in QEMU at 1 CPU (-icount) and SLABTEST_CPUS (2); ratios to SLAB and the
##             published anchors (docs/results/slabtest-DATE.txt for the default
##             SLABTEST_CALLS, 10000 calls per test)
SLABTEST_CALLS ?= 10000
SLABTEST_CPUS ?= 2
slabtest:
	$(Q)$(DEPS) build qemu python host
	$(Q)$(probe_i386)
	+$(Q)for a in $(ALLOCATORS); do $(call build_defconfig,$${a}) && \
		$(with_i386) $(MAKE) -s -f $(srctree)/tests/host/Makefile CONFIG=$${a} slabtest || exit 1; \
		done
	$(Q)mkdir -p $(BUILD)/slabtest $(srctree)/docs/results
	$(Q)$(with_i386) $(PYTHON) $(srctree)/scripts/slabtest --build $(BUILD) \
		--calls $(SLABTEST_CALLS) --cpus $(SLABTEST_CPUS) > $(BUILD)/slabtest/report.txt; \
		status=$$?; cat $(BUILD)/slabtest/report.txt; [ $$status = 0 ] || exit $$status; \
		if [ "$(SLABTEST_CALLS)" = 10000 ]; then \
		cp $(BUILD)/slabtest/report.txt $(srctree)/docs/results/slabtest-$(RESULTS_DATE).txt && \
		echo "(written to docs/results/slabtest-$(RESULTS_DATE).txt)"; fi

## debug-costs what kmem_debug= costs: the shipped trace replayed on the host without the
##             layer and with each letter (none, Z, P, U, ZPU), SLAB, SLUB and SLOB: ns per
##             call and pages at the peak (docs/results/debug-costs-DATE.txt)
debug-costs:
	$(Q)$(DEPS) build python host
	$(Q)$(probe_i386)
	$(Q)for c in $(DEBUGGED_ALLOCATORS); do \
		$(with_i386) $(MAKE) -s -f $(srctree)/tests/host/Makefile CONFIG=$$c bench bench-kdbg || exit 1; done
	$(Q)mkdir -p $(BUILD)/host $(srctree)/docs/results
	$(Q)$(PYTHON) $(srctree)/scripts/trace2replay --quiet -o $(BUILD)/host/trace.replay \
		$(srctree)/tests/traces/linux-6.1-boot-files.ftrace.gz
	$(Q)$(with_i386) $(PYTHON) $(srctree)/scripts/debug-costs --build $(BUILD) \
		> $(BUILD)/host/debug-costs.txt && cat $(BUILD)/host/debug-costs.txt && \
		cp $(BUILD)/host/debug-costs.txt $(srctree)/docs/results/debug-costs-$$(date +%Y-%m-%d).txt && \
		echo "(written to docs/results/debug-costs-$$(date +%Y-%m-%d).txt)"

## many-caches replay time against the number of caches: N = 4096, 16384 and 65534 caches of
##             one live object each, replayed on the host by every allocator, and by SLAB, SLUB
##             and SLOB under kmem_debug=ZPU (docs/results/many-caches-DATE.txt)
MANY_CACHES_CONFIGS := slab slub slub_tiny slob slob_fast slab+kdbg slub+kdbg slob+kdbg
many-caches:
	$(Q)$(DEPS) build python host
	$(Q)for c in $(ALLOCATORS); do \
		$(MAKE) -s -f $(srctree)/tests/host/Makefile CONFIG=$$c TINYSLAB_I386=no \
		$(BUILD)/host/$$c/bench-64 || exit 1; done
	$(Q)for c in slab slub slob; do \
		$(MAKE) -s -f $(srctree)/tests/host/Makefile CONFIG=$$c TINYSLAB_I386=no \
		$(BUILD)/host/$$c/bench-kdbg-ZPU-64 || exit 1; done
	$(Q)mkdir -p $(BUILD)/many-caches $(srctree)/docs/results
	$(Q)$(PYTHON) $(srctree)/scripts/many-caches --build $(BUILD)/host --out $(BUILD)/many-caches \
		$(MANY_CACHES_CONFIGS) > $(BUILD)/many-caches/report.txt; status=$$?; \
		cat $(BUILD)/many-caches/report.txt; [ $$status = 0 ] || exit $$status; \
		cp $(BUILD)/many-caches/report.txt $(srctree)/docs/results/many-caches-$(RESULTS_DATE).txt && \
		echo "(written to docs/results/many-caches-$(RESULTS_DATE).txt)"

## debug-matrix every self-test suite under every kmem_debug= letter set (none, Z, P, U, T, ZPU)
##             on each debug kernel make test boots (SLAB, SLOB, SLUB, SLUB-sheaves), one
##             boot each (MATRIX_TIMEOUT s at most, 300; three times that with T, a
##             line per call): how each boot ended and pass/fail/skip per suite
##             (docs/results/debug-matrix-DATE.txt);
##             fails if a boot does not survive (panic, exception, timeout)
MATRIX_TIMEOUT ?= 300
DEBUG_KERNELS = $(shell $(PYTHON) $(srctree)/scripts/allocators.py --kinds debug)
debug-matrix:
	$(Q)$(DEPS) build qemu python
	+$(Q)for a in $(DEBUG_KERNELS); do $(call build_defconfig,$${a}) || exit 1; done
	$(Q)mkdir -p $(BUILD)/debug-matrix $(srctree)/docs/results
	$(Q)$(PYTHON) $(srctree)/scripts/debug-matrix --build $(BUILD) --mem $(MEM) \
		--timeout $(MATRIX_TIMEOUT) > $(BUILD)/debug-matrix/report.txt; status=$$?; \
		cat $(BUILD)/debug-matrix/report.txt; \
		if [ $$status -le 1 ] && [ "$(MEM)" = 32 ] && [ "$(MATRIX_TIMEOUT)" = 300 ]; then \
		cp $(BUILD)/debug-matrix/report.txt $(srctree)/docs/results/debug-matrix-$(RESULTS_DATE).txt && \
		echo "(written to docs/results/debug-matrix-$(RESULTS_DATE).txt)"; fi; exit $$status

## fuzz        libFuzzer on each allocator (SLAB, SLUB, SLUB-sheaves, SLUB_TINY, SLOB) and
##             each variant (SLOB-fast) for FUZZ_TIME seconds (default 60): the API
##             fuzzer and the replay-module fuzzer
FUZZ_ALLOCS = $(shell $(PYTHON) $(srctree)/scripts/allocators.py --kinds allocator,variant)
fuzz:
	$(Q)$(DEPS) build python host
	$(Q)$(probe_i386)
	$(Q)for c in $(FUZZ_ALLOCS); do \
		$(with_i386) $(MAKE) -s -f $(srctree)/tests/host/Makefile CONFIG=$$c fuzzer || exit 1; done
	$(Q)$(with_i386) $(srctree)/scripts/fuzz $(FUZZ_TIME) $(FUZZ_ALLOCS)

## coverage    line coverage of mm/ on the host (llvm-cov): the host suites, the fuzz corpus
##             and the trace replay, SLAB, SLUB, SLUB_TINY and SLOB; a table, and
##             build/coverage/html
COV_ALLOCS = $(ONE_PER_ALLOCATOR)
coverage:
	$(Q)$(DEPS) build python host coverage
	$(Q)for c in $(COV_ALLOCS); do \
		$(MAKE) -s -f $(srctree)/tests/host/Makefile CONFIG=$$c coverage || exit 1; done
	$(Q)mkdir -p $(BUILD)/coverage $(srctree)/docs/results
	$(Q)$(PYTHON) $(srctree)/scripts/coverage --build $(BUILD) --out $(BUILD)/coverage $(COV_ALLOCS) \
		> $(BUILD)/coverage/summary.txt; status=$$?; cat $(BUILD)/coverage/summary.txt; \
		[ $$status = 0 ] || exit $$status; \
		cp $(BUILD)/coverage/summary.txt $(srctree)/docs/results/coverage-$$(date +%Y-%m-%d).txt && \
		echo "(written to docs/results/coverage-$$(date +%Y-%m-%d).txt)"

## check-deps  check that every system header, library and tool the builds under build/
##             used comes from a package that scripts/install-deps installs (make test runs it)
check-deps:
	$(Q)$(DEPS) python
	$(Q)$(PYTHON) $(srctree)/scripts/check-deps

## clean       remove the objects of this build ($(O), or the source tree)
clean:
	$(Q)find $(objtree) \( -path $(srctree)/.git -o -path $(srctree)/build \) -prune -o \
		\( -name '*.o' -o -name '*.d' \) -type f -print | xargs rm -f
	$(Q)rm -f $(objtree)/vmlinux $(objtree)/System.map $(objtree)/vmlinux.map $(objtree)/.tmp_kallsyms*

## distclean   also remove build/ and every configuration
distclean: clean
	$(Q)rm -rf $(srctree)/build $(srctree)/include/config $(srctree)/include/generated
	$(Q)rm -f $(srctree)/.config $(srctree)/.config.old $(srctree)/defconfig

## help        this list
help:
	@echo "tinyslab $(VERSION): make [O=dir] [V=1] [target]"
	@echo "  defconfig, <name>_defconfig (one of: $(DEFCONFIGS)),"
	@echo "  menuconfig, olddefconfig, savedefconfig: configure (.config in O=dir)"
	@echo "  all (default)  build O=dir/vmlinux"
	@sed -n 's/^## /  /p' $(srctree)/Makefile
