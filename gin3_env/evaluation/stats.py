"""Small statistics helpers for evaluation reports (95% confidence intervals)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

Z95 = 1.959963984540054


class _Interval:
    """What every interval record shares: its ``low``/``high`` ends, half-width and dict form."""

    low: float
    high: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]  # subclasses are dataclasses


@dataclass(frozen=True)
class MeanCI(_Interval):
    """A sample mean with a 95% normal-approximation interval (sample std, ddof=1)."""

    mean: float
    low: float
    high: float
    n: int
    std: float

    def __str__(self) -> str:
        return f"{self.mean:+.2f} [{self.low:+.2f}, {self.high:+.2f}]"


@dataclass(frozen=True)
class RateCI(_Interval):
    """A proportion with its 95% Wilson score interval."""

    rate: float
    low: float
    high: float
    successes: int
    n: int

    def __str__(self) -> str:
        return f"{self.rate:.3f} [{self.low:.3f}, {self.high:.3f}]"


def mean_ci(values: Sequence[float], lower: float | None = None) -> MeanCI:
    """Mean of ``values`` with mean ± 1.96·s/√n (s the sample std). One value: zero width.

    ``lower``: the least value the quantity can take (0 for a match's final total); the interval's
    low end is raised to it. The true mean is never below it, so the clipped interval covers it
    whenever the normal one does: a few skewed totals no longer get an impossible negative end."""
    n = len(values)
    if n == 0:
        raise ValueError("mean_ci needs at least one value")
    mean = math.fsum(values) / n
    if n == 1:
        return MeanCI(mean, mean, mean, 1, 0.0)
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = Z95 * std / math.sqrt(n)
    low = mean - half if lower is None else max(lower, mean - half)
    return MeanCI(mean, low, mean + half, n, std)


def wilson_ci(successes: int, n: int) -> RateCI:
    """Wilson score interval for ``successes`` out of ``n`` trials."""
    if n <= 0:
        raise ValueError("wilson_ci needs n >= 1")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in 0..{n}, got {successes}")
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return RateCI(p, low, high, successes, n)


def signed(value: float, digits: int = 2) -> str:
    """``value`` with its sign and ``digits`` decimals, never ``-0.00``: a value that rounds to
    zero prints as ``+0.00``."""
    rounded = round(float(value), digits) + 0.0  # -0.0 + 0.0 == +0.0
    return f"{rounded:+.{digits}f}"
