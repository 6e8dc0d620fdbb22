#!/usr/bin/env bash
# Builds the application's image into target/status-aggregator-image.tar (docker-save format) with neither a registry
# nor a Docker engine, for a machine that has neither (load it elsewhere: `docker load -i`, or
# `skopeo copy docker-archive:target/status-aggregator-image.tar docker://REGISTRY/...`). See docs/image.md.
#
#   bash deploy/image/build-tar.sh [--run-check]
#
# 1. A base image of its own, as a tarball under target/image-base/: a JRE jlink'ed from this machine's Java 25
#    (IMAGE_JDK, else Temurin's /usr/lib/jvm/temurin-25-jdk-amd64; where there is none, its JDK 17, said so) (the
#    modules jdeps finds in target/quarkus-app, or a generous fixed list before the first build) with the JDK's
#    class-data archive, the shared libraries
#    it links (ldd, so: this machine's glibc, amd64), /etc/passwd with user 185, /tmp, PATH and JAVA_HOME.
#    Not Quarkus' default base (registry.access.redhat.com/ubi9/openjdk-17-runtime), which needs a registry.
# 2. `mvn package` with the container image build on, Jib reading that base from the tarball (tar://), offline, and
#    "loading" the result through deploy/image/docker-load-to-file, which writes it to the tar. On Java 25 the
#    application is packaged as Quarkus' aot-jar (quarkus.package.jar.aot.*: every jar on the class path, which an
#    ahead-of-time cache needs), and a training run of the image's own files (deploy/image/train-aot.sh) writes the
#    cache, added as a layer of its own; the entrypoint starts the JVM with it (-XX:AOTCache).
# 3. Checks the tar: tag, user, ports, entrypoint. --run-check (as root, with chroot): also unpacks the image and runs
#    its entrypoint with `compute --help` as user 185, the class-data archive (Java 17, -Xshare:on) or the
#    ahead-of-time cache (Java 25, -XX:AOTMode=on) required; then starts it (`run`, the embedded default) and times
#    it to ready (/q/health/ready).
set -euo pipefail

start=$(date +%s)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)

RUN_CHECK=false
for arg in "$@"; do
  case "$arg" in
    --run-check) RUN_CHECK=true ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "build-tar.sh: unknown argument: $arg (only --run-check)" >&2; exit 2 ;;
  esac
done

fail() { echo "build-tar.sh: FAILED: $*" >&2; exit 1; }
step() { echo "==> $*"; }

TARGET=$ROOT/target
IMAGE_TAR=$TARGET/status-aggregator-image.tar
BASE_DIR=$TARGET/image-base
BASE_TAR=$BASE_DIR/jre-base.tar
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
# The image's runtime is Java 25 with an ahead-of-time cache (docs/image.md); where no Java 25 is installed (nothing
# installs it here), Java 17 without one, as before. Maven builds with whatever java it finds (release 17).
java_feature() { "$1/bin/java" -version 2>&1 | sed -n '1s/.*version "\([0-9]*\).*/\1/p'; }
JDK=${IMAGE_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
if [ -x "$JDK/bin/jlink" ] && [ "$(java_feature "$JDK")" -ge 25 ] 2>/dev/null; then
  AOT=true
else
  [ -n "${IMAGE_JDK:-}" ] && fail "IMAGE_JDK=$IMAGE_JDK is not a JDK 25 or later with jlink"
  AOT=false
  JDK=${JAVA_HOME:-}
  if [ -z "$JDK" ] || [ ! -d "$JDK/jmods" ]; then
    if [ -d /usr/lib/jvm/java-17-openjdk-amd64/jmods ]; then JDK=/usr/lib/jvm/java-17-openjdk-amd64
    else JDK=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")"); fi
  fi
  [ -d "$JDK/jmods" ] || fail "no jmods in $JDK (set JAVA_HOME to a full JDK 17; on Debian: openjdk-17-jmods)"
  [ "$(java_feature "$JDK")" = 17 ] || fail "$JDK is not a JDK 17"
fi
JAVA_FEATURE=$(java_feature "$JDK")
if $AOT; then
  step "image runtime: Java $JAVA_FEATURE from $JDK, with an ahead-of-time cache trained in this build"
else
  step "image runtime: Java 17 from $JDK, WITHOUT an ahead-of-time cache: no Java 25 at ${IMAGE_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64} (set IMAGE_JDK)"
