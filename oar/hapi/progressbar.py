"""The progress line paddle.Model prints during fit / evaluate / predict.

Its text is Paddle's, character for character (hapi/progressbar.py of Paddle 3.3): with
verbose=1 a bar redrawn in place ("\\r"), `step 3/10 [=====>....] - loss: 0.6931 - acc:
0.5000 - ETA: 0s - 5ms/step`; with verbose=2 one line per report, without bar or ETA.
Numbers above 1e-3 in magnitude print with 4 decimals, smaller ones in e-notation.
"""
from __future__ import annotations

import shutil
import sys
import time

import numpy as np

__all__ = ["ProgressBar"]


def _format_values(values, numpy_items=False):
    info = ""
    for k, val in values:
        info += f" - {k}:"
        for v in (val if isinstance(val, list) else [val]):
            if numpy_items and isinstance(v, np.ndarray) and v.size == 1 \
                    and v.dtype in (np.float32, np.float64):
                v = v.item()
            if isinstance(v, (float, np.float32, np.float64)):
                info += f" {v:.4f}" if abs(v) > 1e-3 else f" {v:.4e}"
            else:
                info += f" {v}"
    return info


class ProgressBar:
    """A progress display over `num` steps (None: unknown); update(current, values) redraws it
    (verbose=1) or prints one line (verbose=2 or 3)."""

    def __init__(self, num=None, width=30, verbose=1, start=True, file=None, name="step"):
        if isinstance(num, int) and num <= 0:
            raise TypeError("num should be None or integer (> 0)")
        self._num = num
        columns = shutil.get_terminal_size().columns
        columns = columns if columns > 0 else 80
        self._width = min(width, min(int(columns * 0.6), columns - 50))
        self._total_width = 0
        self._verbose = verbose
        self.file = file
        self._start = time.time() if start else 0.0
        self._last_update = 0
        self.name = name

    def _out(self):
        return self.file if self.file is not None else sys.stdout

    def start(self):
        """Restarts the clock."""
        self._out().flush()
        self._start = time.time()

    def _rate(self, current_num, now):
        per = (now - self._start) / current_num if current_num else 0
        if per >= 1 or per == 0:
            return per, f" - {per:.0f}s/{self.name}"
        if per >= 1e-3:
            return per, f" - {per * 1e3:.0f}ms/{self.name}"
        return per, f" - {per * 1e6:.0f}us/{self.name}"

    def _count(self, current_num):
        digits = int(np.log10(self._num)) + 1
        return (self.name + " %" + str(digits) + "d/%d") % (current_num, self._num)

    def update(self, current_num, values=()):
        """Shows step current_num with values, a list of (name, value or list of values)."""
        out = self._out()
        per, fps = self._rate(current_num, time.time())
        values = list(values)
        if self._verbose == 1:
            prev_total_width = self._total_width
            out.write("\b" * prev_total_width)
            out.write("\r")
            if self._num is not None:
                bar = self._count(current_num) + " ["
                prog_width = int(self._width * float(current_num) / self._num)
                if prog_width > 0:
                    bar += "=" * (prog_width - 1)
                    bar += ">" if current_num < self._num else "="
                bar += "." * (self._width - prog_width) + "]"
            else:
                bar = f"{self.name} {current_num:3}"
            self._total_width = len(bar)
            out.write(bar)
            info = _format_values(values)
            if self._num is not None and current_num < self._num:
                eta = int(per * (self._num - current_num))
                if eta > 3600:
                    eta_format = f"{eta // 3600}:{(eta % 3600) // 60:02}:{eta % 60:02}"
                elif eta > 60:
                    eta_format = f"{eta // 60}:{eta % 60:02}"
                else:
                    eta_format = f"{eta}s"
                info += f" - ETA: {eta_format}"
            info += fps
            self._total_width += len(info)
            if prev_total_width > self._total_width:
                info += " " * (prev_total_width - self._total_width)
            if self._num is None or current_num >= self._num:
                info += "\n"
            out.write(info)
            out.flush()
        elif self._verbose in (2, 3):
            count = self._count(current_num) if self._num else f"{self.name} {current_num:3}"
            out.write(count + _format_values(values, numpy_items=True) + fps + "\n")
            out.flush()
