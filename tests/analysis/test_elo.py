"""Duel statistics against values worked out by hand (Wilson's formula, the logistic Elo curve, the GSPRT)."""

from __future__ import annotations

import math

import pytest

from core.analysis.elo import EloSprt, PairOutcome, elo_of, expected_score, parse_sprt, score_pairs


def _pairs(both: int, split_s1: int, split_s2: int, none: int) -> list[PairOutcome]:
    """``both`` pairs A won twice, ``split_s1`` A won only as S1, ``split_s2`` only as S2, ``none`` lost both."""
    return ([PairOutcome(True, True)] * both + [PairOutcome(True, False)] * split_s1
            + [PairOutcome(False, True)] * split_s2 + [PairOutcome(False, False)] * none)


def test_elo_curve_known_points() -> None:
    assert elo_of(0.5) == pytest.approx(0.0)
    assert elo_of(0.75) == pytest.approx(400 * math.log10(3))  # 190.85: 3 wins per loss
    assert elo_of(0.25) == pytest.approx(-190.8485, abs=1e-3)
    assert elo_of(10 / 11) == pytest.approx(400.0)  # 10 to 1 odds is exactly 400 points
    assert elo_of(0.0) is None and elo_of(1.0) is None
    assert expected_score(400.0) == pytest.approx(10 / 11)
    for e in (-300.0, -20.0, 0.0, 55.0, 250.0):
        assert elo_of(expected_score(e)) == pytest.approx(e)
    with pytest.raises(ValueError):
        elo_of(1.5)


def test_score_of_twenty_pairs_worked_by_hand() -> None:
    # 20 pairs: A won 12 both games, 6 only as S1, 0 only as S2, lost 2 both: 30 of 40 games.
    res = score_pairs(_pairs(12, 6, 0, 2))
    assert (res.pairs, res.games, res.a_wins) == (20, 40, 30)
    assert res.score == pytest.approx(0.75)
    # Wilson 95%: (p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n), z = 1.96, p = 0.75, n = 40
    assert res.ci95 == pytest.approx((0.59806, 0.85813), abs=2e-5)
    assert res.elo == pytest.approx(190.85, abs=0.01)
    lo, hi = res.elo_ci95
    assert lo == pytest.approx(69.03, abs=0.05) and hi == pytest.approx(312.66, abs=0.05)
    # S1 won: both-pairs 1 each (A as S1), split_s1 2 each, none-pairs 1 each (B as S1): 12 + 12 + 2 = 26
    assert res.s1_wins == 26 and res.s1_win_rate == pytest.approx(26 / 40)
    assert res.elo_text() == "+191 [+69, +313]"


def test_even_and_one_sided_duels() -> None:
    even = score_pairs(_pairs(0, 40, 0, 0))  # every pair split, each seat's first mover won
    assert even.score == 0.5 and even.elo == pytest.approx(0.0)
    assert even.ci95 == pytest.approx((0.39297, 0.60703), abs=2e-5)
    assert even.elo_ci95[0] == pytest.approx(-75.54, abs=0.05) and even.elo_ci95[1] == pytest.approx(75.54, abs=0.05)
    assert even.s1_win_rate == 1.0
    assert even.elo_text() == "0 [-76, +76]" and str(even.elo) == "0.0", "an even score read '-0', as a loss"
    sweep = score_pairs(_pairs(40, 0, 0, 0))
    assert sweep.score == 1.0 and sweep.elo is None and sweep.elo_ci95[1] is None
    assert sweep.ci95[0] == pytest.approx(0.95418, abs=2e-5)
    assert sweep.elo_ci95[0] == pytest.approx(527.44, abs=0.1)
    assert sweep.elo_text() == "+inf [+527, +inf]"
    lost = score_pairs(_pairs(0, 0, 0, 5))
    assert lost.elo is None and lost.elo_ci95[0] is None and lost.elo_ci95[1] is not None
    assert lost.elo_text().startswith("-inf [-inf, ")


def test_sprt_llr_by_hand() -> None:
    t = EloSprt(0.0, 400 * math.log10(3))  # expected scores 0.5 and 0.75
    for x in (1.0, 0.5, 0.5, 1.0, 0.0):
        t.update(x)
    # 6 wins of 10 games: 6 ln(0.75 / 0.5) + 4 ln(0.25 / 0.5)
    assert t.llr == pytest.approx(6 * math.log(1.5) + 4 * math.log(0.5))
    assert t.llr == pytest.approx(-0.33980, abs=1e-5)
    assert t.decision is None
    low, high = t.bounds
    assert (low, high) == pytest.approx((-math.log(19), math.log(19)))


def test_sprt_decides_and_freezes() -> None:
    strong = EloSprt(0.0, 100.0)
    for i in range(200):
        if strong.update(1.0 if i % 4 else 0.5) is not None:
            break
    assert strong.decision == "H1" and 2 <= strong.decided_at < 40
    sweep = EloSprt(0.0, 100.0)  # every pair won: decided although the pair scores never vary
    for _ in range(50):
        if sweep.update(1.0) is not None:
            break
    # each won game adds ln(0.640 / 0.5) = 0.2468; ln 19 = 2.944 needs 12 games, i.e. 6 pairs
    assert sweep.decision == "H1" and sweep.decided_at == 6
    assert "accepted H1" in strong.describe()
    n = len(strong.scores)
    strong.update(0.0)
    assert len(strong.scores) == n and strong.decision == "H1"
    weak = EloSprt(0.0, 100.0)
    for i in range(400):
        if weak.update(0.5 if i % 2 else (0.0 if i % 4 else 1.0)) is not None:
            break
    assert weak.decision == "H0" and "accepted H0" in weak.describe()


@pytest.mark.parametrize(("text", "words"), [
    ("0", "two Elo values"), ("a,b", "numbers"), ("50,0", "below"), ("0,inf", "finite"), ("0,5000", "2000"),
])
def test_parse_sprt_errors(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        parse_sprt(text)
    assert parse_sprt(" -10, 40 ") == (-10.0, 40.0)
