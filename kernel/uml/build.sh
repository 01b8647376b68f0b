#!/usr/bin/env bash
# Builds aqmlab's reference kernel: User-Mode Linux (ARCH=um) from Debian's linux-source-6.1,
# `make ARCH=um defconfig` plus config.fragment, patched with kernel/uml/*.patch (issue 37).
#
#   kernel/uml/build.sh              build (or find) the kernel; prints its path last
#   kernel/uml/build.sh --print-dir  the cache directory these inputs build into, no build
#   kernel/uml/build.sh --source l4s-upstream [--print-dir]
#       the second reference kernel: the same steps from Debian's linux-source-7.3 (upstream
#       Linux 7.3, which has DualPI2 and AccECN but not TCP Prague), taken from Debian's
#       trixie-backports without adding that suite to the machine's apt sources, with
#       config.l4s-upstream.fragment on top of config.fragment; cached apart, linked as
#       <cache>/uml/latest-l4s-upstream (uml/latest stays the 6.1 kernel). Why not the L4S
#       team's own tree: docs/kernel-reference.md.
#
# Steps: installs linux-source-6.1 and the build tools with apt-get (only those missing);
# unpacks the source into ${AQMLAB_CACHE:-~/.cache/aqmlab}/uml/<key>/src, where <key> is the
# sha256 of the fragment, the patches and the source package's version; applies the patches;
# defconfig, merges the fragment (scripts/kconfig/merge_config.sh, then olddefconfig), checks
# that every option of the fragment holds in the final .config (stops with the option's
# name if one does not: a dependency missing or a name misspelt); `make ARCH=um linux`.
# Leaves <key>/linux and <key>/config, and points <cache>/uml/latest at <key>. Built once:
# the same inputs again find <key>/linux and do nothing. Measured on this project's 2-core
# machine: 6 min 43 s, 368 s of CPU (docs/kernel-reference.md); on a shared machine run it
# under `nice -n 19 ionice -c3`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${AQMLAB_CACHE:-$HOME/.cache/aqmlab}/uml"
jobs="${AQMLAB_UML_JOBS:-$(nproc)}"

say() { echo "aqmlab uml-kernel: $*" >&2; }
die() { say "error: $*"; exit 1; }

