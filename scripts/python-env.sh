# shellcheck shell=bash
# Sourced by the test scripts: puts a Python with the test tools first on PATH.
#
# The tools go into the project's own virtual environment (.venv at the top of the checkout), because
# Debian 12's system Python refuses pip installs (PEP 668: EXTERNALLY-MANAGED). Needs python3 and
# python3-venv, which the callers install with apt. Arguments: the PyPI packages to install.
python_env_setup() {
  local repo venv
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  venv="$repo/.venv"
  if [ ! -x "$venv/bin/python3" ]; then
    python3 -m venv "$venv" || { echo "cannot create $venv: install python3-venv" >&2; return 1; }
  fi
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check "$@" || return 1
  export PATH="$venv/bin:$PATH"
}
