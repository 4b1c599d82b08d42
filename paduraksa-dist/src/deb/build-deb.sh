#!/usr/bin/env bash
# Builds paduraksa_<debian version>_amd64.deb with dpkg-deb (called by the exec plugin at `package`).
#   build-deb.sh MAVEN_VERSION STAGE_DIR REPO_ROOT TARGET_DIR     (STAGE_DIR holds lib/ and runtime/)
# Layout: /usr/share/paduraksa/{bin,lib}, /usr/bin/paduraksa -> ../share/paduraksa/bin/paduraksa,
# the bundled Java runtime in /usr/lib/paduraksa/runtime (architecture-dependent, so under /usr/lib),
# reached by the launcher as /usr/share/paduraksa/runtime -> ../../lib/paduraksa/runtime,
# /etc/paduraksa/* and /etc/default/paduraksa (conffiles), /lib/systemd/system/paduraksa.{service,socket}.
set -euo pipefail
version=$1 stage=$2 repo=$3 target=$4
lib=$stage/lib
here=$(cd "$(dirname "$0")" && pwd)
# Debian versions: '~' sorts before anything, so 0.1.0~SNAPSHOT < 0.1.0 (a '-' would start a Debian revision).
debversion=${version//-/\~}
# amd64, not all: the jars carry x86_64-only native code (epoll, io_uring, BoringSSL), and so does the runtime.
arch=amd64
root="$target/deb/root"
rm -rf "$target/deb" && mkdir -p "$root"

install -d -m 0755 "$root/DEBIAN" "$root/usr/share/paduraksa/bin" "$root/usr/share/paduraksa/lib" "$root/usr/bin" \
  "$root/etc/paduraksa" "$root/etc/default" "$root/lib/systemd/system" "$root/usr/share/doc/paduraksa"
install -m 0755 "$repo/bin/paduraksa" "$root/usr/share/paduraksa/bin/paduraksa"
install -m 0644 "$repo/bin/find-java.sh" "$root/usr/share/paduraksa/bin/find-java.sh"
install -d -m 0755 "$root/usr/lib/paduraksa"
cp -a "$stage/runtime" "$root/usr/lib/paduraksa/runtime"
ln -s ../../lib/paduraksa/runtime "$root/usr/share/paduraksa/runtime"
# -p keeps the build's timestamps: the AOT cache (lib/paduraksa.aot, when the build made one) names its jars.
install -p -m 0644 "$lib"/*.jar "$root/usr/share/paduraksa/lib/"
if [ -f "$lib/paduraksa.aot" ]; then install -p -m 0644 "$lib/paduraksa.aot" "$root/usr/share/paduraksa/lib/"; fi
ln -s ../share/paduraksa/bin/paduraksa "$root/usr/bin/paduraksa"
install -m 0644 "$repo"/config/*.yaml "$repo"/config/*.txt "$root/etc/paduraksa/"
install -m 0644 "$repo/dist/default/paduraksa" "$root/etc/default/paduraksa"
install -m 0644 "$repo/dist/systemd/paduraksa.service" "$repo/dist/systemd/paduraksa.socket" "$root/lib/systemd/system/"
install -m 0644 "$repo/README.md" "$repo/docs/operations.md" "$repo/docs/configuration.md" "$root/usr/share/doc/paduraksa/"
install -m 0644 "$repo/LICENSE" "$root/usr/share/doc/paduraksa/copyright"

# Every file under /etc is a conffile: dpkg keeps the operator's edits on upgrade.
(cd "$root" && find etc -type f | sort | sed 's|^|/|') > "$root/DEBIAN/conffiles"
install -m 0755 "$here/postinst" "$here/prerm" "$here/postrm" "$root/DEBIAN/"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$debversion/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" "$here/control" > "$root/DEBIAN/control"

deb="$target/paduraksa_${debversion}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "built $deb"
