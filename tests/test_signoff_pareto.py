"""The frontier algorithm of Check 14."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from infx.signoff.pareto import FRONTIER_FLAG, frontier


def pts(*pairs, **extra):
    return [{"x": x, "y": y} | extra for x, y in pairs]


def test_dominated_points_are_dropped() -> None:
    front, invalid = frontier(pts((1, 10), (2, 5), (3, 20), (4, 20), (5, 15)), "x", "y")
    assert front == [(1, 10), (3, 20), (4, 20)] and invalid == 0


def test_plateaus_count_and_duplicates_count_once() -> None:
    front, _ = frontier(pts((1, 10), (1, 10), (2, 10), (3, 10)), "x", "y")
    assert front == [(1, 10), (2, 10), (3, 10)]


def test_invalid_points() -> None:
    front, invalid = frontier([{"x": True, "y": 1}, {"x": 0, "y": 1}, {"x": float("inf"), "y": 2},
                               {"x": 1, "y": "3"}, {"x": 1, "y": 1}], "x", "y")
    assert front == [(1.0, 1.0)] and invalid == 4


def test_interactivity_flag_filters_after_building() -> None:
    points = pts((1, 10), (2, 20)) + [{"x": 3, "y": 30, FRONTIER_FLAG: False}]
    points[0][FRONTIER_FLAG] = True
    front, _ = frontier(points, "x", "y")
    assert front == [(1, 10)]


coordinate = st.floats(min_value=0.1, max_value=1000, allow_nan=False)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(coordinate, coordinate), min_size=1, max_size=30))
def test_frontier_points_are_never_dominated(pairs) -> None:
    front, invalid = frontier(pts(*pairs), "x", "y")
    assert invalid == 0 and front
    for fx, fy in front:
        assert not any(x <= fx and y > fy for x, y in pairs)  # plateaus stay
    ys = [y for _, y in front]
    assert ys == sorted(ys)
