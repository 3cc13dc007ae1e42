#!/usr/bin/env bash
# The hygiene gate: checkpatch --strict on every patch, shellcheck on every
# script, and the series applies to a fresh unpack of apt's tree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

bad=0

# checkpatch's SPDX check needs Debian's python3 (with python3-ply).
for patch in $(series_patches); do
	out=$(PATH=/usr/bin:$PATH "$TREE/scripts/checkpatch.pl" --strict --terse \
		--no-summary "$patch" 2>&1 || true)
	if [ -n "$out" ]; then
		printf '%s\n' "$out" >&2
		msg "checkpatch: ${patch#"$REPO"/} is not clean"
		bad=1
	fi
done
[ $bad -eq 0 ] && msg "checkpatch --strict: $(series_patches | wc -l) patches clean"

# with the package's: bpf-scopes, and the maintainer scripts
scripts=("$REPO"/scripts/*.sh "$REPO"/.ci/run "${GUEST_SCRIPTS[@]}" "$REPO"/guest/busybox/init
	"$REPO"/deploy/bpf-scopes "$REPO"/deploy/debian/postinst "$REPO"/deploy/debian/postrm)
if (cd "$REPO" && shellcheck -x "${scripts[@]}"); then
	msg "shellcheck: ${#scripts[@]} scripts clean"
else
	bad=1
fi

# git am onto a fresh unpack, not onto the work tree (which may hold
# local commits).
scratch=$(mktemp -d "${TMPDIR:-/tmp}/devbpf-lint.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
tar -C "$scratch" -xf "$SOURCE_TARBALL"
fresh=$scratch/linux-source-6.12
git -C "$fresh" init -q && git -C "$fresh" config gc.auto 0 &&
	git -C "$fresh" add -A -f &&
	git -C "$fresh" -c user.name=lint -c user.email=lint@localhost commit -q -m base
if series_patches | xargs git -C "$fresh" -c user.name=lint -c user.email=lint@localhost am -q; then
	msg "git am: the series applies to a fresh unpack of $SOURCE_PKG $(source_version)"
else
	msg "git am: the series does not apply to a fresh unpack of $SOURCE_PKG $(source_version)"
	bad=1
fi
# The UAPI header of the series stands on its own: installed by the kernel's
# headers_install, a file that includes only it compiles, and <linux/bpf.h>
# does not pull in <linux/ioctl.h> for it.
hdr=$scratch/headers
if make -s -C "$fresh" INSTALL_HDR_PATH="$hdr" headers_install >"$scratch/headers.log" 2>&1 &&
	printf '#include <linux/bpf_dev.h>\nunsigned long cmds[] = { BPF_DEV_IOCTL_GET_PERM, BPF_DEV_IOCTL_PUT_PERM };\n' |
	gcc -Wall -Werror -std=c89 -pedantic -nostdinc -isystem "$hdr/include" -c -x c -o /dev/null - &&
	printf '#include <linux/bpf.h>\n#ifdef _IOC\n#error linux/bpf.h pulls in linux/ioctl.h\n#endif\n' |
	gcc -Werror -isystem "$hdr/include" -c -x c -o /dev/null -; then
	msg "uapi: <linux/bpf_dev.h> compiles on its own; <linux/bpf.h> does not include <linux/ioctl.h>"
else
	tail -n 5 "$scratch/headers.log" >&2
	msg "uapi: <linux/bpf_dev.h> does not stand on its own (see above)"
	bad=1
fi

# The files the series adds: kernel-doc clean, and the rst parses clean.
added=$(git -C "$fresh" diff --name-only --diff-filter=A HEAD~"$(series_patches | wc -l)" HEAD)
for f in $added; do
	case $f in
	*.c | *.h)
		out=$(cd "$fresh" && PATH=/usr/bin:$PATH scripts/kernel-doc -none -Wall "$f" 2>&1)
		[ -z "$out" ] || { printf '%s\n' "$out" >&2; msg "kernel-doc: $f is not clean"; bad=1; }
		;;
	*.rst)
		if ! /usr/bin/python3 -c 'import sys, docutils.core
docutils.core.publish_doctree(open(sys.argv[1]).read(), source_path=sys.argv[1],
    settings_overrides={"report_level": 2, "halt_level": 2})' "$fresh/$f" >/dev/null; then
			msg "docutils: $f does not parse clean"
			bad=1
		fi
		;;
	esac
done
[ $bad -eq 0 ] && msg "kernel-doc and docutils: the files the series adds are clean"
exit $bad
