"""The frontier algorithm of Check `pareto`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infx.signoff.rules.frontier import FRONTIER_FLAG, frontier


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


def test_an_integer_beyond_the_float_range_is_an_invalid_point_not_a_crash() -> None:
    """JSON allows integers of any size; float() of one past ~1.8e308 raises OverflowError."""
    front, invalid = frontier([{"x": 1, "y": 10**400}, {"x": 10**400, "y": 1}, {"x": 2, "y": 5}], "x", "y")
    assert front == [(2.0, 5.0)] and invalid == 2


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


def test_coverage_reports_every_curve() -> None:
    from infx.signoff.rules.frontier import coverage

    curves = [{"key": "a", "x": "x", "points": pts(*[(k, k) for k in range(1, 7)])},
              {"key": "b", "x": "x", "points": pts((1, 5), (2, 1)) + [{"x": None, "y": 3}, "junk"]}]
    first, second = coverage(curves, y_key="y")
    assert first == {"key": "a", "status": "PASS", "measuredPoints": 6, "invalidPoints": 0,
                     "frontierPoints": 6, "recommendedPoints": 5, "canonicalRestriction": False,
                     "frontier": [[float(k), float(k)] for k in range(1, 7)]}
    assert (second["status"], second["invalidPoints"], second["frontierPoints"]) == ("WARN", 2, 1)


def test_coverage_flags_the_canonical_restriction() -> None:
    from infx.signoff.rules.frontier import coverage

    points = pts((1, 1)) + [{"x": 2, "y": 2, FRONTIER_FLAG: True}]
    (report,) = coverage([{"key": "a", "x": "x", "points": points}], y_key="y")
    assert report["canonicalRestriction"] is True and report["frontier"] == [[2.0, 2.0]]


@pytest.mark.parametrize("curves,text", [
    ([], "no curves"),
    ([{"key": "a", "x": "x", "points": []}, {"key": "a", "x": "x", "points": []}], "duplicate"),
    ([{"x": "x", "points": []}], "needs a non-empty key"),
    ([{"key": "a", "x": "x"}], "points array"),
])
def test_coverage_input_errors(curves, text) -> None:
    from infx.signoff.rules.frontier import coverage

    with pytest.raises(ValueError, match=text):
        coverage(curves)
