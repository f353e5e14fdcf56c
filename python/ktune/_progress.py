# SPDX-License-Identifier: Apache-2.0
"""Progress display of a tuning run: tqdm where it is installed (its
``tqdm.auto`` picks the Jupyter widget in a notebook and a text bar in a
terminal), else one line rewritten on stderr. Off when not asked for."""
from __future__ import annotations

import sys
from typing import Any, Optional

__all__ = ["Progress"]


class Progress:
    """Counts evaluations against an expected total (None: unknown).

    ``update(done, best)`` is called from the tuning loop's callback with
    the number of points evaluated so far and a short text of the best so
    far; ``close()`` ends the display."""

    def __init__(self, total: Optional[int], enabled: bool, desc: str = "ktune") -> None:
        self._bar: Any = None
        self._enabled = enabled
        self._done = 0
        self._total = total
        self._desc = desc
        if not enabled:
            return
        try:
            from tqdm.auto import tqdm  # type: ignore
        except ImportError:
            return
        self._bar = tqdm(total=total, desc=desc, unit="pt", leave=True)

    def update(self, done: int, best: str = "") -> None:
        """Show ``done`` evaluations and the best so far."""
        if not self._enabled:
            return
        step = done - self._done
        self._done = done
        if self._bar is not None:
            if step > 0:
                self._bar.update(step)
            if best:
                self._bar.set_postfix_str(best, refresh=False)
            return
        total = f"/{self._total}" if self._total else ""
        sys.stderr.write(f"\r{self._desc}: {done}{total} points  {best}\033[K")
        sys.stderr.flush()

    def close(self) -> None:
        """End the display (the bar stays on screen with its final count)."""
        if not self._enabled:
            return
        if self._bar is not None:
            self._bar.close()
        else:
            sys.stderr.write("\n")
            sys.stderr.flush()