shopt -s nullglob
patches=("$here"/*.patch)
shopt -u nullglob

# What --source chooses: the Debian source package, the Debian suite it comes from (empty: the
# machine's own apt sources, installed like the build tools), the fragments (later ones win),
# and the name of the link to the last build.
choose_source() {
    case "$1" in
        debian-6.1)
            source_package="linux-source-6.1"; suite=""
            fragments=("$here/config.fragment"); link="latest" ;;
        l4s-upstream)
            source_package="linux-source-7.3"; suite="trixie-backports"
            fragments=("$here/config.fragment" "$here/config.l4s-upstream.fragment"); link="latest-l4s-upstream" ;;
        *) die "unknown --source '$1' (debian-6.1, l4s-upstream)" ;;
    esac
}

have_package() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

install_packages() {
    local wanted=(build-essential bc bison flex xz-utils)
    [ -n "$suite" ] || wanted+=("$source_package")
    local missing=()
    for p in "${wanted[@]}"; do have_package "$p" || missing+=("$p"); done
    [ "${#missing[@]}" -eq 0 ] && return 0
    command -v apt-get >/dev/null || die "needs Debian's apt-get to install ${missing[*]}"
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    say "installing ${missing[*]} with apt-get"
    if ! DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get update
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
    fi
}

# A source package from another Debian suite, downloaded with apt-get under a private state
# directory (<cache>/apt-<suite>) and unpacked there, so that the machine's apt sources and
# installed packages do not change. The archive is the one the machine's own Debian sources
# name for its release. Sets source_deb and source_tarball.
fetch_suite_source() {
    local dir="$cache/apt-$suite" site codename
    codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
    site="$(apt-get indextargets --format '$(SITE) $(RELEASE)' 2>/dev/null | awk -v r="$codename" '$2 == r { print $1; exit }')"
    [ -n "$site" ] || die "no Debian archive for release '$codename' in the machine's apt sources"
    mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/deb"
    echo "deb $site $suite main" > "$dir/sources.list"
    local apt=(apt-get -o Dir::Etc::sourcelist="$dir/sources.list" -o Dir::Etc::sourceparts=/dev/null
        -o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir" -o APT::Sandbox::User=root)
    shopt -s nullglob
    local debs=("$dir/deb/${source_package}_"*.deb)
    shopt -u nullglob
    if [ "${#debs[@]}" -eq 0 ]; then
        say "downloading $source_package from $suite"
        "${apt[@]}" update >/dev/null
        (cd "$dir/deb" && "${apt[@]}" download "$source_package" >/dev/null)
        debs=("$dir/deb/${source_package}_"*.deb)
    fi
    source_deb="${debs[-1]}"
    source_tarball="$dir/root/usr/src/$source_package.tar.xz"
    if [ ! -f "$source_tarball" ]; then
        rm -rf "$dir/root"
        dpkg-deb -x "$source_deb" "$dir/root"
    fi
}

source_version() {
    if [ -n "$suite" ]; then dpkg-deb -f "$source_deb" Version
    else dpkg-query -W -f='${Version}' "$source_package"; fi
}

cache_key() {
    {
        echo "source $source_package $(source_version)"
        for f in "${fragments[@]}"; do
            if [ "$f" = "$here/config.fragment" ]; then echo "fragment"; else echo "fragment $(basename "$f")"; fi
            cat "$f"
        done
        for p in "${patches[@]}"; do
            echo "patch $(basename "$p")"
            cat "$p"
        done
    } | sha256sum | cut -c1-16
}

# Every `CONFIG_X=y` line must be in .config as is; every `# CONFIG_X is not set` must leave
# X unset (that line, or X absent because what it depends on is off).
verify_config() {
    local config="$1" line name bad=0
    while IFS= read -r line; do
        case "$line" in
            CONFIG_*=*)
                grep -qxF -- "$line" "$config" || { say "option not set as asked: $line (.config has: $(grep -E "^(# )?${line%%=*}[= ]" "$config" || echo 'nothing'))"; bad=1; } ;;
            "# CONFIG_"*" is not set")
                name="${line#\# }"; name="${name%% *}"
                if grep -qE "^${name}=" "$config"; then say "option not unset as asked: $(grep -E "^${name}=" "$config")"; bad=1; fi ;;
        esac
    done < <(cat "${fragments[@]}")
    [ "$bad" -eq 0 ] || die "the final .config does not hold the fragments' options (above)"
}

main() {
    local print_dir=0 name="debian-6.1"
    while [ $# -gt 0 ]; do
        case "$1" in
            --print-dir) print_dir=1 ;;
            --source) [ $# -ge 2 ] || die "--source needs a name"; name="$2"; shift ;;
            *) die "unknown argument '$1'" ;;
        esac
        shift
    done
    choose_source "$name"
    local f
    for f in "${fragments[@]}"; do [ -f "$f" ] || die "no config fragment at $f"; done
    install_packages
    source_tarball="/usr/src/$source_package.tar.xz"
    [ -z "$suite" ] || fetch_suite_source
    local dir
    dir="$cache/$(cache_key)"
    if [ "$print_dir" -eq 1 ]; then echo "$dir"; return 0; fi
    if [ -x "$dir/linux" ] && [ -f "$dir/config" ]; then
        say "already built, nothing to do"
        ln -sfn "$dir" "$cache/$link"
        echo "$dir/linux"
        return 0
    fi
    local start=$SECONDS src="$dir/src"
    mkdir -p "$dir"
    if [ ! -f "$dir/.unpacked" ]; then
        rm -rf "$src"
        say "unpacking $source_tarball into $src"
        mkdir -p "$src"
        tar -xf "$source_tarball" -C "$src" --strip-components=1
        for p in "${patches[@]}"; do
            say "applying $(basename "$p")"
            patch -d "$src" -p1 --forward --quiet < "$p"
        done
        touch "$dir/.unpacked"
    fi
    say "configuring: defconfig + $(for f in "${fragments[@]}"; do basename "$f"; done | paste -sd' ')"
    make -C "$src" ARCH=um defconfig >/dev/null
    "$src/scripts/kconfig/merge_config.sh" -m -O "$src" "$src/.config" "${fragments[@]}" >/dev/null
    make -C "$src" ARCH=um olddefconfig >/dev/null
    verify_config "$src/.config"
    say "building with $jobs jobs (make ARCH=um linux)"
    make -C "$src" ARCH=um -j"$jobs" linux
    cp "$src/.config" "$dir/config"
    cp "$src/linux" "$dir/linux.tmp"
    mv "$dir/linux.tmp" "$dir/linux"
    ln -sfn "$dir" "$cache/$link"
    say "built in $((SECONDS - start)) s: $dir/linux"
    echo "$dir/linux"
}

main "$@"
