"""Plain values of the Checks API: a check run's output and its line-located annotations."""

from __future__ import annotations

from dataclasses import dataclass

MAX_ANNOTATIONS_PER_REQUEST = 50  # the Checks API's limit; more are appended by updates
MAX_CHECK_OUTPUT_CHARS = 65_535  # a check run's summary and text, each
CHECK_CONCLUSIONS = ("action_required", "cancelled", "failure", "neutral", "success", "skipped",
                     "timed_out")
ANNOTATION_LEVELS = ("notice", "warning", "failure")
TRUNCATED = "\n\n… (truncated)"


def fit(text: str) -> str:
    """A summary or text cut to the Checks API's 65,535 characters."""
    if len(text) <= MAX_CHECK_OUTPUT_CHARS:
        return text
    return text[: MAX_CHECK_OUTPUT_CHARS - len(TRUNCATED)] + TRUNCATED


@dataclass(frozen=True)
class Annotation:
    """One line-located note on a check run (the Checks API's annotation)."""

    path: str
    start_line: int
    end_line: int
    level: str  # notice | warning | failure
    message: str
    title: str = ""

    def to_json(self) -> dict:
        if self.level not in ANNOTATION_LEVELS:
            raise ValueError(f"annotation level must be one of {ANNOTATION_LEVELS}, not {self.level!r}")
        out = {"path": self.path, "start_line": self.start_line, "end_line": self.end_line,
               "annotation_level": self.level, "message": self.message}
        return out | ({"title": self.title} if self.title else {})


@dataclass(frozen=True)
class CheckOutput:
    """What a check run shows: a title, a summary and a text (markdown), and its annotations."""

    title: str
    summary: str
    text: str = ""
    annotations: tuple[Annotation, ...] = ()
