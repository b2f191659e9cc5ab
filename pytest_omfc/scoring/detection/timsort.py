"""``sorted()`` as MediScore's Python 2.7 did it, for lists of floats that hold NaN.

MediScore takes the bootstrap interval's bounds from ``sorted(values)``, and a resample with one class only
gives a NaN value.  NaN compares false with everything, so where NaNs end up depends on the exact comparisons
the sort makes: Python 2.7 through 3.12 place them one way, Python 3.13 another (its run detection changed), and
the interval's bounds moved with it (0.75 became 0.6667 on the bundled example).  This module is CPython 2.7's
``listsort`` (timsort: run detection, binary insertion to ``minrun``, the merge-stack invariants, galloping
merges with an adaptive ``min_gallop``), made in Python for lists of a few thousand values, so the bounds are
MediScore's on every Python.  ``tests/scoring/detection/test_timsort.py`` compares it with Python 2.7 itself.

A list without NaN is totally ordered, and every stable sort gives the same result: :func:`sort_like_python2`
then calls ``sorted``.
"""

from __future__ import annotations

import math

__all__ = ["sort_like_python2"]

MIN_GALLOP = 7


def sort_like_python2(values: list[float]) -> list[float]:
    """``sorted(values)`` as Python 2.7 (MediScore) returns it, NaN placement included."""
    if not any(math.isnan(v) for v in values):
        return sorted(values)
    a = list(values)
    _TimSort(a).sort()
    return a


def _lt(x: float, y: float) -> bool:
    return x < y


