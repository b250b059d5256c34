#!/usr/bin/env bash
# Gradescope runs this once, as root, when the autograder image is built.
# It installs Python 3.11+ and the grading packages into /autograder/venv from the kit's lock
# (requirements/grading.txt: every package pinned, every file checked against its hash), makes sure
# the unprivileged account the grader checks its interpreter with (uid 65534) exists, and closes the
# grader's own files (hidden tests included) to everyone but root.
set -euo pipefail
SRC="$(cd "$(dirname "$0")" && pwd)"
ROOT="${AUTOGRADER_ROOT:-/autograder}"
export DEBIAN_FRONTEND=noninteractive

python_ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; }

apt-get update -qq
apt-get install -y -qq python3 python3-venv util-linux >/dev/null
PYTHON=python3
if ! python_ok "$PYTHON"; then
  # Older base images (Ubuntu 22.04) ship 3.10 as python3 but package 3.11 alongside it.
  apt-get install -y -qq python3.11 python3.11-venv >/dev/null
  PYTHON=python3.11
fi
python_ok "$PYTHON" || { echo "setup.sh: no Python 3.11+ available on this image" >&2; exit 1; }

"$PYTHON" -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" -m pip install --quiet --no-cache-dir --require-hashes -r "$SRC/requirements/grading.txt"

if ! getent passwd 65534 >/dev/null; then
  useradd --system --uid 65534 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin nobody
fi
chown -R root:root "$SRC"
chmod -R go-rwx "$SRC"
echo "setup.sh: ready ($("$ROOT/venv/bin/python" --version))"