fi

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
  local key; key=$( { echo "base v3"; echo "$MODULES"; "$JDK/bin/java" -version 2>&1; ldd --version 2>&1 | sed -n 1p; } | sha256sum | cut -c1-16)
  if [ -f "$BASE_TAR" ] && [ "$(cat "$BASE_DIR/key" 2>/dev/null)" = "$key" ]; then
    step "base image: $BASE_TAR is up to date (modules: $MODULES)"; return
  fi
  step "base image: jlink JRE from $JDK with $MODULES ($MODULES_FROM)"
  rm -rf "$BASE_DIR"; mkdir -p "$BASE_DIR/rootfs" "$BASE_DIR/img"
  local rootfs=$BASE_DIR/rootfs img=$BASE_DIR/img
  # Java 25's JDK links from its own run-time image (no jmods); its --compress takes zip-N, 17's a level.
  local from=() compress=2
  [ -d "$JDK/jmods" ] && from=(--module-path "$JDK/jmods")
  [ "$JAVA_FEATURE" -ge 21 ] && compress=zip-6
  nice -n 19 "$JDK/bin/jlink" "${from[@]}" --add-modules "$MODULES" \
    --strip-debug --no-header-files --no-man-pages --compress=$compress --generate-cds-archive --output "$rootfs/opt/java"
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
 "history":[{"created":"1970-01-01T00:00:00Z","created_by":"deploy/image/build-tar.sh: jlink JRE $JAVA_FEATURE ($MODULES) and the libraries it links, from the build machine"}]}
JSON
  cfg=$(sha256sum "$img/config.json" | cut -d' ' -f1); mv "$img/config.json" "$img/$cfg.json"
  echo "[{\"Config\":\"$cfg.json\",\"RepoTags\":[\"local/status-aggregator-jre$JAVA_FEATURE-base:$key\"],\"Layers\":[\"layer.tar\"]}]" > "$img/manifest.json"
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
  # Quarkus' aot-jar: the jars on the JVM's class path, where an ahead-of-time cache can hold their classes (the
  # default fast-jar loads them through Quarkus' own class loader, whose classes a cache cannot hold). No training by
  # Quarkus here (its phases train at the build's start-up or in @QuarkusIntegrationTest runs): train-aot.sh does.
  $AOT && props+=(-Dquarkus.package.jar.aot.enabled=true -Dquarkus.package.jar.aot.type=AOT)
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

# --- 2b. the ahead-of-time cache (Java 25) ---------------------------------------------------------------------------
# unpack_image TAR DIR: the image's layers into DIR, in order, honouring whiteouts; files keep the image's times,
# which the cache records of each jar.
unpack_image() {
  python3 - "$1" "$2" <<'PY'
import json, os, shutil, sys, tarfile
image, root = sys.argv[1], sys.argv[2]
with tarfile.open(image) as t:
    m = json.load(t.extractfile("manifest.json"))[0]
    for name in m["Layers"]:
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
PY
}

