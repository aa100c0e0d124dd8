"""The analysis reports are registered under their command's name, which is their schema's,
and the command lines take their --format choices from them without importing NumPy."""

from __future__ import annotations

import subprocess
import sys

from poolkit.analysis.reports import (
    AgreementReport,
    CompareReport,
    ReusabilityReport,
    SimulateReport,
)
from poolkit.reports import REPORTS
from poolkit.schemas import load_schema


def test_each_analysis_report_is_registered_under_its_command_and_schema():
    for cls in (CompareReport, ReusabilityReport, AgreementReport, SimulateReport):
        assert REPORTS[cls.kind] is cls
        assert cls.formats == ("table", "json")
        assert load_schema(cls.kind)["title"].startswith(f"poolkit {cls.kind} ")


def test_the_reports_and_the_agreement_parser_import_no_numpy():
    code = ("import sys; from poolkit.cli import build_parser; "
            "import poolkit.analysis.reports; build_parser(['agreement']); "
            "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
