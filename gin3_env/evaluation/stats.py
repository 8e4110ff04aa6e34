"""Small statistics helpers for evaluation reports (95% confidence intervals).

A mean's interval is Student's t with n - 1 degrees of freedom (not the normal 1.96: from a few deals that
would claim a precision the sample does not have), and below :data:`MIN_INTERVAL_N` values no interval is
stated at all (:attr:`MeanCI.stated`; :meth:`MeanCI.interval` says so in words): a figure from 2 or 3 deals
is noise, whatever interval arithmetic gives it."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

Z95 = 1.959963984540054
MIN_INTERVAL_N = 10  # fewer values than this: the reports state the mean but no 95% interval


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
                    -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) for 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@functools.lru_cache(maxsize=512)
def t95(df: int) -> float:
    """The two-sided 95% quantile of Student's t with ``df`` >= 1 degrees of freedom (12.71 for 1, 2.26
    for 9, 1.98 for 100; the normal 1.96 in the limit)."""
    if df < 1:
        raise ValueError(f"t95 needs df >= 1, got {df}")
    low, high = Z95, 20.0 if df > 1 else 13.0
    while t_cdf(high, df) < 0.975:
        high *= 2.0
    for _ in range(200):  # bisection: the CDF is increasing
        mid = (low + high) / 2.0
        if t_cdf(mid, df) < 0.975:
            low = mid
        else:
            high = mid
        if high - low < 1e-12:
            break
    return (low + high) / 2.0


def too_few_note(n: int, what: str = "deals") -> str:
    """The one line a report prints instead of a 95% interval from fewer than :data:`MIN_INTERVAL_N` values."""
    return (f"no 95% interval from {n} {what}: fewer than {MIN_INTERVAL_N} is noise, whatever the interval "
            f"arithmetic says (play at least {MIN_INTERVAL_N})")


def signed_2(value: float) -> str:
    """:func:`signed` with 2 decimals (the reports' default)."""
    return signed(value)


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
    """A sample mean with a 95% Student-t interval (sample std, ddof=1, n - 1 degrees of freedom); the
    reports state it only from :data:`MIN_INTERVAL_N` values on (:attr:`stated`)."""

    mean: float
    low: float
    high: float
    n: int
    std: float

    @property
    def stated(self) -> bool:
        """Whether the sample is large enough for a report to state the interval."""
        return self.n >= MIN_INTERVAL_N

    def interval(self, fmt: Callable[[float], str] = signed_2, width: int = 0) -> str:
        """``"[low, high]"`` (each end ``fmt``-ed and right-aligned to ``width``), or ``"(no interval: n < 10)"``
        below :data:`MIN_INTERVAL_N` values."""
        if not self.stated:
            return f"(no interval: n < {MIN_INTERVAL_N})".rjust(2 * width + 4 if width else 0)
        return f"[{fmt(self.low):>{width}}, {fmt(self.high):>{width}}]"

    def __str__(self) -> str:
        return f"{self.mean:+.2f} {self.interval(lambda v: f'{v:+.2f}')}"


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
    """Mean of ``values`` with mean ± t·s/√n (s the sample std, t Student's 95% quantile with n - 1
    degrees of freedom). One value: zero width (and, like every sample under :data:`MIN_INTERVAL_N`,
    not :attr:`~MeanCI.stated`).

    ``lower``: the least value the quantity can take (0 for a match's final total); the interval's
    low end is raised to it. The true mean is never below it, so the clipped interval covers it
    whenever the unclipped one does: a few skewed totals no longer get an impossible negative end."""
    n = len(values)
    if n == 0:
        raise ValueError("mean_ci needs at least one value")
    mean = math.fsum(values) / n
    if n == 1:
        return MeanCI(mean, mean, mean, 1, 0.0)
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = t95(n - 1) * std / math.sqrt(n)
    low = mean - half if lower is None else max(lower, mean - half)
    return MeanCI(mean, low, mean + half, n, std)


def pooled_mean_ci(parts: Sequence[MeanCI]) -> MeanCI:
    """The :func:`mean_ci` of every value of several samples, from each one's ``n``, ``mean`` and ``std`` alone
    (the pooled sample's own mean and variance: as if the values had been drawn in one sample)."""
    n = sum(p.n for p in parts)
    if n == 0:
        raise ValueError("pooled_mean_ci needs at least one value")
    mean = math.fsum(p.n * p.mean for p in parts) / n
    if n == 1:
        return MeanCI(mean, mean, mean, 1, 0.0)
    squares = math.fsum((p.n - 1) * p.std * p.std + p.n * (p.mean - mean) ** 2 for p in parts)
    std = math.sqrt(squares / (n - 1))
    half = t95(n - 1) * std / math.sqrt(n)
    return MeanCI(mean, mean - half, mean + half, n, std)


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
