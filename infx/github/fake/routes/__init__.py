"""The fake server's routes (all in runs.py until the next commit splits them by REST resource)."""

from infx.github.fake.routes.runs import (
    REPO,
    State,
    assign_reaction_ids,
    match,
    matched_route,
    route_templates,
    sample_value,
)

__all__ = ["REPO", "State", "assign_reaction_ids", "match", "matched_route", "route_templates",
           "sample_value"]
