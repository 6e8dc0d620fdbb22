#!/usr/bin/env bash
# Builds the application's image into target/status-aggregator-image.tar (docker-save format) with neither a registry
# nor a Docker engine, for a machine that has neither (load it elsewhere: `docker load -i`, or
# `skopeo copy docker-archive:target/status-aggregator-image.tar docker://REGISTRY/...`). See docs/image.md.
#
#   bash deploy/image/build-tar.sh [--run-check]
#
# 1. A base image of its own, as a tarball under target/image-base/: a JRE jlink'ed from this machine's JDK 17 (the
#    modules jdeps finds in target/quarkus-app, or a generous fixed list before the first build) with the JDK's
#    class-data archive, the shared libraries
#    it links (ldd, so: this machine's glibc, amd64), /etc/passwd with user 185, /tmp, PATH and JAVA_HOME.
#    Not Quarkus' default base (registry.access.redhat.com/ubi9/openjdk-17-runtime), which needs a registry.
# 2. `mvn package` with the container image build on, Jib reading that base from the tarball (tar://), offline, and
#    "loading" the result through deploy/image/docker-load-to-file, which writes it to the tar.
# 3. Checks the tar: tag, user, ports, entrypoint. --run-check (as root, with chroot): also unpacks the image and runs
#    its entrypoint with `compute --help` as user 185, the class-data archive required (-Xshare:on).
set -euo pipefail

start=$(date +%s)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)

RUN_CHECK=false
for arg in "$@"; do
  case "$arg" in
    --run-check) RUN_CHECK=true ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "build-tar.sh: unknown argument: $arg (only --run-check)" >&2; exit 2 ;;
  esac
done

fail() { echo "build-tar.sh: FAILED: $*" >&2; exit 1; }
step() { echo "==> $*"; }

TARGET=$ROOT/target
IMAGE_TAR=$TARGET/status-aggregator-image.tar
BASE_DIR=$TARGET/image-base
BASE_TAR=$BASE_DIR/jre17-base.tar
STANDIN=$ROOT/deploy/image/docker-load-to-file
[ -x "$STANDIN" ] || fail "$STANDIN is missing or not executable"
command -v python3 >/dev/null || fail "python3 is needed for the checks"

VERSION=$(python3 - "$ROOT/pom.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
ns = {"m": "http://maven.apache.org/POM/4.0.0"}
print(ET.parse(sys.argv[1]).getroot().find("m:version", ns).text.strip())
EOF
)
EXPECTED_TAG="status-aggregator/status-aggregator:$VERSION"

# --- the JDK ---------------------------------------------------------------------------------------------------------
JDK=${JAVA_HOME:-}
if [ -z "$JDK" ] || [ ! -d "$JDK/jmods" ]; then
  if [ -d /usr/lib/jvm/java-17-openjdk-amd64/jmods ]; then JDK=/usr/lib/jvm/java-17-openjdk-amd64
  else JDK=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")"); fi
fi
[ -d "$JDK/jmods" ] || fail "no jmods in $JDK (set JAVA_HOME to a full JDK 17; on Debian: openjdk-17-jmods)"
"$JDK/bin/java" -version 2>&1 | grep 'version "17' >/dev/null || fail "$JDK is not a JDK 17"

