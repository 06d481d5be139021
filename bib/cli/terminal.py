"""The one way commands make a rich console: styled only on a terminal, never with NO_COLOR.

rich's own NO_COLOR support drops colours but keeps bold and underline; https://no-color.org
asks for no ANSI styling at all, so the colour system is switched off instead.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


def no_color() -> bool:
    """Whether the user asked for plain output (`NO_COLOR` set to anything but empty)."""
    return bool(os.environ.get("NO_COLOR"))


def console(*, stderr: bool = False) -> Console:
    """A console for standard output (or error) that styles only when it may."""
    from rich.console import Console

    if no_color():
        return Console(stderr=stderr, highlight=False, color_system=None)
    return Console(stderr=stderr, highlight=False)
