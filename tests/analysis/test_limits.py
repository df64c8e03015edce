"""The four limits a host sets (games, race, workers, time): checked in one place, said in one wording, whether
the command line or a config broke them."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.analysis.config import LIMITS, AnalysisConfig
from core.cli import EXIT_USAGE, main
from tests.paths import REPO

BAD = {"games": 5, "race": 0, "workers": 65, "time_budget": 1.0}


@pytest.mark.parametrize("limit", LIMITS, ids=lambda limit: limit.field)
def test_the_command_line_and_the_config_say_the_same(limit: object, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from core.analysis.config import Limit

    assert isinstance(limit, Limit)
    value = BAD[limit.field]
    with pytest.raises(ValueError) as refused:
        AnalysisConfig(**{limit.field: value}).check()  # type: ignore[arg-type]
    assert str(refused.value) == f"{limit.field} {int(value)}: {limit.rule}"
    board = REPO / "boards" / "sparse.yaml"
    assert main(["analyze", str(board), limit.option, str(value)]) == EXIT_USAGE
    assert capsys.readouterr().err.strip() == f"lits analyze: {limit.option} {int(value)}: {limit.rule}"


def test_each_limit_is_written_once() -> None:
    """No second check with other words in the command line: its module holds none of the limits' numbers."""
    source = (REPO / "core" / "cli" / "analyze.py").read_text(encoding="utf-8")
    for name in ("MAX_GAMES", "MIN_GAMES", "MAX_RACE", "MAX_TIME", "MAX_WORKERS"):
        assert name not in source, name
    assert AnalysisConfig(time_budget=0.0).limit_problem() is None  # 0 = no cap
