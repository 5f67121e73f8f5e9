"""Compile the engine's hot modules with mypyc into ``craits/engine/_native`` (see ``native``).

Run by ``.ci/setup`` through ``.ci/build-engine``; by hand::

    .venv/bin/python -m craits.engine.build_native            # build unless up to date
    .venv/bin/python -m craits.engine.build_native --force    # build again

mypyc comes with mypy (the ``dev`` extra) and needs a C compiler and Python's headers. Nothing in
the engine depends on the build: without it, or when it fails, the engine runs as pure Python.
The build type-checks and compiles in a temporary directory and installs by renaming a finished
directory over ``_native``, so an interrupted build never leaves half a build in use.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from . import native

GROUP: str = "craits.engine.compiled"
"""mypyc's name for the shared library of the compiled modules: inside the package (a dotted
name), so the library is found through the package's path like the modules themselves."""


def build(work: Path) -> Path:
    """Compile ``native.COMPILED_MODULES`` under ``work``; returns the directory of the built
    extension modules (with their stamp), ready to become ``_native``."""
    from mypyc.build import mypycify  # the dev extra: imported only to build
    from setuptools import setup

    server = native.PACKAGE_DIR.parent.parent
    sources = [f"craits/engine/{name}.py" for name in native.COMPILED_MODULES]
    digest = native.source_digest()
    here = Path.cwd()
    os.chdir(server)  # mypy names modules by their path from here: craits.engine.state
    try:
        extensions = mypycify(
            [*sources, f"--cache-dir={work / 'mypy-cache'}", "--python-version=3.11"],
            group_name=GROUP, target_dir=str(work / "c"),
        )
        setup(
            name="craits-engine-native", ext_modules=extensions,
            script_args=["build_ext", f"--build-lib={work / 'lib'}",
                         f"--build-temp={work / 'obj'}"],
        )
    finally:
        os.chdir(here)
    built = work / "lib" / "craits" / "engine"
    out = work / "_native"
    out.mkdir()
    suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))
    for library in built.glob(f"*{suffix}"):
        shutil.copy2(library, out / library.name)
    missing = [m for m in native.COMPILED_MODULES if not (out / f"{m}{suffix}").exists()]
    if missing:
        raise RuntimeError(f"mypyc built no extension for {', '.join(missing)}")
    (out / native.STAMP.name).write_text(digest + "\n", encoding="utf-8")
    return out


def install(built: Path) -> None:
    """Replace ``_native`` with ``built`` (same file system: the work directory sits beside it)."""
    old = native.NATIVE_DIR.with_name("_native.old")
    shutil.rmtree(old, ignore_errors=True)
    if native.NATIVE_DIR.exists():
        native.NATIVE_DIR.rename(old)
    built.rename(native.NATIVE_DIR)
    shutil.rmtree(old, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """Build unless up to date; print one line saying what happened (compiler output only on
    failure, or with --verbose)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--force", action="store_true", help="build even if up to date")
    parser.add_argument("--verbose", action="store_true", help="show mypyc's and gcc's output")
    args = parser.parse_args(argv)
    if not args.force and native.native_status() is None:
        print("engine: compiled build is up to date")
        return 0
    start = time.monotonic()
    log = io.StringIO()
    with tempfile.TemporaryDirectory(prefix=".build-", dir=native.PACKAGE_DIR) as tmp:
        try:
            if args.verbose:
                built = build(Path(tmp))
            else:
                with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
                    built = build(Path(tmp))
            install(built)
        except (Exception, SystemExit) as exc:  # setuptools reports a failed compile by exiting
            sys.stderr.write(log.getvalue())
            print(f"engine: the mypyc build failed ({exc}); the engine runs as pure Python",
                  file=sys.stderr)
            return 1
    print(f"engine: compiled with mypyc in {time.monotonic() - start:.0f} s "
          f"({len(native.COMPILED_MODULES)} modules into {native.NATIVE_DIR})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
