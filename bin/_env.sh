# Sourced by bin/serve and bin/test: makes .venv and installs the project into it
# when pyproject.toml has changed since the last install, so a fresh clone needs
# nothing but Python 3.11.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
PY=$(command -v python3.11 || command -v python3)
EXTRAS=${1:-}
STAMP=".venv/.installed${EXTRAS:+-$EXTRAS}"
WANT=$(sha256sum pyproject.toml | cut -c1-16)
if [ ! -x .venv/bin/python ]; then
  echo "bin: creating .venv with $PY" >&2
  "$PY" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
fi
if [ "$(cat "$STAMP" 2>/dev/null || true)" != "$WANT" ]; then
  echo "bin: installing the project${EXTRAS:+ with [$EXTRAS]} into .venv" >&2
  .venv/bin/python -m pip install -q -e ".${EXTRAS:+[$EXTRAS]}"
  echo "$WANT" > "$STAMP"
fi
export PATH="$ROOT/.venv/bin:$PATH"
