"""Statistics checked against closed forms computed here, independently of scipy (which computes Wilson)."""

from __future__ import annotations

import math
import random
from statistics import NormalDist

import pytest

from core.analysis.stats import MeanCI, Sprt, SprtPair, bernoulli_llr, mean_ci, sprt_bounds, sprt_pair_run, wilson


def wilson_closed_form(k: int, n: int, conf: float = 0.95) -> tuple[float, float]:
    z = NormalDist().inv_cdf(0.5 + conf / 2)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize(("k", "n"), [(7, 10), (0, 10), (10, 10), (50, 100), (23, 100), (1, 3), (400, 600)])
def test_wilson_matches_closed_form(k: int, n: int) -> None:
    low, high = wilson(k, n)
    ref_low, ref_high = wilson_closed_form(k, n)
    assert low == pytest.approx(max(0.0, ref_low), abs=1e-9)
    assert high == pytest.approx(min(1.0, ref_high), abs=1e-9)


def test_wilson_known_textbook_value() -> None:
    # 7 of 10 at 95%: the usual textbook Wilson interval is about [0.3968, 0.8922].
    low, high = wilson(7, 10)
    assert round(low, 4) == 0.3968
    assert round(high, 4) == 0.8922


def test_wilson_edge_cases() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="successes"):
        wilson(5, 3)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == 1.0


def test_sprt_bounds_are_ln19() -> None:
    low, high = sprt_bounds(0.05, 0.05)
    assert high == pytest.approx(math.log(19))
    assert low == pytest.approx(-math.log(19))


def test_llr_closed_form() -> None:
    assert bernoulli_llr(3, 5, 0.55, 0.65) == pytest.approx(3 * math.log(0.65 / 0.55) + 2 * math.log(0.35 / 0.45))


def test_sprt_decides_at_the_first_crossing() -> None:
    bound = math.log(19)
    wins_needed = math.ceil(bound / math.log(0.65 / 0.55))  # 18
    losses_needed = math.ceil(bound / -math.log(0.35 / 0.45))  # 12
    assert (wins_needed, losses_needed) == (18, 12)
    t = Sprt(0.55, 0.65)
    for i in range(1, 30):
        t.update(True)
        if i < wins_needed:
            assert t.decision is None
    assert t.decision == "H1" and t.decided_at == wins_needed
    t0 = Sprt(0.55, 0.65)
    for _ in range(30):
        t0.update(False)
    assert t0.decision == "H0" and t0.decided_at == losses_needed


def test_pair_status_rules() -> None:
    pair = SprtPair()
    assert pair.status == "undecided"
    for _ in range(30):
        pair.update(True)
    # all wins: the high side accepts H1 -> outside the band, counts frozen at the decision
    assert pair.status == "outside"
    assert pair.trials == 18
    alternating = sprt_pair_run(i % 2 == 0 for i in range(10_000))
    assert alternating.status == "inside"
    assert alternating.high.decision == "H0" and alternating.low.decision == "H0"


def test_pair_cap_leaves_undecided() -> None:
    pair = sprt_pair_run((i % 2 == 0 for i in range(10_000)), cap=10)
    assert pair.status == "undecided" and pair.trials == 10


@pytest.mark.parametrize(("p", "expected", "min_share"),
                         [(0.5, "inside", 0.85), (0.78, "outside", 0.9), (0.2, "outside", 0.9), (0.7, "outside", 0.8)])
def test_simulated_coins_reach_the_right_verdict(p: float, expected: str, min_share: float) -> None:
    rng = random.Random(1234)
    runs = 200
    hits = 0
    used = []
    for _ in range(runs):
        pair = sprt_pair_run((rng.random() < p for _ in range(600)), cap=600)
        hits += pair.status == expected
        used.append(pair.trials)
    assert hits / runs >= min_share
    # the point of a sequential test: far fewer games than the cap on clear cases
    assert sum(used) / runs < 300


def test_mean_ci_against_t_closed_form() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 10.0]
    m = mean_ci(values)
    mean = sum(values) / 5
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 4)
    t_975_df4 = 2.7764451051977987  # standard table value
    assert m.mean == pytest.approx(mean)
    assert m.high - m.mean == pytest.approx(t_975_df4 * sd / math.sqrt(5))
    assert m.low == pytest.approx(2 * mean - m.high)


def test_mean_ci_small_samples() -> None:
    assert math.isnan(mean_ci([]).mean)
    one = mean_ci([3.0])
    assert one.mean == 3.0 and math.isnan(one.low)
    assert one.as_dict()["low"] is None
    const = mean_ci([2.0, 2.0, 2.0])
    assert const == MeanCI(2.0, 2.0, 2.0, 3)


def test_expected_remaining_games_match_simulation() -> None:
    """Wald's estimate of the games a pair still needs is what "how much more time" rests on: it must be
    within a factor of two of what the test really takes, and zero once decided."""
    import random

    from core.analysis.stats import SprtPair, pair_expected_remaining, sprt_pair_run

    for p in (0.3, 0.5, 0.7):
        rng = random.Random(7)
        runs = [sprt_pair_run(rng.random() < p for _ in range(100_000)).trials for _ in range(400)]
        simulated = sum(runs) / len(runs)
        estimate = pair_expected_remaining(SprtPair(), p)
        assert simulated / 2 <= estimate <= simulated * 2, (p, estimate, simulated)
    done = sprt_pair_run([True] * 60)
    assert done.decided and pair_expected_remaining(done, 0.9) == 0.0


def test_pair_operating_is_exact() -> None:
    """The dynamic programme agrees with a direct enumeration of every outcome sequence (small caps) and with the
    figures issue reports gave for a fixed number of games (an even opening fair 3% at 60, 63% at 100, 92% at 160)."""
    import itertools

    from core.analysis.stats import pair_operating

    for p, cap, stop in ((0.5, 14, True), (0.3, 14, True), (0.62, 13, False)):
        inside = outside = games = 0.0
        for seq in itertools.product((True, False), repeat=cap):
            prob = math.prod(p if w else 1 - p for w in seq)
            pair = sprt_pair_run(seq, cap=cap)
            if not stop:  # every game is played; the class is the frozen one
                games += prob * cap
            else:
                games += prob * pair.trials
            inside += prob * (pair.status == "inside")
            outside += prob * (pair.status == "outside")
        f = pair_operating(p, cap, stop=stop)
        assert (f.inside, f.outside, f.mean_games) == pytest.approx((inside, outside, games), abs=1e-9)
        assert f.inside + f.outside + f.undecided == pytest.approx(1.0)
    assert [round(pair_operating(0.5, n, stop=False).inside, 2) for n in (60, 100, 160)] == [0.03, 0.62, 0.92]
    # the sequential stop symmetric about 50%
    assert pair_operating(0.3, 200).outside == pytest.approx(pair_operating(0.7, 200).outside, abs=1e-12)
    with pytest.raises(ValueError):
        pair_operating(0.5, 0)
