#!/usr/bin/env bash
# Installs MPJ Express 0.44 (not on Maven Central) into the project-local Maven repository
# .local-repo, from $MPJ_HOME or from Debian's libmpj-java (/usr/share/mpj), with log4j 1.2
# beside it. When neither is there and it runs as root with apt-get (a fresh machine or a CI box),
# it installs libmpj-java itself, saying so, as .ci/run does (not when MPJ_HOME is set; AIR_NO_INSTALL=1
# turns it off).
# Idempotent; prints where the jars came from. Exit 4 (environment missing) with the one command
# to run when none is found and it cannot install it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO="$ROOT/.local-repo"
VERSION=0.44

find_first() { local f; for f in "$@"; do [ -f "$f" ] && { echo "$f"; return 0; }; done; return 1; }

homes=()
[ -n "${MPJ_HOME:-}" ] && homes+=("$MPJ_HOME")
homes+=(/usr/share/mpj)
find_home() { local h; for h in "${homes[@]}"; do if [ -f "$h/lib/mpj.jar" ]; then echo "$h"; return 0; fi; done; return 1; }
home=$(find_home || true)
# an MPJ_HOME that was set but is wrong is the user's to fix, not a reason to install another
if [ -z "$home" ] && [ -z "${MPJ_HOME:-}" ] && { [ -z "${AIR_NO_INSTALL:-}" ] || [ "${AIR_NO_INSTALL}" = 0 ]; } \
    && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "air: MPJ Express $VERSION not found; installing Debian's libmpj-java:" >&2
  echo "  apt-get update -qq && apt-get install -y -qq libmpj-java   (AIR_NO_INSTALL=1 to skip)" >&2
  if apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libmpj-java >&2; then
    home=$(find_home || true)
  else
    echo "air: apt-get could not install libmpj-java (see above)" >&2
  fi
fi
if [ -z "$home" ]; then
  echo "air: MPJ Express $VERSION not found (looked for lib/mpj.jar in ${homes[*]})." >&2
  echo "  Install it with 'sudo apt-get install libmpj-java' (Debian/Ubuntu), or unpack MPJ Express $VERSION" >&2
  echo "  and set MPJ_HOME to its directory." >&2
  exit 4
fi
log4j=$(find_first "$home"/lib/log4j-1.2*.jar /usr/share/java/log4j-1.2.jar) || {
  echo "air: log4j 1.2 (needed by MPJ Express) not found in $home/lib or /usr/share/java;" >&2
  echo "  'sudo apt-get install liblog4j1.2-java' or copy log4j-1.2.17.jar into $home/lib." >&2
  exit 4
}
niodev=$(find_first "$home/lib/niodev.jar" || true)

install_jar() { # file artifactId version
  local dir="$REPO/dev/air/mpj/$2/$3" base="$2-$3"
  if [ -f "$dir/$base.jar" ] && cmp -s "$1" "$dir/$base.jar"; then return 0; fi
  mkdir -p "$dir"
  cp "$1" "$dir/$base.jar"
  cat > "$dir/$base.pom" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>dev.air.mpj</groupId><artifactId>$2</artifactId><version>$3</version><packaging>jar</packaging>
  <description>Installed by tools/setup-mpj.sh from $1</description></project>
POM
  for f in "$dir/$base.jar" "$dir/$base.pom"; do sha1sum "$f" | cut -d' ' -f1 > "$f.sha1"; done
  echo "air: installed $1 as dev.air.mpj:$2:$3" >&2
}

install_jar "$home/lib/mpj.jar" mpj "$VERSION"
if [ -n "$niodev" ]; then
  install_jar "$niodev" niodev "$VERSION"
else # an upstream MPJ_HOME bundles the devices into mpj.jar: an empty jar keeps the dependency satisfied
  tmp=$(mktemp -d); (cd "$tmp" && mkdir META-INF && printf 'Manifest-Version: 1.0\n' > META-INF/MANIFEST.MF && "${JAVA_HOME:-/usr}/bin/jar" cfm niodev.jar META-INF/MANIFEST.MF 2>/dev/null || zip -q niodev.jar META-INF/MANIFEST.MF)
  install_jar "$tmp/niodev.jar" niodev "$VERSION"; rm -rf "$tmp"
fi
install_jar "$log4j" log4j12 1.2.17

# A Maven run before this install (say 'mvn install' on a fresh machine) cached "not found" for these artifacts in the
# local repository, and Maven believes that until its update interval passes: forget it now that they are here.
m2=$(sed -n 's/.*-Dmaven\.repo\.local=\([^ ]*\).*/\1/p' <<<"${MAVEN_OPTS:-}")
m2="${m2:-$HOME/.m2/repository}"
rm -f "$m2"/dev/air/mpj/*/*/*.lastUpdated 2>/dev/null || true
