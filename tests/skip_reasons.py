"""Why tests were skipped, said in one short block at the end of a run.

A run that skips hundreds of tests said nothing of why; ``pytest -rs`` lists every skip by
its test. This block groups them by reason, most first, a line each: which server, file or
package would run them. ``tests/conftest.py`` imports the hook; under xdist it runs on the
controller, which holds every worker's reports.
"""

from __future__ import annotations

from collections import Counter

import pytest


def skip_reason(report: pytest.TestReport) -> str:
    """Why a skipped test skipped, as its ``pytest.skip``/``skipif`` said (a skip's report
    holds (path, line, "Skipped: REASON"); from an xdist worker, as a list)."""
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, (tuple, list)) else str(longrepr)
    return text.removeprefix("Skipped: ")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """``skipped: N — REASON`` for each reason, most first, under one header."""
    reasons = Counter(map(skip_reason, terminalreporter.stats.get("skipped", ())))
    if not reasons:
        return
    terminalreporter.write_sep("-", "why tests were skipped")
    width = len(str(max(reasons.values())))
    for reason, n in reasons.most_common():
        terminalreporter.write_line(f"skipped: {n:>{width}} — {reason}")
