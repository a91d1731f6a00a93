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
QEMU_TIMEOUT ?= 300

# ---------------------------------------------------------------------------
# Configuration targets

DEFCONFIG_DIR := $(srctree)/arch/x86/configs
KBUILD_DEFCONFIG := slab_defconfig
DEFCONFIGS := $(sort $(notdir $(wildcard $(DEFCONFIG_DIR)/*_defconfig)))
KCONFIG_FILES := $(srctree)/Kconfig $(wildcard $(srctree)/*/Kconfig $(srctree)/*/Kconfig.*)
kconfig_env := cd $(objtree) && srctree=$(srctree) KCONFIG_CONFIG=.config

config-targets := defconfig $(DEFCONFIGS) menuconfig olddefconfig savedefconfig oldconfig
meta-targets := help clean distclean test run iso qemu sizes compare bench fuzz host-test \
		script-test check-deps
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
	$(Q)$(kconfig_env) $(KCONFIG_CONF) --$@ $(srctree)/Kconfig

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

$(auto_conf): $(objtree)/.config $(KCONFIG_FILES)
	$(Q)$(DEPS) kconfig
	$(Q)mkdir -p $(objtree)/include/config $(objtree)/include/generated
	$(Q)$(kconfig_env) $(KCONFIG_CONF) --silentoldconfig $(srctree)/Kconfig
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
KBUILD_CFLAGS := -std=gnu11 -m32 -march=i686 $(opt) -g \
	-ffreestanding -fno-pic -fno-pie -fno-stack-protector -fno-common \
	-fno-asynchronous-unwind-tables -fno-strict-aliasing -mgeneral-regs-only \
	-mpreferred-stack-boundary=2 \
	-Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter \
	$(if $(filter 1,$(WERROR)),-Werror) $(KCFLAGS)
KBUILD_AFLAGS := -m32 -D__ASSEMBLER__
LDSCRIPT := $(srctree)/arch/x86/kernel/vmlinux.lds

quiet_echo = $(if $(Q),@echo "  $(1)$(2)",@:)

$(objtree)/%.o: $(srctree)/%.c $(autoconf_h)
	$(call quiet_echo,CC      ,$(patsubst $(objtree)/%,%,$@))
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS) -MMD -MP -c -o $@ $<

$(objtree)/%.o: $(srctree)/%.S $(autoconf_h)
	$(call quiet_echo,AS      ,$(patsubst $(objtree)/%,%,$@))
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(KBUILD_CPPFLAGS) $(KBUILD_AFLAGS) -MMD -MP -c -o $@ $<

vmlinux: $(objtree)/vmlinux

# Only the configuration header (the host build of mm/ needs no more).
prepare: $(autoconf_h)

$(objtree)/vmlinux: $(objs) $(LDSCRIPT)
	$(call quiet_echo,LD      ,vmlinux)
	$(Q)$(LD) -m elf_i386 -nostdlib -T $(LDSCRIPT) -o $@ $(objs) $(LIBGCC)
	$(Q)$(NM) -n $@ > $(objtree)/System.map
	$(Q)cd $(objtree) && $(SIZE) vmlinux | sed 's/^/  /'

-include $(objs:.o=.d)
endif

# ---------------------------------------------------------------------------
# Running and testing

# Boots $(O)/vmlinux directly (QEMU's Multiboot loader, no GRUB).
qemu: vmlinux-for-qemu
	$(Q)$(DEPS) qemu
	$(Q)$(srctree)/scripts/qemu-run --interactive --mem $(MEM) \
		--kernel $(objtree)/vmlinux --append "$(CMDLINE)"

.PHONY: vmlinux-for-qemu
vmlinux-for-qemu:
	$(Q)$(MAKE) -f $(srctree)/Makefile O=$(objtree) all

test:
	$(Q)$(DEPS) build qemu python
	$(Q)$(srctree)/scripts/test-all

script-test:
	$(Q)$(DEPS) python
	$(Q)$(PYTHON) $(srctree)/tests/scripts/run.py

check-deps:
	$(Q)$(DEPS) all

clean:
	$(Q)find $(objtree) -path $(srctree)/.git -prune -o \( -name '*.o' -o -name '*.d' \) \
		-type f -print | xargs rm -f
	$(Q)rm -f $(objtree)/vmlinux $(objtree)/System.map

distclean: clean
	$(Q)rm -rf $(srctree)/build $(srctree)/include/config $(srctree)/include/generated
	$(Q)rm -f $(srctree)/.config $(srctree)/.config.old $(srctree)/defconfig

help:
	@sed -n '/^## /s/^## //p' $(srctree)/scripts/make-help.txt 2>/dev/null || true