class _TimSort:
    def __init__(self, a: list[float]) -> None:
        self.a = a
        self.min_gallop = MIN_GALLOP
        self.runs: list[tuple[int, int]] = []  # (base, length)

    def sort(self) -> None:
        a = self.a
        n = len(a)
        if n < 2:
            return
        minrun = _minrun(n)
        lo, remaining = 0, n
        while remaining:
            run, descending = self._count_run(lo, lo + remaining)
            if descending:
                a[lo : lo + run] = a[lo : lo + run][::-1]
            if run < minrun:
                force = min(remaining, minrun)
                self._binarysort(lo, lo + force, lo + run)
                run = force
            self.runs.append((lo, run))
            self._merge_collapse()
            lo += run
            remaining -= run
        self._merge_force_collapse()

    def _count_run(self, lo: int, hi: int) -> tuple[int, bool]:
        a = self.a
        if lo + 1 == hi:
            return 1, False
        n = 2
        if _lt(a[lo + 1], a[lo]):
            i = lo + 2
            while i < hi and _lt(a[i], a[i - 1]):
                i += 1
                n += 1
            return n, True
        i = lo + 2
        while i < hi and not _lt(a[i], a[i - 1]):
            i += 1
            n += 1
        return n, False

    def _binarysort(self, lo: int, hi: int, start: int) -> None:
        a = self.a
        if start == lo:
            start += 1
        while start < hi:
            pivot = a[start]
            left, right = lo, start
            while left < right:
                p = left + ((right - left) >> 1)
                if _lt(pivot, a[p]):
                    right = p
                else:
                    left = p + 1
            a[left + 1 : start + 1] = a[left:start]
            a[left] = pivot
            start += 1

    def _merge_collapse(self) -> None:
        p = self.runs
        while len(p) > 1:
            n = len(p) - 2
            if (n > 0 and p[n - 1][1] <= p[n][1] + p[n + 1][1]) or (n > 1 and p[n - 2][1] <= p[n - 1][1] + p[n][1]):
                if p[n - 1][1] < p[n + 1][1]:
                    n -= 1
                self._merge_at(n)
            elif p[n][1] <= p[n + 1][1]:
                self._merge_at(n)
            else:
                break

    def _merge_force_collapse(self) -> None:
        p = self.runs
        while len(p) > 1:
            n = len(p) - 2
            if n > 0 and p[n - 1][1] < p[n + 1][1]:
                n -= 1
            self._merge_at(n)

    def _merge_at(self, i: int) -> None:
        a = self.a
        base_a, na = self.runs[i]
        base_b, nb = self.runs[i + 1]
        self.runs[i] = (base_a, na + nb)
        del self.runs[i + 1]
        k = _gallop_right(a[base_b], a, base_a, na, 0)
        base_a += k
        na -= k
        if na == 0:
            return
        nb = _gallop_left(a[base_a + na - 1], a, base_b, nb, nb - 1)
        if nb == 0:
            return
        if na <= nb:
            self._merge_lo(base_a, na, base_b, nb)
        else:
            self._merge_hi(base_a, na, base_b, nb)

    def _merge_lo(self, pa: int, na: int, pb: int, nb: int) -> None:
        """Merge the run at ``pa`` (na items, the shorter) with the run right after it, ``pb``."""
        a = self.a
        tmp = a[pa : pa + na]  # run A moves out; ``dest`` walks from pa
        ta = 0
        dest = pa
        a[dest] = a[pb]
        dest += 1
        pb += 1
        nb -= 1
        if nb == 0:
            a[dest : dest + na] = tmp[ta : ta + na]
            return
        if na == 1:
            a[dest : dest + nb] = a[pb : pb + nb]
            a[dest + nb] = tmp[ta]
            return
        min_gallop = self.min_gallop
        while True:
            acount = bcount = 0
            while True:  # one at a time until a run wins min_gallop times in a row
                if _lt(a[pb], tmp[ta]):
                    a[dest] = a[pb]
                    dest += 1
                    pb += 1
                    bcount += 1
                    acount = 0
                    nb -= 1
                    if nb == 0:
                        return self._lo_done(tmp, ta, na, dest, min_gallop)
                    if bcount >= min_gallop:
                        break
                else:
                    a[dest] = tmp[ta]
                    dest += 1
                    ta += 1
                    acount += 1
                    bcount = 0
                    na -= 1
                    if na == 1:
                        return self._lo_copy_b(tmp, ta, dest, pb, nb, min_gallop)
                    if acount >= min_gallop:
                        break
            min_gallop += 1
            while True:  # galloping
                min_gallop -= min_gallop > 1
                self.min_gallop = min_gallop
                k = _gallop_right(a[pb], tmp, ta, na, 0)
                acount = k
                if k:
                    a[dest : dest + k] = tmp[ta : ta + k]
                    dest += k
                    ta += k
                    na -= k
                    if na == 1:
                        return self._lo_copy_b(tmp, ta, dest, pb, nb, min_gallop)
                    if na == 0:
                        return self._lo_done(tmp, ta, na, dest, min_gallop)
                a[dest] = a[pb]
                dest += 1
                pb += 1
                nb -= 1
                if nb == 0:
                    return self._lo_done(tmp, ta, na, dest, min_gallop)
                k = _gallop_left(tmp[ta], a, pb, nb, 0)
                bcount = k
                if k:
                    a[dest : dest + k] = a[pb : pb + k]
                    dest += k
                    pb += k
                    nb -= k
                    if nb == 0:
                        return self._lo_done(tmp, ta, na, dest, min_gallop)
                a[dest] = tmp[ta]
                dest += 1
                ta += 1
                na -= 1
                if na == 1:
                    return self._lo_copy_b(tmp, ta, dest, pb, nb, min_gallop)
                if acount < MIN_GALLOP and bcount < MIN_GALLOP:
                    break
            min_gallop += 1
            self.min_gallop = min_gallop

    def _lo_done(self, tmp: list[float], ta: int, na: int, dest: int, min_gallop: int) -> None:
        self.min_gallop = min_gallop
        if na:
            self.a[dest : dest + na] = tmp[ta : ta + na]

    def _lo_copy_b(self, tmp: list[float], ta: int, dest: int, pb: int, nb: int, min_gallop: int) -> None:
        self.min_gallop = min_gallop
        a = self.a
        a[dest : dest + nb] = a[pb : pb + nb]
        a[dest + nb] = tmp[ta]

    def _merge_hi(self, pa: int, na: int, pb: int, nb: int) -> None:
        """Merge the run at ``pa`` with the run after it, ``pb`` (nb items, the shorter), from the right."""
        a = self.a
        tmp = a[pb : pb + nb]  # run B moves out; ``dest`` walks down from its last slot
        dest = pb + nb - 1
        tb = nb - 1  # the last of tmp
        pa_last = pa + na - 1  # the last of run A
        a[dest] = a[pa_last]
        dest -= 1
        pa_last -= 1
        na -= 1
        if na == 0:
            a[dest - nb + 1 : dest + 1] = tmp[:nb]
            return
        if nb == 1:
            dest -= na
            pa_last -= na
            a[dest + 1 : dest + 1 + na] = a[pa_last + 1 : pa_last + 1 + na]
            a[dest] = tmp[tb]
            return
        min_gallop = self.min_gallop
        while True:
            acount = bcount = 0
            while True:
                if _lt(tmp[tb], a[pa_last]):
                    a[dest] = a[pa_last]
                    dest -= 1
                    pa_last -= 1
                    acount += 1
                    bcount = 0
                    na -= 1
                    if na == 0:
                        return self._hi_done(tmp, nb, dest, min_gallop)
                    if acount >= min_gallop:
                        break
                else:
                    a[dest] = tmp[tb]
                    dest -= 1
                    tb -= 1
                    bcount += 1
                    acount = 0
                    nb -= 1
                    if nb == 1:
                        return self._hi_copy_a(tmp, tb, dest, pa_last, na, min_gallop)
                    if bcount >= min_gallop:
                        break
            min_gallop += 1
            while True:
                min_gallop -= min_gallop > 1
                self.min_gallop = min_gallop
                k = _gallop_right(tmp[tb], a, pa, na, na - 1)
                k = na - k
                acount = k
                if k:
                    dest -= k
                    pa_last -= k
                    a[dest + 1 : dest + 1 + k] = a[pa_last + 1 : pa_last + 1 + k]
                    na -= k
                    if na == 0:
                        return self._hi_done(tmp, nb, dest, min_gallop)
                a[dest] = tmp[tb]
                dest -= 1
                tb -= 1
                nb -= 1
                if nb == 1:
                    return self._hi_copy_a(tmp, tb, dest, pa_last, na, min_gallop)
                k = _gallop_left(a[pa_last], tmp, 0, nb, nb - 1)
                k = nb - k
                bcount = k
                if k:
                    dest -= k
                    tb -= k
                    a[dest + 1 : dest + 1 + k] = tmp[tb + 1 : tb + 1 + k]
                    nb -= k
                    if nb == 1:
                        return self._hi_copy_a(tmp, tb, dest, pa_last, na, min_gallop)
                    if nb == 0:
                        return self._hi_done(tmp, nb, dest, min_gallop)
                a[dest] = a[pa_last]
                dest -= 1
                pa_last -= 1
                na -= 1
                if na == 0:
                    return self._hi_done(tmp, nb, dest, min_gallop)
                if acount < MIN_GALLOP and bcount < MIN_GALLOP:
                    break
            min_gallop += 1
            self.min_gallop = min_gallop

    def _hi_done(self, tmp: list[float], nb: int, dest: int, min_gallop: int) -> None:
        self.min_gallop = min_gallop
        if nb:
            self.a[dest - nb + 1 : dest + 1] = tmp[:nb]

    def _hi_copy_a(self, tmp: list[float], tb: int, dest: int, pa_last: int, na: int, min_gallop: int) -> None:
        self.min_gallop = min_gallop
        a = self.a
        dest -= na
        pa_last -= na
        a[dest + 1 : dest + 1 + na] = a[pa_last + 1 : pa_last + 1 + na]
        a[dest] = tmp[tb]


