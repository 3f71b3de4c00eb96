"""The order torch's CPU topk leaves tied values in: topk runs libstdc++'s `nth_element` and
`sort` (or `partial_sort` when k * 64 <= n) over (value, index) pairs comparing values only,
so which of several equal values it picks, and in which order, is those algorithms' choice.
Replayed here step for step (introselect, introsort, heap select) on a Python list; imports
no engine module.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

Less = Callable[[Any, Any], bool]


def _lg(n: int) -> int:
    return n.bit_length() - 1


def _move_median_to_first(q: list[Any], result: int, a: int, b: int, c: int, less: Less) -> None:
    if less(q[a], q[b]):
        if less(q[b], q[c]):
            m = b
        elif less(q[a], q[c]):
            m = c
        else:
            m = a
    elif less(q[a], q[c]):
        m = a
    elif less(q[b], q[c]):
        m = c
    else:
        m = b
    q[result], q[m] = q[m], q[result]


def _unguarded_partition(q: list[Any], first: int, last: int, pivot: int, less: Less) -> int:
    while True:
        while less(q[first], q[pivot]):
            first += 1
        last -= 1
        while less(q[pivot], q[last]):
            last -= 1
        if not first < last:
            return first
        q[first], q[last] = q[last], q[first]
        first += 1


def _partition_pivot(q: list[Any], first: int, last: int, less: Less) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(q, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(q, first + 1, last, first, less)


def _insertion_sort(q: list[Any], first: int, last: int, less: Less) -> None:
    for i in range(first + 1, last):
        val = q[i]
        if less(val, q[first]):
            q[first + 1 : i + 1] = q[first:i]
            q[first] = val
        else:
            j = i
            while less(val, q[j - 1]):
                q[j] = q[j - 1]
                j -= 1
            q[j] = val


def _push_heap(q: list[Any], base: int, hole: int, top: int, value: Any, less: Less) -> None:
    parent = (hole - 1) // 2
    while hole > top and less(q[base + parent], value):
        q[base + hole] = q[base + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[base + hole] = value


def _adjust_heap(q: list[Any], base: int, hole: int, n: int, value: Any, less: Less) -> None:
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if less(q[base + child], q[base + child - 1]):
            child -= 1
        q[base + hole] = q[base + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        q[base + hole] = q[base + child - 1]
        hole = child - 1
    _push_heap(q, base, hole, top, value, less)


def _make_heap(q: list[Any], first: int, last: int, less: Less) -> None:
    n = last - first
    if n < 2:
        return
    parent = (n - 2) // 2
    while True:
        _adjust_heap(q, first, parent, n, q[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(q: list[Any], first: int, last: int, result: int, less: Less) -> None:
    value = q[result]
    q[result] = q[first]
    _adjust_heap(q, first, 0, last - first, value, less)


def _heap_select(q: list[Any], first: int, middle: int, last: int, less: Less) -> None:
    _make_heap(q, first, middle, less)
    for i in range(middle, last):
        if less(q[i], q[first]):
            _pop_heap(q, first, middle, i, less)


def _sort_heap(q: list[Any], first: int, last: int, less: Less) -> None:
    while last - first > 1:
        last -= 1
        _pop_heap(q, first, last, last, less)


def partial_sort(q: list[Any], first: int, middle: int, last: int, less: Less) -> None:
    _heap_select(q, first, middle, last, less)
    _sort_heap(q, first, middle, less)


def nth_element(q: list[Any], first: int, nth: int, last: int, less: Less) -> None:
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(q, first, nth + 1, last, less)
            q[first], q[nth] = q[nth], q[first]
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last, less)


_THRESHOLD = 16


def sort(q: list[Any], first: int, last: int, less: Less) -> None:
    if last - first < 2:
        return
    stack = [(first, last, 2 * _lg(last - first))]
    while stack:  # the introsort loop, recursion on the right part made explicit
        lo, hi, depth = stack.pop()
        while hi - lo > _THRESHOLD:
            if depth == 0:
                partial_sort(q, lo, hi, hi, less)
                break
            depth -= 1
            cut = _partition_pivot(q, lo, hi, less)
            stack.append((cut, hi, depth))
            hi = cut
    if last - first > _THRESHOLD:
        _insertion_sort(q, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):  # unguarded: a smaller value sits in front
            val = q[i]
            j = i
            while less(val, q[j - 1]):
                q[j] = q[j - 1]
                j -= 1
            q[j] = val
    else:
        _insertion_sort(q, first, last, less)


def topk_order(values: list[float], k: int, largest: bool, sorted_: bool) -> list[int]:
    """The indices torch's CPU topk returns for one row of `values`."""
    if k == 0:
        return []
    q = [(v, j) for j, v in enumerate(values)]
    if largest:

        def less(x: Any, y: Any) -> bool:
            return (math.isnan(x[0]) and not math.isnan(y[0])) or x[0] > y[0]
    else:

        def less(x: Any, y: Any) -> bool:
            return (not math.isnan(x[0]) and math.isnan(y[0])) or x[0] < y[0]

    n = len(q)
    if k * 64 <= n:
        partial_sort(q, 0, k, n, less)
    else:
        nth_element(q, 0, k - 1, n, less)
        if sorted_:
            sort(q, 0, k - 1, less)
    return [j for _, j in q[:k]]
