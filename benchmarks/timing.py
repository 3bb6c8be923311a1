"""Interleaved timing shared by the benchmarks: every round runs each callable once, in a new random order.

Medians over rounds, and the median of per-round ratios, are what the scripts print: on a shared,
noisy machine a ratio taken within one round is steadier than two medians taken apart.
"""

from __future__ import annotations

import gc
import random
import statistics
import time
from collections.abc import Callable, Sequence


def interleaved(calls: Sequence[Callable], rounds: int, warmup: int = 2,
                arguments: Callable[[], tuple] = tuple) -> list[list[int]]:
    """Nanoseconds per round for each callable; ``arguments()`` makes one round's arguments, shared by all."""
    for call in calls:
        for _ in range(warmup):
            call(*arguments())
    times: list[list[int]] = [[] for _ in calls]
    order = list(range(len(calls)))
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            given = arguments()
            random.shuffle(order)
            for i in order:
                start = time.perf_counter_ns()
                calls[i](*given)
                times[i].append(time.perf_counter_ns() - start)
    finally:
        gc.enable()
    return times


def per_round(series: Sequence[int], floor: Sequence[int]) -> float:
    """The median of the per-round ratios of ``series`` to ``floor``."""
    return statistics.median(t / f for t, f in zip(series, floor, strict=True))


def verdict(of_medians: float, of_ratios: float, target: float) -> str:
    """Whether both ratios, one of them, or neither reached ``target``."""
    return {(True, True): "yes", (False, False): "no"}.get((of_medians <= target, of_ratios <= target), "one of two")
