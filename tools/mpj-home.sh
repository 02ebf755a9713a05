#!/usr/bin/env bash
# Builds a private MPJ_HOME for mpjrun and the MPJ daemon: Debian's packaged scripts fail as shipped
# (class-path jars missing from lib/, daemons started over ssh). Copies the jars MPJ's manifests name
# into DIR/lib and writes DIR/conf/mpjexpress.conf with the daemon on PORT (default 40055), its port
# manager on PORT+1 and mpjrun's own server on PORT+2.
#   tools/mpj-home.sh DIR [PORT]
set -euo pipefail
dir="${1:?usage: tools/mpj-home.sh DIR [PORT]}"; port="${2:-40055}"
src="${MPJ_SOURCE:-${MPJ_HOME_SRC:-/usr/share/mpj}}"
[ -f "$src/lib/starter.jar" ] || { echo "air: no MPJ Express in $src (apt-get install libmpj-java, or set MPJ_SOURCE)" >&2; exit 4; }
mkdir -p "$dir/lib" "$dir/conf" "$dir/logs"
cp -L "$src"/lib/*.jar "$dir/lib/"
for j in log4j-1.2 commons-codec commons-io; do
  f=$(ls /usr/share/java/$j.jar "$src"/lib/$j*.jar 2>/dev/null | head -n1 || true)
  [ -n "$f" ] && cp -L "$f" "$dir/lib/$j.jar"
done
[ -f "$dir/lib/log4j-1.2.jar" ] || { echo "air: log4j 1.2 not found (apt-get install liblog4j1.2-java)" >&2; exit 4; }
sed -e "s/^mpjexpress.mpjdaemon.port.1=.*/mpjexpress.mpjdaemon.port.1=$port/" \
    -e "s/^mpjexpress.mpjdaemon.port.2=.*/mpjexpress.mpjdaemon.port.2=$((port + 1))/" \
    -e "s/^mpjexpress.mpjrun.port.1=.*/mpjexpress.mpjrun.port.1=$((port + 2))/" \
    "$src/conf/mpjexpress.conf" > "$dir/conf/mpjexpress.conf"
echo localhost > "$dir/machines"
echo "$dir"
