#!/bin/sh
# Runs the Python recipes of a page as a user's project would: python.sh
# PAGE [PYTHON]. Extracts them (extract.py) into a new folder outside the
# tree and runs them there with PYTHON (python3 by default), which must have
# tinystore and pytest installed: pytest runs every test_*.py, with the
# kit's fixtures from the installed package's plugin, and unittest runs the
# *_unittest.py ones again by themselves. Fails when any test fails or none
# ran.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
page=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
# Made absolute, its links kept (a venv's python is a link to its base).
python=${2:-python3}
case $python in
  */*) python=$(cd "$(dirname "$python")" && pwd)/$(basename "$python") ;;
  *) python=$(command -v "$python") || { echo "no $python on the PATH" >&2; exit 1; } ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/tinystore-recipes-python.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

"$python" "$here/extract.py" "$page" python "$work/recipes" >/dev/null
cd "$work/recipes"
# The user's settings must not change what runs: the plugin is loaded as
# pytest loads it for anyone with tinystore installed.
unset PYTEST_DISABLE_PLUGIN_AUTOLOAD PYTEST_ADDOPTS PYTHONPATH
"$python" -m pytest -q -p no:cacheprovider >"$work/pytest.log" 2>&1 || {
  cat "$work/pytest.log" >&2
  echo "python: the pytest recipes of $page fail" >&2
  exit 1
}
summary=$(tail -n 1 "$work/pytest.log")
if ls ./*_unittest.py >/dev/null 2>&1; then
  "$python" -m unittest discover -s . -p '*_unittest.py' >"$work/unittest.log" 2>&1 || {
    cat "$work/unittest.log" >&2
    echo "python: the unittest recipes of $page fail" >&2
    exit 1
  }
  ran=$(grep '^Ran ' "$work/unittest.log")
  case $ran in
    "Ran 0 tests"*) cat "$work/unittest.log" >&2; echo "python: unittest ran no recipe test" >&2; exit 1 ;;
  esac
  summary="$summary; unittest: $ran"
fi
echo "python: the recipes of $page pass ($("$python" -c 'import sys; print(sys.executable)'); pytest: $summary)"