# The image's own java and files, unpacked here, run the training (relocated: the cache holds the class path relative
# to the jar's place, and each jar's size and time); the cache becomes a layer, and the entrypoint uses it.
add_aot_cache() {
  local train=$TARGET/image-train cache=$TARGET/image-aot/app.aot workdir
  step "ahead-of-time cache: a training run of the image's java and files (deploy/image/train-aot.sh)"
  rm -rf --one-file-system "$train"; mkdir -p "$train" "$(dirname "$cache")"
  unpack_image "$IMAGE_TAR" "$train"
  workdir=$(python3 -c 'import json,sys,tarfile
t=tarfile.open(sys.argv[1]); m=json.load(t.extractfile("manifest.json"))[0]
print(json.load(t.extractfile(m["Config"]))["config"].get("WorkingDir") or "/")' "$IMAGE_TAR")
  mapfile -t jvm < <(python3 -c 'import json,sys,tarfile
t=tarfile.open(sys.argv[1]); m=json.load(t.extractfile("manifest.json"))[0]
ep=json.load(t.extractfile(m["Config"]))["config"]["Entrypoint"]
print("\n".join(ep[1:ep.index("-jar")]))' "$IMAGE_TAR")
  bash "$ROOT/deploy/image/train-aot.sh" "$train/opt/java/bin/java" "$train$workdir" "$cache" "${jvm[@]}" \
    || fail "the training run failed (above)"
  rm -rf --one-file-system "$train"
  step "ahead-of-time cache: a layer of its own ($workdir/app.aot); the entrypoint gets -XX:AOTCache"
  python3 - "$IMAGE_TAR" "$cache" "$workdir/app.aot" <<'PY' || fail "could not add the cache to $IMAGE_TAR"
import hashlib, io, json, os, sys, tarfile
image, cache, inside = sys.argv[1], sys.argv[2], sys.argv[3].lstrip("/")
layer_path = image + ".aot-layer"
with tarfile.open(layer_path, "w", format=tarfile.PAX_FORMAT) as layer:
    parts = inside.split("/")
    for i in range(1, len(parts)):                   # its directories, as the other layers have them
        d = tarfile.TarInfo("/".join(parts[:i])); d.type = tarfile.DIRTYPE; d.mode = 0o755
        layer.addfile(d)
    info = layer.gettarinfo(cache, inside); info.uid = info.gid = 0; info.uname = info.gname = ""
    info.mode = 0o644; info.mtime = 0
    with open(cache, "rb") as f: layer.addfile(info, f)
digest = hashlib.sha256(open(layer_path, "rb").read()).hexdigest()
part = image + ".part"
with tarfile.open(image) as src, tarfile.open(part, "w") as out:
    manifest = json.load(src.extractfile("manifest.json"))
    m = manifest[0]
    cfg = json.load(src.extractfile(m["Config"]))
    for member in src.getmembers():
        if member.name not in ("manifest.json", m["Config"]):
            out.addfile(member, src.extractfile(member) if member.isfile() else None)
    ep = cfg["config"]["Entrypoint"]
    ep.insert(ep.index("-jar"), "-XX:AOTCache=/" + inside)
    cfg["rootfs"]["diff_ids"].append("sha256:" + digest)
    cfg.setdefault("history", []).append({"created": "1970-01-01T00:00:00Z",
        "created_by": "deploy/image/build-tar.sh: the ahead-of-time cache of a training run (deploy/image/train-aot.sh)"})
    name = digest + ".tar"
    out.add(layer_path, name)
    body = json.dumps(cfg, separators=(",", ":")).encode()
    config_name = hashlib.sha256(body).hexdigest() + ".json"
    m["Config"], m["Layers"] = config_name, m["Layers"] + [name]
    for n, data in ((config_name, body), ("manifest.json", json.dumps(manifest).encode())):
        info = tarfile.TarInfo(n); info.size = len(data); out.addfile(info, io.BytesIO(data))
os.replace(part, image); os.remove(layer_path)
# Jib's id and digest are of the image before the cache's layer: the id is now the new config's, a digest there is none.
open(os.path.join(os.path.dirname(image), "jib-image.id"), "w").write("sha256:" + config_name[:-5])
if os.path.exists(os.path.join(os.path.dirname(image), "jib-image.digest")):
    os.remove(os.path.join(os.path.dirname(image), "jib-image.digest"))
PY
}
$AOT && add_aot_cache

# --- 3. checks -------------------------------------------------------------------------------------------------------
step "checking $IMAGE_TAR"
SUMMARY=$(python3 - "$IMAGE_TAR" "$EXPECTED_TAG" "$AOT" <<'EOF'
import json, sys, tarfile
path, tag, aot = sys.argv[1], sys.argv[2], sys.argv[3] == "true"
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
if aot and not any(a.startswith("-XX:AOTCache=") for a in ep):
    errors.append("Entrypoint %s does not start the JVM with the ahead-of-time cache" % ep)
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
  unpack_image "$IMAGE_TAR" "$rootdir"
  mkdir -p "$rootdir/proc"
  trap 'umount "'"$rootdir"'/proc" 2>/dev/null || true' EXIT
  mount -t proc proc "$rootdir/proc" || fail "cannot mount /proc in $rootdir"
  # Java 17: the class-data archive required; Java 25: the ahead-of-time cache required (the JVM fails without it).
  local required=-Xshare:on
  $AOT && required=-XX:AOTMode=on
  step "run check: the entrypoint with 'compute --help' as user 185 ($required), chroot $rootdir"
  local out rc=0
  # chroot(8) always starts in /, so python does chroot(2) itself to honour the image's WorkingDir, Env and User.
  cat > "$TARGET/image-run-as-185.py" <<'EOF'
import json, os, pwd, sys, tarfile
image, root, required, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
with tarfile.open(image) as t:
    m = json.load(t.extractfile("manifest.json"))[0]
    c = json.load(t.extractfile(m["Config"]))["config"]
env = dict(e.split("=", 1) for e in c.get("Env", []))
argv = c["Entrypoint"] + args   # as `docker run IMAGE compute --help`: the arguments replace Cmd (empty here)
uid = int(c["User"])
os.chroot(root); os.chdir(c.get("WorkingDir") or "/")
os.setgroups([]); os.setgid(0); os.setuid(uid)
env.setdefault("HOME", c.get("WorkingDir") or "/")
env["JAVA_TOOL_OPTIONS"] = required  # fails the start if the archive or the cache cannot be used
env.update(e.split("=", 1) for e in os.environ.get("RUN_ENV", "").split() if "=" in e)
path = env.get("PATH", "/usr/bin:/bin")
exe = next((os.path.join(p, argv[0]) for p in path.split(":") if os.access(os.path.join(p, argv[0]), os.X_OK)), argv[0])
sys.stdout.flush()
os.execve(exe, argv, env)
EOF
  out=$(python3 "$TARGET/image-run-as-185.py" "$IMAGE_TAR" "$rootdir" "$required" compute --help \
    2>"$TARGET/image-run-check.err") || rc=$?
  start_to_ready "$rootdir" "$required" || true
  umount "$rootdir/proc" || true; trap - EXIT
  echo "$out" | sed -n '1,5s/^/    | /p'
  if [ "$rc" != 0 ] || ! grep -q '^Usage:' <<<"$out"; then
    sed 's/^/    ! /' "$TARGET/image-run-check.err" | tail -20 >&2
    fail "run check: exit $rc, 'Usage:' $(grep -q '^Usage:' <<<"$out" && echo found || echo 'not found') on stdout"
  fi
  echo "    run check:  OK (exit 0, 'Usage:' on stdout; stderr in target/image-run-check.err)"
}
# The image started as a pod starts it (no command: run, here the embedded default), timed from the start of its
# process to its readiness (/q/health/ready answering 200), on free ports. A figure, not a check: it fails nothing.
start_to_ready() {
  local rootdir=$1 required=$2 port pid t0 t1 ready=false
  command -v curl >/dev/null || { echo "    start to ready: not measured (no curl)"; return 0; }
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  step "start to ready: the entrypoint without a command (run, the embedded default), management port $port"
  t0=$(date +%s.%N)
  RUN_ENV="QUARKUS_MANAGEMENT_PORT=$port QUARKUS_HTTP_PORT=0 QUARKUS_HTTP_SSL_PORT=0 AGGREGATOR_EMBEDDED_KUBECONFIG=/tmp/ready/kubeconfig" \
    python3 "$TARGET/image-run-as-185.py" "$IMAGE_TAR" "$rootdir" "$required" >"$TARGET/image-start.log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null && python3 -c "import sys,time; sys.exit(time.time() - $t0 >= 120)"; do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/q/health/ready")" = 200 ]; then
      t1=$(date +%s.%N); ready=true; break
    fi
    sleep 0.05
  done
  kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
  if $ready; then
    START_TO_READY=$(python3 -c "print('%.2f' % ($t1 - $t0))")
    echo "    start to ready: $START_TO_READY s (Java $JAVA_FEATURE$($AOT && echo ", the image's ahead-of-time cache"))"
  else
    echo "    start to ready: not ready within 120 s (log: target/image-start.log)"
  fi
}
$RUN_CHECK && run_check

end=$(date +%s)
echo "==> $IMAGE_TAR"
echo "    size:       $(du -h "$IMAGE_TAR" | cut -f1) ($(stat -c %s "$IMAGE_TAR") bytes)"
echo "    digest:     $(cat "$TARGET/jib-image.digest" 2>/dev/null || echo '?')  image id: $(cat "$TARGET/jib-image.id" 2>/dev/null || echo '?')"
echo "    tar sha256: $(sha256sum "$IMAGE_TAR" | cut -d' ' -f1)"
[ -n "${START_TO_READY:-}" ] && echo "    start to ready: $START_TO_READY s (run, the embedded default)"
echo "    base:       $BASE_TAR ($(du -h "$BASE_TAR" | cut -f1); modules: $MODULES)"
echo "    took:       $((end - start)) s"
