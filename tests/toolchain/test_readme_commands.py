"""`.ci/run` runs the README's test command, installs the toolchains only when missing, and
fails when pytest fails or collects nothing."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CI_RUN = ROOT / ".ci" / "run"
README = ROOT / "README.md"
PACKAGES = (
    "texlive-latex-base texlive-latex-recommended texlive-bibtex-extra biber pandoc poppler-utils"
    " postgresql gcc"
)
TOOLS = ("pdflatex", "bibtex", "biber", "pandoc", "pdftotext", "gcc")


def ci_test_command() -> str:
    """The one line of .ci/run that sets up a venv and runs pytest."""
    lines = [line for line in CI_RUN.read_text().splitlines() if line.startswith("python3 -m venv")]
    assert len(lines) == 1, lines
    return lines[0]


def test_readme_test_command_is_the_one_ci_runs() -> None:
    assert README.exists(), f"README.md must give the test command: {ci_test_command()}"
    readme = README.read_text(encoding="utf-8")
    assert ci_test_command() in readme.splitlines() or f"`{ci_test_command()}`" in readme


def test_ci_script_is_strict_executable_bash() -> None:
    text = CI_RUN.read_text()
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in text
    assert CI_RUN.stat().st_mode & stat.S_IXUSR
    subprocess.run(["bash", "-n", str(CI_RUN)], check=True, timeout=30)


FAKE_PYTHON = """#!/usr/bin/env bash
# A stand-in for python3: `-m venv DIR` makes DIR/bin/{pip,python}, which log and exit as told.
if [[ "$1" == "-c" ]]; then exit "$VENV_STATUS"; fi  # the `import ensurepip, venv` probe
echo "python3 $*" >> "$LOG"
if [[ "$1 $2" == "-m venv" ]]; then
  mkdir -p "$3/bin"
  printf '#!/usr/bin/env bash\\necho "pip $*" >> "$LOG"\\n' > "$3/bin/pip"
  printf '#!/usr/bin/env bash\\necho "pytest $* BIB_REQUIRE_TOOLCHAINS=$BIB_REQUIRE_TOOLCHAINS \
HYPOTHESIS_PROFILE=$HYPOTHESIS_PROFILE" >> "$LOG"\\nexit $PYTEST_STATUS\\n' > "$3/bin/python"
  chmod +x "$3/bin/pip" "$3/bin/python"
fi
"""


APT_GET = """#!/usr/bin/env bash
echo "apt-get $* DEBIAN_FRONTEND=$DEBIAN_FRONTEND" >> "$LOG"
"""


def sandbox(tmp_path: Path, *, tools: bool) -> tuple[Path, dict[str, str]]:
    """A copy of .ci/run in a fake checkout, PATH holding stand-ins for the programs it runs."""
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy2(CI_RUN, repo / ".ci" / "run")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    initdb = tmp_path / "postgresql" / "15" / "bin" / "initdb"
    installs = (
        "".join(
            f'printf "#!/bin/sh\\n" > "{bin_dir}/{t}"; chmod +x "{bin_dir}/{t}"\n' for t in TOOLS
        )
        + f'mkdir -p "{initdb.parent}"; printf "#!/bin/sh\\n" > "{initdb}"\n'
    )
    if tools:
        initdb.parent.mkdir(parents=True)
        initdb.write_text("#!/bin/sh\n")
    scripts = {
        "python3": FAKE_PYTHON,
        "apt-get": APT_GET + installs,
        "sudo": '#!/usr/bin/env bash\n"$@"\n',
    }
    if tools:
        scripts.update({tool: "#!/bin/sh\n" for tool in TOOLS})
    for name, text in scripts.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    system = [p for p in ("/usr/bin", "/bin") if Path(p).is_dir()]
    # Keep the real tools out of sight: only bash and coreutils from a private copy of PATH.
    shim = tmp_path / "sys"
    shim.mkdir()
    for name in ("bash", "env", "mkdir", "chmod", "printf", "dirname", "id", "cat", "sh"):
        found = shutil.which(name, path=os.pathsep.join(system))
        if found:
            (shim / name).symlink_to(found)
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{shim}",
        "LOG": str(tmp_path / "log"),
        "HOME": str(tmp_path),
        "PYTEST_STATUS": "0",
        "VENV_STATUS": "0",
        "CI_INITDB_GLOB": str(tmp_path / "postgresql" / "*" / "bin" / "initdb"),
    }
    return repo, env


def ci(repo: Path, env: dict[str, str], status: int = 0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(repo / ".ci" / "run")],
        env={**env, "PYTEST_STATUS": str(status)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_ci_runs_the_test_command_with_toolchains_required(tmp_path: Path) -> None:
    repo, env = sandbox(tmp_path, tools=True)
    assert ci(repo, env).returncode == 0
    log = (tmp_path / "log").read_text().splitlines()
    assert log == [
        "python3 -m venv .venv",
        "pip install -q -e .[test]",
        "pytest -m pytest -n 2 BIB_REQUIRE_TOOLCHAINS=1 HYPOTHESIS_PROFILE=ci",
    ]


def test_ci_skips_apt_get_when_every_tool_is_installed(tmp_path: Path) -> None:
    repo, env = sandbox(tmp_path, tools=True)
    ci(repo, env)
    log = (tmp_path / "log").read_text().splitlines()
    assert not any(line.startswith("apt-get") for line in log)


def test_ci_installs_the_toolchain_packages_when_a_tool_is_missing(tmp_path: Path) -> None:
    repo, env = sandbox(tmp_path, tools=False)
    assert ci(repo, env).returncode == 0
    apt = [line for line in (tmp_path / "log").read_text().splitlines() if line.startswith("apt")]
    assert apt == [
        "apt-get update DEBIAN_FRONTEND=noninteractive",
        f"apt-get install -y --no-install-recommends {PACKAGES} DEBIAN_FRONTEND=noninteractive",
    ]


def test_ci_installs_python3_venv_when_python_lacks_it(tmp_path: Path) -> None:
    repo, env = sandbox(tmp_path, tools=True)
    assert ci(repo, {**env, "VENV_STATUS": "1"}).returncode == 0
    apt = [line for line in (tmp_path / "log").read_text().splitlines() if line.startswith("apt")]
    assert apt[-1] == (
        f"apt-get install -y --no-install-recommends {PACKAGES} python3-venv"
        " DEBIAN_FRONTEND=noninteractive"
    )


@pytest.mark.parametrize("status", [1, 5], ids=["tests-failed", "no-tests-collected"])
def test_ci_fails_when_pytest_fails_or_collects_nothing(tmp_path: Path, status: int) -> None:
    repo, env = sandbox(tmp_path, tools=True)
    assert ci(repo, env, status).returncode == status


def test_ci_installs_postgresql_when_only_its_server_binaries_are_missing(tmp_path: Path) -> None:
    repo, env = sandbox(tmp_path, tools=True)
    shutil.rmtree(tmp_path / "postgresql")
    assert ci(repo, env).returncode == 0
    apt = [line for line in (tmp_path / "log").read_text().splitlines() if line.startswith("apt")]
    assert apt[-1].startswith(f"apt-get install -y --no-install-recommends {PACKAGES}")
