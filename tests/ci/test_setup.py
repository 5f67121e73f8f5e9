"""`.ci/setup` never fails for an optional package or the engine's compiled build;
`.ci/install-package --required` and `.ci/build-engine --required` do.

The set-up is run for real (bash, the real scripts) in a copy of `.ci/` whose virtualenv is
already stamped as installed, so it skips pip and npm and goes straight to the optional
packages, with an `apt-get` earlier on PATH that fails as a held dpkg lock does (exit 100).
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def project_copy(tmp_path: Path) -> Path:
    """A project directory holding the real `.ci/` and an already-installed virtualenv."""
    root = tmp_path / "project"
    shutil.copytree(REPO / ".ci", root / ".ci")
    (root / "pyproject.toml").write_text("")
    venv_bin = root / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").write_text("#!/bin/sh\nexit 1\n")
    (venv_bin / "python").chmod(0o755)
    stamp = root / ".venv" / ".craits-installed"
    stamp.touch()
    os.utime(root / "pyproject.toml", (0, 0))
    return root


def failing_apt(tmp_path: Path) -> tuple[Path, Path]:
    """A directory with an apt-get that logs its arguments and fails, and the log."""
    fake_bin = tmp_path / "fake-bin"
    fake_bin.mkdir()
    log = tmp_path / "apt.log"
    script = fake_bin / "apt-get"
    script.write_text(
        f'#!/bin/sh\necho "$@" >> {log}\n'
        'echo "E: Could not get lock /var/lib/dpkg/lock-frontend" >&2\nexit 100\n'
    )
    script.chmod(0o755)
    return fake_bin, log


def run(
    command: list[str], cwd: Path, fake_bin: Path, tmp_path: Path
) -> "subprocess.CompletedProcess[str]":
    """Run a script with the failing apt-get first on PATH and no Chromium, bubblewrap or
    protobuf compiler to find."""
    env = {
        **os.environ,
        "PATH": f"{fake_bin}{os.pathsep}{os.environ['PATH']}",
        "CRAITS_CHROMIUM": str(tmp_path / "no-such-chromium"),
        "CRAITS_BWRAP": str(tmp_path / "no-such-bwrap"),
        "CRAITS_PROTOC": str(tmp_path / "no-such-protoc"),
        "CRAITS_CARGO_REGISTRY": str(tmp_path / "no-such-registry"),
        "TMPDIR": str(tmp_path),
    }
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def test_setup_succeeds_with_a_note_when_the_browser_install_fails(tmp_path: Path) -> None:
    root = project_copy(tmp_path)
    fake_bin, log = failing_apt(tmp_path)
    done = run(["bash", ".ci/setup"], root, fake_bin, tmp_path)
    assert done.returncode == 0, done.stderr
    notes = done.stderr.strip().splitlines()
    # the copy's python cannot build the engine either: that is a note too, pure Python runs
    assert notes[0].startswith("note: the engine was not compiled (mypyc build failed, see ")
    assert [note.split(" is not installed")[0] for note in notes[1:]] == [
        "note: ray", "note: chromium", "note: bubblewrap", "note: the C++ toolchain",
        "note: the Go toolchain", "note: the Java toolchain", "note: the Rust toolchain"]
    assert "DPkg::Lock::Timeout=" in log.read_text()


def test_the_required_install_fails_when_apt_does(tmp_path: Path) -> None:
    root = project_copy(tmp_path)
    fake_bin, _log = failing_apt(tmp_path)
    missing = str(tmp_path / "no-such-chromium")
    done = run(["bash", ".ci/install-package", "--required", "chromium", missing, "a test"], root,
               fake_bin, tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("error: could not install the Debian package chromium")


def test_the_required_cpp_toolchain_fails_when_apt_does(tmp_path: Path) -> None:
    root = project_copy(tmp_path)
    fake_bin, _log = failing_apt(tmp_path)
    done = run(["bash", ".ci/install-cpp", "--required"], root, fake_bin, tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("error: could not install the C++ bot's toolchain")


@pytest.mark.parametrize("language", ["Go", "Java", "Rust"])
def test_the_required_starter_toolchains_fail_when_apt_does(tmp_path: Path, language: str) -> None:
    root = project_copy(tmp_path)
    fake_bin, _log = failing_apt(tmp_path)
    done = run(["bash", f".ci/install-{language.lower()}", "--required"], root, fake_bin,
               tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: could not install the {language} bot's toolchain")


def test_the_required_engine_build_fails_when_the_build_does(tmp_path: Path) -> None:
    root = project_copy(tmp_path)
    fake_bin, _log = failing_apt(tmp_path)
    done = run(["bash", ".ci/build-engine", "--required"], root, fake_bin, tmp_path)
    assert done.returncode == 1
    assert "error: CI needs the mypyc-compiled engine and its build failed" in done.stderr
