"""`codesift shim`: a private directory whose `rg` is codesift-rg, to put first on PATH."""

from __future__ import annotations

import sys

from .exits import EXIT_FOUND
from .parser import add_shared_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def add_arguments(sh: argparse.ArgumentParser) -> None:
    sh.add_argument("--print-path", action="store_true", help="print only the directory (for PATH)")
    add_shared_options(sh, root=None)


def run(args: argparse.Namespace) -> int:
    from .shim_dir import make_shim

    made = make_shim()
    if made.previous_binary is not None:
        # Never silently: the rg on PATH was another codesift-rg (another installation's,
        # or a moved one) until now.
        print(
            f"codesift shim: rg re-pointed: {made.previous_binary} -> {made.binary}",
            file=sys.stderr,
        )
    if args.print_path:
        print(made.path)
        return EXIT_FOUND
    last = (
        str(made.real_rg)
        if made.real_rg
        else "none (pip install ripgrep, then run codesift shim again, to have one)"
    )
    fallback = (
        "what codesift-rg does not serve runs CODESIFT_REAL_RG, else the first other rg on "
        f"PATH, else {last}"
    )
    print(made.path)
    print(f"  rg -> {made.binary}")
    print(f"  {fallback}")
    print(f'Put it first on PATH: export PATH="{made.path}:$PATH"')
    return EXIT_FOUND
