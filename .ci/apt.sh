# Sourced by the .ci/install-* scripts: apt-get that neither hangs nor spams.
# apt waits at most CRAITS_APT_LOCK_WAIT seconds (default 120) for another apt's dpkg lock and
# each call takes at most CRAITS_APT_TIMEOUT seconds (default 900), so a busy or broken apt
# fails instead of hanging; the caller decides whether that failure matters.

apt_quietly() {
  DEBIAN_FRONTEND=noninteractive timeout "${CRAITS_APT_TIMEOUT:-900}" \
    apt-get -o DPkg::Lock::Timeout="${CRAITS_APT_LOCK_WAIT:-120}" -qq "$@" >/dev/null 2>&1
}

# apt_install PACKAGE...: refresh the package lists once, then install.
apt_install() {
  apt_quietly update && apt_quietly install -y "$@"
}
