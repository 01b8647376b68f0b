#!/usr/bin/env bash
# Builds aqmlab's reference kernel: User-Mode Linux (ARCH=um) from Debian's linux-source-6.1,
# `make ARCH=um defconfig` plus config.fragment, patched with kernel/uml/*.patch (issue 37).
#
#   kernel/uml/build.sh              build (or find) the kernel; prints its path last
#   kernel/uml/build.sh --print-dir  the cache directory these inputs build into, no build
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
fragment="$here/config.fragment"
source_package="linux-source-6.1"
cache="${AQMLAB_CACHE:-$HOME/.cache/aqmlab}/uml"
jobs="${AQMLAB_UML_JOBS:-$(nproc)}"

say() { echo "aqmlab uml-kernel: $*" >&2; }
die() { say "error: $*"; exit 1; }

shopt -s nullglob
patches=("$here"/*.patch)
shopt -u nullglob

have_package() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

install_packages() {
    local wanted=("$source_package" build-essential bc bison flex xz-utils)
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

cache_key() {
    local version
    version="$(dpkg-query -W -f='${Version}' "$source_package")"
    {
        echo "source $source_package $version"
        echo "fragment"
        cat "$fragment"
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
    done < "$fragment"
    [ "$bad" -eq 0 ] || die "the final .config does not hold config.fragment's options (above)"
}

main() {
    [ -f "$fragment" ] || die "no config fragment at $fragment"
    install_packages
    local dir
    dir="$cache/$(cache_key)"
    if [ "${1:-}" = "--print-dir" ]; then echo "$dir"; return 0; fi
    if [ -x "$dir/linux" ] && [ -f "$dir/config" ]; then
        say "already built, nothing to do"
        ln -sfn "$dir" "$cache/latest"
        echo "$dir/linux"
        return 0
    fi
    local start=$SECONDS src="$dir/src"
    mkdir -p "$dir"
    if [ ! -f "$dir/.unpacked" ]; then
        rm -rf "$src"
        say "unpacking /usr/src/$source_package.tar.xz into $src"
        mkdir -p "$src"
        tar -xf "/usr/src/$source_package.tar.xz" -C "$src" --strip-components=1
        for p in "${patches[@]}"; do
            say "applying $(basename "$p")"
            patch -d "$src" -p1 --forward --quiet < "$p"
        done
        touch "$dir/.unpacked"
    fi
    say "configuring: defconfig + config.fragment"
    make -C "$src" ARCH=um defconfig >/dev/null
    "$src/scripts/kconfig/merge_config.sh" -m -O "$src" "$src/.config" "$fragment" >/dev/null
    make -C "$src" ARCH=um olddefconfig >/dev/null
    verify_config "$src/.config"
    say "building with $jobs jobs (make ARCH=um linux)"
    make -C "$src" ARCH=um -j"$jobs" linux
    cp "$src/.config" "$dir/config"
    cp "$src/linux" "$dir/linux.tmp"
    mv "$dir/linux.tmp" "$dir/linux"
    ln -sfn "$dir" "$cache/latest"
    say "built in $((SECONDS - start)) s: $dir/linux"
    echo "$dir/linux"
}

main "$@"