def _minrun(n: int) -> int:
    r = 0
    while n >= 64:
        r |= n & 1
        n >>= 1
    return n + r


def _gallop_left(key: float, a: list[float], base: int, n: int, hint: int) -> int:
    """The position in ``a[base:base+n]`` to put ``key`` before any equal items (CPython's gallop_left)."""
    lastofs, ofs = 0, 1
    if _lt(a[base + hint], key):
        maxofs = n - hint
        while ofs < maxofs:
            if _lt(a[base + hint + ofs], key):
                lastofs = ofs
                ofs = (ofs << 1) + 1
            else:
                break
        ofs = min(ofs, maxofs)
        lastofs += hint
        ofs += hint
    else:
        maxofs = hint + 1
        while ofs < maxofs:
            if _lt(a[base + hint - ofs], key):
                break
            lastofs = ofs
            ofs = (ofs << 1) + 1
        ofs = min(ofs, maxofs)
        lastofs, ofs = hint - ofs, hint - lastofs
    lastofs += 1
    while lastofs < ofs:
        m = lastofs + ((ofs - lastofs) >> 1)
        if _lt(a[base + m], key):
            lastofs = m + 1
        else:
            ofs = m
    return ofs


def _gallop_right(key: float, a: list[float], base: int, n: int, hint: int) -> int:
    """The position in ``a[base:base+n]`` to put ``key`` after any equal items (CPython's gallop_right)."""
    lastofs, ofs = 0, 1
    if _lt(key, a[base + hint]):
        maxofs = hint + 1
        while ofs < maxofs:
            if _lt(key, a[base + hint - ofs]):
                lastofs = ofs
                ofs = (ofs << 1) + 1
            else:
                break
        ofs = min(ofs, maxofs)
        lastofs, ofs = hint - ofs, hint - lastofs
    else:
        maxofs = n - hint
        while ofs < maxofs:
            if _lt(key, a[base + hint + ofs]):
                break
            lastofs = ofs
            ofs = (ofs << 1) + 1
        ofs = min(ofs, maxofs)
        lastofs += hint
        ofs += hint
    lastofs += 1
    while lastofs < ofs:
        m = lastofs + ((ofs - lastofs) >> 1)
        if _lt(key, a[base + m]):
            ofs = m
        else:
            lastofs = m + 1
    return ofs