# --- 1. the modules the application needs ----------------------------------------------------------------------------
# Always: what is loaded as a service or by name, which jdeps cannot see (TLS curves, PKCS#11, DNS, zip file
# systems, JMX/metrics, Unsafe).
ALWAYS=jdk.crypto.ec,jdk.crypto.cryptoki,jdk.management,jdk.naming.dns,jdk.zipfs,jdk.unsupported
FIXED=java.se,$ALWAYS
jdeps_modules() {  # prints the java modules the jars under target/quarkus-app use, or nothing
  local tmp; tmp=$(mktemp -d)
  # jdeps treats a jar with a module-info as a module and then fails on its unresolved requires; copies without it
  # are analysed as plain class path jars.
  python3 - "$tmp" $(find "$TARGET/quarkus-app" -name '*.jar' | sort) <<'EOF' || { rm -rf "$tmp"; return 0; }
import os, shutil, sys, zipfile
out = sys.argv[1]
for i, jar in enumerate(sys.argv[2:]):
    dst = os.path.join(out, "%04d-%s" % (i, os.path.basename(jar)))
    with zipfile.ZipFile(jar) as z:
        if not any(n.endswith("module-info.class") for n in z.namelist()):
            shutil.copy(jar, dst)
            continue
        with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as o:
            for info in z.infolist():
                if not info.filename.endswith("module-info.class"):
                    o.writestr(info, z.read(info))
EOF
  nice -n 19 "$JDK/bin/jdeps" --print-module-deps --ignore-missing-deps --multi-release 17 -q "$tmp"/*.jar 2>/dev/null \
    | tail -1 | grep -E '^[a-z][a-z0-9.]*(,[a-z][a-z0-9.]*)*$' || true
  rm -rf "$tmp"
}
deps_stamp() { cat "$TARGET/quarkus-app/quarkus-app-dependencies.txt" 2>/dev/null | sha256sum | cut -c1-16; }
# covers(have, need): every module of the comma list need is in have (java.se stands for its java.* modules)
covers() { python3 -c '
import sys
have, need = set(sys.argv[1].split(",")), set(sys.argv[2].split(","))
missing = [m for m in need if m not in have and not ("java.se" in have and m.startswith("java."))]
print(",".join(sorted(missing))); sys.exit(1 if missing else 0)' "$1" "$2"; }

choose_modules() {
  MODULES_FROM="fixed list (no target/quarkus-app yet)"; MODULES=$FIXED
  if [ -d "$TARGET/quarkus-app/lib" ]; then
    step "jdeps: the modules target/quarkus-app uses"
    local found; found=$(jdeps_modules)
    if [ -n "$found" ]; then MODULES="$found,$ALWAYS"; MODULES_FROM="jdeps on target/quarkus-app"
    else MODULES_FROM="fixed list (jdeps gave no answer)"; fi
  fi
  MODULES=$(echo "$MODULES" | tr ',' '\n' | sort -u | paste -sd, -)
  MODULES_STAMP=$(deps_stamp)
}

# --- 1. the base image tarball ---------------------------------------------------------------------------------------
make_base() {
  local key; key=$( { echo "base v2"; echo "$MODULES"; "$JDK/bin/java" -version 2>&1; ldd --version 2>&1 | sed -n 1p; } | sha256sum | cut -c1-16)
  if [ -f "$BASE_TAR" ] && [ "$(cat "$BASE_DIR/key" 2>/dev/null)" = "$key" ]; then
    step "base image: $BASE_TAR is up to date (modules: $MODULES)"; return
  fi
  step "base image: jlink JRE from $JDK with $MODULES ($MODULES_FROM)"
  rm -rf "$BASE_DIR"; mkdir -p "$BASE_DIR/rootfs" "$BASE_DIR/img"
  local rootfs=$BASE_DIR/rootfs img=$BASE_DIR/img
  nice -n 19 "$JDK/bin/jlink" --module-path "$JDK/jmods" --add-modules "$MODULES" \
    --strip-debug --no-header-files --no-man-pages --compress=2 --generate-cds-archive --output "$rootfs/opt/java"
  # The JDK's own class-data archive, as a JDK's installation has it: without it every start reads and parses each
  # JDK class it uses from the compressed modules file (1,825 for `compute --help`; the archive holds 1,131 of them).
  # Only the archive for compressed object pointers is kept: a heap under 32 GB uses no other.
  [ -f "$rootfs/opt/java/lib/server/classes.jsa" ] || fail "jlink made no class-data archive (lib/server/classes.jsa)"
  rm -f "$rootfs/opt/java/lib/server/classes_nocoops.jsa"
  # The shared libraries the JRE's launcher and libraries link, from this machine (glibc, zlib, the AWT ones).
  local f lib
  for f in "$rootfs"/opt/java/bin/* $(find "$rootfs/opt/java/lib" -name '*.so'); do
    ldd "$f" 2>/dev/null || true
  done | awk '/=> \// {print $3} /^[ \t]*\/[^ ]+ \(0x/ {print $1}' | grep -v "^$rootfs" | sort -u > "$BASE_DIR/libs.txt"
  grep -q 'libc.so' "$BASE_DIR/libs.txt" || fail "ldd found no libc for the JRE"
  while read -r lib; do
    mkdir -p "$rootfs$(dirname "$lib")"; cp -L "$lib" "$rootfs$lib"
  done < "$BASE_DIR/libs.txt"
  mkdir -p "$rootfs/etc" "$rootfs/tmp" "$rootfs/home/jboss" "$rootfs/usr/bin" "$rootfs/proc" "$rootfs/dev"
  chmod 1777 "$rootfs/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\njboss:x:185:0:JBoss user:/home/jboss:/sbin/nologin\n' > "$rootfs/etc/passwd"
  printf 'root:x:0:\njboss:x:185:\n' > "$rootfs/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$rootfs/etc/nsswitch.conf"
  ln -s /opt/java/bin/java "$rootfs/usr/bin/java"
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$rootfs" -cf "$img/layer.tar" .
  # All owned by root, as Jib's own layers are: the application reads them and writes only to /tmp.
  local diff cfg
  diff=$(sha256sum "$img/layer.tar" | cut -d' ' -f1)
  cat > "$img/config.json" <<JSON
{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z",
 "config":{"Env":["PATH=/opt/java/bin:/usr/local/bin:/usr/bin:/bin","JAVA_HOME=/opt/java"],"WorkingDir":"/"},
 "rootfs":{"type":"layers","diff_ids":["sha256:$diff"]},
 "history":[{"created":"1970-01-01T00:00:00Z","created_by":"deploy/image/build-tar.sh: jlink JRE 17 ($MODULES) and the libraries it links, from the build machine"}]}
JSON
  cfg=$(sha256sum "$img/config.json" | cut -d' ' -f1); mv "$img/config.json" "$img/$cfg.json"
  echo "[{\"Config\":\"$cfg.json\",\"RepoTags\":[\"local/status-aggregator-jre17-base:$key\"],\"Layers\":[\"layer.tar\"]}]" > "$img/manifest.json"
  tar --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$img" -cf "$BASE_TAR" manifest.json "$cfg.json" layer.tar
  rm -rf "$img" "$rootfs"
  echo "$key" > "$BASE_DIR/key"; echo "$MODULES" > "$BASE_DIR/modules.txt"
  echo "    $BASE_TAR: $(du -h "$BASE_TAR" | cut -f1)"
}

# --- 2. the image ----------------------------------------------------------------------------------------------------
build_image() {
  rm -f "$IMAGE_TAR" "$IMAGE_TAR.part"
  local props=(
    -DskipTests
    -Dquarkus.container-image.build=true
    -Dquarkus.container-image.push=false
    "-Dquarkus.jib.base-jvm-image=tar://$BASE_TAR"
    "-Dquarkus.jib.docker-executable-name=$STANDIN"
    "-Dquarkus.jib.docker-environment.IMAGE_TAR=$IMAGE_TAR"
    -Dquarkus.jib.offline-mode=true
    "-Dquarkus.jib.base-image-layers-cache=$TARGET/jib-cache/base"
    "-Dquarkus.jib.application-layers-cache=$TARGET/jib-cache/app"
  )
  export IMAGE_TAR
  step "mvn -B -o package ${props[*]}"
  if ! nice -n 19 mvn -B -o package "${props[@]}"; then
    step "offline build failed; again without -o"
    nice -n 19 mvn -B package "${props[@]}" || fail "mvn package failed"
  fi
  [ -s "$IMAGE_TAR" ] || fail "the build wrote no $IMAGE_TAR"
}

choose_modules
make_base
build_image
# The base was chosen from the previous build's dependencies (or the fixed list): if they changed, check that the
# JRE still has every module the new ones use, and rebuild once with a new base if not.
if [ "$(deps_stamp)" != "$MODULES_STAMP" ] && [[ "$MODULES_FROM" == jdeps* ]]; then
  old=$MODULES; choose_modules
  if ! missing=$(covers "$old" "$MODULES"); then
    step "the dependencies changed and need $missing: new base, build again"
    make_base; build_image
  else MODULES=$old; fi
fi

# --- 3. checks -------------------------------------------------------------------------------------------------------
step "checking $IMAGE_TAR"
SUMMARY=$(python3 - "$IMAGE_TAR" "$EXPECTED_TAG" <<'EOF'
import json, sys, tarfile
path, tag = sys.argv[1], sys.argv[2]
errors = []
with tarfile.open(path) as t:
    manifest = json.load(t.extractfile("manifest.json"))
    if len(manifest) != 1:
        errors.append("manifest.json has %d images, not 1" % len(manifest))
    m = manifest[0]
    cfg = json.load(t.extractfile(m["Config"]))
    names = set(t.getnames())
    for layer in m["Layers"]:
        if layer not in names:
            errors.append("layer %s missing from the tar" % layer)
c = cfg.get("config", {})
tags = m.get("RepoTags") or []
if tag not in tags:
    errors.append("RepoTags %s lacks %s" % (tags, tag))
if c.get("User") != "185":
    errors.append("User is %r, not '185'" % c.get("User"))
ports = sorted((c.get("ExposedPorts") or {}).keys())
if ports != ["8080/tcp", "8443/tcp", "9000/tcp"]:
    errors.append("ExposedPorts are %s, not 8080/tcp, 8443/tcp, 9000/tcp" % ports)
ep = c.get("Entrypoint") or []
if ep[-2:] != ["-jar", "quarkus-run.jar"]:
    errors.append("Entrypoint %s does not end with -jar quarkus-run.jar" % ep)
if c.get("Cmd"):
    errors.append("Cmd %s is set; the image must start without a command (= run)" % c.get("Cmd"))
env = dict(e.split("=", 1) for e in c.get("Env") or [])
if env.get("QUARKUS_HTTP_HOST") != "0.0.0.0" or env.get("QUARKUS_MANAGEMENT_HOST") != "0.0.0.0":
    errors.append("the image does not listen on every interface: QUARKUS_HTTP_HOST=%s QUARKUS_MANAGEMENT_HOST=%s"
                  % (env.get("QUARKUS_HTTP_HOST"), env.get("QUARKUS_MANAGEMENT_HOST")))
if cfg.get("architecture") != "amd64" or cfg.get("os") != "linux":
    errors.append("platform is %s/%s" % (cfg.get("os"), cfg.get("architecture")))
if errors:
    for e in errors:
        print("CHECK FAILED: " + e, file=sys.stderr)
    sys.exit(1)
print("tag:        " + ", ".join(tags))
print("entrypoint: " + " ".join(ep))
print("user:       " + c["User"] + "   workdir: " + c.get("WorkingDir", "/"))
print("ports:      " + " ".join(ports))
print("layers:     %d" % len(m["Layers"]))
EOF
) || fail "the image in $IMAGE_TAR is not the expected one (see above)"
echo "$SUMMARY" | sed 's/^/    /'
echo "    checks:     OK (tag, user 185, ports 8080/8443/9000, listening on every interface, entrypoint ... -jar quarkus-run.jar, no command)"

# --- --run-check: start the image's JRE and application --------------------------------------------------------------
run_check() {
  if [ "$(id -u)" != 0 ] || ! command -v chroot >/dev/null; then
    echo "==> --run-check skipped: needs root and chroot (running as uid $(id -u))"; return
  fi
  local rootdir=$TARGET/image-root
  step "run check: unpacking the image into $rootdir"
  if mountpoint -q "$rootdir/proc" 2>/dev/null; then umount "$rootdir/proc"; fi
  rm -rf --one-file-system "$rootdir"; mkdir -p "$rootdir"
  python3 - "$IMAGE_TAR" "$rootdir" <<'EOF'
import json, os, shutil, sys, tarfile
image, root = sys.argv[1], sys.argv[2]
with tarfile.open(image) as t:
    m = json.load(t.extractfile("manifest.json"))[0]
    for name in m["Layers"]:                       # in order, honouring whiteouts
        with tarfile.open(fileobj=t.extractfile(name), mode="r:*") as layer:
            members = []
            for mem in layer.getmembers():
                d, b = os.path.split(mem.name)
                if b.startswith(".wh."):
                    gone = os.path.join(root, d, b[4:])
                    if b == ".wh..wh..opq":
                        for x in os.listdir(os.path.join(root, d)): shutil.rmtree(os.path.join(root, d, x), ignore_errors=True)
                    elif os.path.isdir(gone) and not os.path.islink(gone): shutil.rmtree(gone)
                    elif os.path.lexists(gone): os.remove(gone)
                else:
                    members.append(mem)
            layer.extractall(root, members=members, numeric_owner=True)
EOF
  mkdir -p "$rootdir/proc"
  trap 'umount "'"$rootdir"'/proc" 2>/dev/null || true' EXIT
  mount -t proc proc "$rootdir/proc" || fail "cannot mount /proc in $rootdir"
  step "run check: the entrypoint with 'compute --help' as user 185 (-Xshare:on), chroot $rootdir"
  local out rc=0
  # chroot(8) always starts in /, so python does chroot(2) itself to honour the image's WorkingDir, Env and User.
  out=$(python3 - "$IMAGE_TAR" "$rootdir" compute --help <<'EOF' 2>"$TARGET/image-run-check.err"
import json, os, pwd, sys, tarfile
image, root, args = sys.argv[1], sys.argv[2], sys.argv[3:]
with tarfile.open(image) as t:
    m = json.load(t.extractfile("manifest.json"))[0]
    c = json.load(t.extractfile(m["Config"]))["config"]
env = dict(e.split("=", 1) for e in c.get("Env", []))
argv = c["Entrypoint"] + args   # as `docker run IMAGE compute --help`: the arguments replace Cmd (empty here)
uid = int(c["User"])
os.chroot(root); os.chdir(c.get("WorkingDir") or "/")
os.setgroups([]); os.setgid(0); os.setuid(uid)
env.setdefault("HOME", c.get("WorkingDir") or "/")
env["JAVA_TOOL_OPTIONS"] = "-Xshare:on"  # fails the start if the JRE's class-data archive cannot be used
path = env.get("PATH", "/usr/bin:/bin")
exe = next((os.path.join(p, argv[0]) for p in path.split(":") if os.access(os.path.join(p, argv[0]), os.X_OK)), argv[0])
sys.stdout.flush()
os.execve(exe, argv, env)
EOF
) || rc=$?
  umount "$rootdir/proc" || true; trap - EXIT
  echo "$out" | sed -n '1,5s/^/    | /p'
  if [ "$rc" != 0 ] || ! grep -q '^Usage:' <<<"$out"; then
    sed 's/^/    ! /' "$TARGET/image-run-check.err" | tail -20 >&2
    fail "run check: exit $rc, 'Usage:' $(grep -q '^Usage:' <<<"$out" && echo found || echo 'not found') on stdout"
  fi
  echo "    run check:  OK (exit 0, 'Usage:' on stdout; stderr in target/image-run-check.err)"
}
$RUN_CHECK && run_check

end=$(date +%s)
echo "==> $IMAGE_TAR"
echo "    size:       $(du -h "$IMAGE_TAR" | cut -f1) ($(stat -c %s "$IMAGE_TAR") bytes)"
echo "    digest:     $(cat "$TARGET/jib-image.digest" 2>/dev/null || echo '?')  image id: $(cat "$TARGET/jib-image.id" 2>/dev/null || echo '?')"
echo "    tar sha256: $(sha256sum "$IMAGE_TAR" | cut -d' ' -f1)"
echo "    base:       $BASE_TAR ($(du -h "$BASE_TAR" | cut -f1); modules: $MODULES)"
echo "    took:       $((end - start)) s"
