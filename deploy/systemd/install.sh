#!/bin/sh
# Installs this checkout's build on a systemd host, beside any release
# installed before (docs/deploy.md, "One host with systemd"; upgrades in
# docs/upgrade.md). Run as root from a checkout after
#   npm ci && npm run build && npm prune --omit=dev
# It installs:
#   /opt/slipgate-<version>         this release: bin, dist, node_modules, package.json
#   /opt/slipgate                   -> that release, on a first install only:
#                                     an upgrade switches it by hand
#   /usr/local/bin/slipgate         the operator command
#   /etc/systemd/system/            slipgate.service, slipgate@.service, the
#                                     backup and doctor services and timers
#   /etc/slipgate/slipgate.env      the settings (mode 0600), and
#   /etc/slipgate/instance-1.env, instance-2.env (ports of slipgate@1/@2),
#                                     each only if missing: yours are kept
#   /etc/slipgate/credentials/SECRETS_KEY  32 random bytes (mode 0600, in a
#                                     0700 folder), only if missing: the
#                                     units load it as a systemd credential
# DESTDIR=<folder> installs under that folder instead of / (packaging, the
# test); systemctl is then left alone.
set -eu

checkout=$(cd "$(dirname "$0")/../.." && pwd)
root=${DESTDIR:-}
if [ ! -f "$checkout/dist/entry.cjs" ] || [ ! -d "$checkout/node_modules" ]; then
  echo "install.sh: no build in $checkout: run npm ci && npm run build && npm prune --omit=dev first" >&2
  exit 2
fi
version=$(node -p 'require(process.argv[1]).version' "$checkout/package.json")
release=/opt/slipgate-$version
if [ -e "$root$release" ]; then
  echo "install.sh: $release exists already; remove it first (not while it serves)" >&2
  exit 2
fi

# The release, copied aside first and renamed into place: never half there.
mkdir -p "$root/opt"
staging=$(mktemp -d "$root/opt/.slipgate-install.XXXXXX")
cp -R "$checkout/bin" "$checkout/dist" "$checkout/node_modules" "$checkout/package.json" "$staging/"
chmod -R u=rwX,go=rX "$staging"
mv "$staging" "$root$release"
if [ ! -e "$root/opt/slipgate" ]; then ln -s "$release" "$root/opt/slipgate"; fi

here=$checkout/deploy/systemd
install -D -m 0755 "$here/slipgate" "$root/usr/local/bin/slipgate"
for unit in slipgate.service slipgate@.service slipgate-backup.service slipgate-backup.timer slipgate-doctor.service slipgate-doctor.timer; do
  install -D -m 0644 "$here/$unit" "$root/etc/systemd/system/$unit"
done
for settings in slipgate.env instance-1.env instance-2.env; do
  if [ ! -e "$root/etc/slipgate/$settings" ]; then install -D -m 0600 "$here/$settings" "$root/etc/slipgate/$settings"; fi
done

# The key that seals webhook and LINE secrets: made here, never shown, kept
# on reinstall (a new key could not open what the old one sealed).
credentials=$root/etc/slipgate/credentials
install -d -m 0700 "$credentials"
if [ ! -e "$credentials/SECRETS_KEY" ]; then
  (umask 077 && head -c 32 /dev/urandom | od -An -v -tx1 | tr -d ' \n' > "$credentials/SECRETS_KEY.new")
  mv "$credentials/SECRETS_KEY.new" "$credentials/SECRETS_KEY"
fi

if [ -z "$root" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
echo "installed $release; /opt/slipgate -> $(readlink "$root/opt/slipgate")"
echo "next: edit /etc/slipgate/slipgate.env, then: systemctl enable --now slipgate slipgate-backup.timer slipgate-doctor.timer"
