"""`cmake --install` puts the package where Debian's python3 imports it (lib/python3/dist-packages
under the prefix), and the installed copy, away from the source tree, runs the installed binary
found on PATH."""

import os
import shutil
import subprocess
import sys

import reusesim

SNIPPET = """import reusesim
print(reusesim.__file__)
print(reusesim.find_binary())
result = reusesim.run("{share}/configs/small.yaml", "{share}/models/mlp.yaml", batch=[1, 16])
print(list(result.totals["cycles"]))
print(result)
"""


def test_the_installed_package_runs_the_installed_binary(tmp_path):
    # ctest gives its cmake; by hand, the one on PATH. The build tree is the binary's directory.
    cmake = os.environ.get("REUSESIM_CMAKE") or shutil.which("cmake")
    build = os.path.dirname(reusesim.find_binary())
    subprocess.run([cmake, "--install", build, "--prefix", str(tmp_path / "prefix")], check=True,
                   capture_output=True)
    prefix = tmp_path / "moved"
    (tmp_path / "prefix").rename(prefix)
    package = prefix / "lib" / "python3" / "dist-packages"
    environment = {key: value for key, value in os.environ.items() if not key.startswith("REUSESIM")}
    environment.update(PYTHONPATH=str(package), PATH=f"{prefix / 'bin'}:/usr/bin:/bin",
                       PYTHONDONTWRITEBYTECODE="1")
    snippet = SNIPPET.format(share=prefix / "share" / "reusesim")
    done = subprocess.run([sys.executable, "-c", snippet], cwd=tmp_path, env=environment, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == str(package / "reusesim" / "__init__.py")
    assert lines[1] == str(prefix / "bin" / "reusesim")
    here = reusesim.run("configs/small.yaml", "models/mlp.yaml", batch=[1, 16])
    assert lines[2] == str(list(here.totals["cycles"]))
    assert lines[3].startswith("reusesim run: small x mlp, 10 layer rows; TOTAL:")
    # `reusesim search` hands over to the installed scripts/search.py and its package.
    done = subprocess.run([str(prefix / "bin" / "reusesim"), "search", "--help"], cwd=tmp_path, env=environment,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: reusesim search")
