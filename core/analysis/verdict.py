"""The verdict: from the pie analysis to balanced / lopsided / inconclusive, with reasons a host can read.

Also what decides one opening (the SPRT pair on the fair band's edges), when an opening
is given up (:func:`futile`), and the warnings beside the verdict.
"""

from __future__ import annotations

from core.analysis.config import AnalysisConfig
from core.analysis.results import (
    AgentResult,
    OpeningResult,
    PieResult,
    Verdict,
    band_text,
    ci_pct,
    describe_opening,
    pct,
)
from core.analysis.stats import SprtPair, wilson

FUTILITY_CONFIDENCE = 0.99
"""Confidence of the interval :func:`futile` asks.  Asked after every game, 0.95 gave up about one truly even
opening in five (simulated: a walk at 50% strays outside it somewhere between 40 and 160 games), which made
verdicts flip with the seed; 0.99 gives up about one in twenty.  The games this costs are paid from the time
budget (``--time``), which keeps the deciding agent playing until the verdict is decided."""


def decide(pie: PieResult, cfg: AnalysisConfig) -> tuple[Verdict, list[str]]:
    """The verdict and its reasons in plain words, from the pie analysis alone; every reason names the
    strength it holds for (the pie's agent), because opening values spread away from 50% as play gets stronger."""
    verdict, reasons = _decide(pie, cfg)
    return verdict, [f"{r} (for {pie.agent} play)" for r in reasons]


def _decide(pie: PieResult, cfg: AnalysisConfig) -> tuple[Verdict, list[str]]:
    band = f"{pct(cfg.fair_low)}-{pct(cfg.fair_high)}"
    reasons: list[str] = []
    if not pie.openings:
        if pie.screened == 0:
            return "inconclusive", ["no opening placement could be tested: the board has no legal first placement"]
        if cfg.games < cfg.min_verdict_games:
            return "inconclusive", [f"no opening was played out: the cap of {cfg.games} games per opening is below "
                                    f"the {cfg.min_verdict_games} games any verdict needs (raise the game budget: "
                                    "--games on the command line, Games in the designer)"]
        return "inconclusive", [f"no opening of the {pie.screened} screened was played out before the run was "
                                "stopped, so there is nothing to base a verdict on"]
    fair = pie.fair
    best = pie.best
    total = pie.games
    if total < cfg.min_verdict_games:
        return "inconclusive", [f"only {total} games were played in the pie analysis; at least "
                                f"{cfg.min_verdict_games} are needed before any verdict"]
    firm = f" (the firm check: up to {pie.check_limit} games each)" if pie.check_rule == "firm" else ""
    judges = " and ".join(pie.judges)
    noun, verb = ("judges", "show") if len(pie.judges) > 1 else ("cross-check", "shows")
    checked = f", and the {judges} {noun}{firm} {verb} none of them one-sided" if pie.judges else ""
    if enough_fair(pie, cfg):
        if cfg.counts_disputed:
            return "balanced", _balanced_undisputed(pie, cfg, band, firm)
        reasons.append(f"{len(fair)} distinct first placements keep the game within {band} for S1 "
                       f"(needed {cfg.min_fair_openings}), so the second player faces a real swap decision"
                       f"{checked}")
        for o in fair[:3]:
            reasons.append(f"fair opening: {describe_opening(o)}")
        reasons += _disputed(pie, cfg)
        return "balanced", reasons
    if len(fair) >= cfg.min_fair_openings:  # enough fair for the deciding agent, too few undisputed
        return "inconclusive", _engines_disagree(pie, cfg, band)
    confident_outside = all(o.games and (o.ci95[1] < cfg.fair_low or o.ci95[0] > cfg.fair_high)
                            for o in pie.openings)
    all_unfair = all(o.status == "unfair" for o in pie.openings)
    if best is not None and (all_unfair or confident_outside):
        reasons.append(f"no first placement keeps the game within {band}: the best, {describe_opening(best)}")
        chosen = f"chosen as the closest to even in a screen of {pie.screened}"
        if all_unfair:
            reasons.append(f"all {pie.tested} openings played out ({chosen}) were shown unfair, so the player who "
                           "chooses a side after the first placement wins easily")
        else:
            shown_unfair = sum(o.status == "unfair" for o in pie.openings)
            reasons.append(f"{shown_unfair} of {pie.tested} openings played out ({chosen}) were shown unfair and "
                           f"every one's 95% interval lies outside {band}, so the pie value is below "
                           f"{pct(cfg.fair_low)} with confidence: the player who chooses a side after the first "
                           "placement wins easily")
        return "lopsided", reasons
    undecided = [o for o in pie.openings if o.status == "undecided" and not o.disputed]
    given_up = sum(o.abandoned for o in undecided)
    detail = f" ({given_up} given up early as clearly not even)" if given_up else ""
    shown = {0: "no opening", 1: "only 1 opening"}.get(len(fair), f"only {len(fair)} openings")
    reasons.append(f"{shown} shown fair within {band} (need {cfg.min_fair_openings}); "
                   f"{len(undecided)} of {pie.tested} tested stayed undecided{detail}, "
                   f"{pie.games} games in all (cap {cfg.games} per opening)")
    reasons += _disputed(pie, cfg)
    if best is not None:
        reasons.append(f"closest to even: {describe_opening(best)}")
    return "inconclusive", reasons


def enough_fair(pie: PieResult, cfg: AnalysisConfig) -> bool:
    """Whether the openings shown fair so far make the board balanced: :attr:`AnalysisConfig.min_fair_openings`
    of them, :attr:`AnalysisConfig.min_undisputed` of those confirmed by every judge."""
    return len(pie.fair) >= cfg.min_fair_openings and len(pie.undisputed) >= cfg.min_undisputed


def fair_missing(pie: PieResult, cfg: AnalysisConfig) -> int:
    """Fair openings the run still has to find (for the progress line and the ETA)."""
    return max(cfg.min_fair_openings - len(pie.fair), cfg.min_undisputed - len(pie.undisputed), 0)


def _balanced_undisputed(pie: PieResult, cfg: AnalysisConfig, band: str, firm: str) -> list[str]:
    """The thorough rule's reasons: the undisputed openings by name, then each disputed one with every judge's
    figure, so a reader sees whom the board is even for."""
    fair, undisputed = pie.fair, pie.undisputed
    judges = " and ".join(pie.judges)
    reasons = [f"{len(fair)} distinct first placements keep the game within {band} for S1 (needed "
               f"{cfg.min_fair_openings}), so the second player faces a real swap decision; "
               f"{_count(len(undisputed), 'of them is', 'of them are')} undisputed by every judge "
               f"({judges}{firm}; needed {cfg.min_undisputed}), so the board is even whichever strong engine plays it"]
    reasons += [f"fair opening, undisputed: {describe_opening(o)}" for o in undisputed[:3]]
    return reasons + _fair_but_disputed(pie, [o for o in fair if o.disputed][:3])


def _engines_disagree(pie: PieResult, cfg: AnalysisConfig, band: str) -> list[str]:
    """Enough openings fair for the deciding agent, every one disputed: not a lack of play but strong engines of
    different kinds judging the board differently, said in those words."""
    fair = pie.fair
    reasons = [f"strong engines of different kinds disagree about this board: {len(fair)} distinct first "
               f"placements keep the game within {band} for S1 (needed {cfg.min_fair_openings}), but for "
               f"{'each' if len(fair) > 1 else 'it'} a judge ({' or '.join(pie.judges)}) finds S1's chance one-sided, "
               f"and at least {cfg.min_undisputed} must be undisputed; more play by the same engines would not "
               "settle it"]
    return reasons + _fair_but_disputed(pie, fair[:3])


def _fair_but_disputed(pie: PieResult, openings: list[OpeningResult]) -> list[str]:
    """One reason per opening fair for the deciding agent that a judge disputed, with every judge's figure."""
    return [f"fair opening for {pie.agent}, disputed by {' and '.join(j.agent for j in o.disputed_by)}: "
            f"{describe_opening(o)}" for o in openings]


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _disputed(pie: PieResult, cfg: AnalysisConfig) -> list[str]:
    """Openings the deciding agent showed fair but the cross-check did not confirm: said, never dropped silently."""
    disputed = pie.disputed
    if not disputed:
        return []
    what = "1 opening" if len(disputed) == 1 else f"{len(disputed)} openings"
    by = sorted({j.agent for o in disputed for j in o.disputed_by}, key=list(pie.judges).index)
    return [f"{what} shown fair by {pie.agent} but not confirmed by {' and '.join(by)} (a judge's games show S1's "
            f"rate one-sided, outside {band_text((cfg.fair_low, cfg.fair_high))}, by its sequential test or by the "
            f"95% interval of all {cfg.check_test.games} games; or its check was cut short) and so "
            + ("counted fair for the deciding agent only" if cfg.counts_disputed else "not counted fair")
            + ": " + "; ".join(describe_opening(o) for o in disputed[:3])]


def side_warnings(per_agent: dict[str, AgentResult], strongest: str, cfg: AnalysisConfig) -> list[str]:
    """What a host should know beside the verdict: strength dependence, tie-break games, the mirror."""
    warnings: list[str] = []
    decided = {name: r.verdict for name, r in per_agent.items() if r.verdict != "inconclusive"}
    if len(set(decided.values())) > 1:
        warnings.append("strength-dependent: the verdict differs between agents ("
                        + ", ".join(f"{n}: {v}" for n, v in decided.items())
                        + f"); trust the strongest, {strongest}")
    warnings += weaker_play_disagrees(per_agent, strongest)
    for name, res in per_agent.items():
        raw = res.raw
        if raw.games and raw.tie_break_share > cfg.tie_break_warning:
            warnings.append(f"{pct(raw.tie_break_share)} of {name} games end level and are decided by the "
                            "last-mover tie rule: symbols matter little on this board")
        # only games in which S2 really mirrored every move speak for the mirror strategy (in the others
        # the mirror image was illegal at some point and S2's agent played on by itself)
        if raw.mirror_games >= 10 and raw.mirror_full_wins / raw.mirror_games > cfg.mirror_warning:
            low, high = wilson(raw.mirror_full_wins, raw.mirror_games)
            warnings.append(f"mirror strategy: answering each {name} move with its 180-degree image wins "
                            f"{pct(raw.mirror_full_wins / raw.mirror_games)} {ci_pct(low, high)} of "
                            f"{raw.mirror_games} games")
    return warnings


def shown_fair(n: int) -> str:
    return {0: "no opening was", 1: "only 1 opening was"}.get(n, f"only {n} openings were") + " shown fair"


def weaker_play_disagrees(per_agent: dict[str, AgentResult], decider: str) -> list[str]:
    """Strength dependence, said out loud: a weaker agent that finds the board fairer than the deciding one."""
    main = per_agent[decider]
    out: list[str] = []
    for name, res in per_agent.items():
        if name == decider:
            continue
        more_fair = len(res.pie.fair) > len(main.pie.fair)
        if res.verdict == "balanced" and main.verdict != "balanced":
            out.append(f"fair for {name} play; for {decider} play {shown_fair(len(main.pie.fair))} "
                       f"(the verdict holds for {decider} play)")
        elif more_fair:
            out.append(f"{len(res.pie.fair)} openings were shown fair for {name} play; for {decider} play "
                       f"{shown_fair(len(main.pie.fair))}")
    return out


def lopsided_possible(pie: PieResult, cfg: AnalysisConfig) -> bool:
    """Whether the openings played out so far still allow a ``lopsided`` verdict: each shown unfair or with its 95%
    interval outside the fair band (an opening shown fair, or left near it, rules it out)."""
    return all(o.status == "unfair" or o.ci95[1] < cfg.fair_low or o.ci95[0] > cfg.fair_high for o in pie.openings)


def futile(wins: int, games: int, cfg: AnalysisConfig) -> bool:
    """Stop playing an opening that will almost surely not be shown fair, to spend the games elsewhere.

    After ``futility_games`` games, an opening whose 95% interval excludes 50% but still reaches
    into the fair band sits where the SPRTs are slowest; it is left undecided.  Openings
    whose interval lies wholly outside the band, or whose rate is already beyond the SPRTs' H1
    rates, are played on, because the SPRT will soon show them unfair, which the ``lopsided``
    verdict needs.  Only the budget is affected:
    "fair" and "unfair" still come from the SPRTs alone.
    """
    if games < cfg.futility_games:
        return False
    low, high = wilson(wins, games, FUTILITY_CONFIDENCE)
    excludes_even = low > 0.5 or high < 0.5
    touches_band = high >= cfg.fair_low and low <= cfg.fair_high
    # beyond the SPRTs' H1 rates the walk drifts to "unfair" and soon gets there; giving up such an
    # opening (e.g. 30 of 40 at a true 85%) left it undecided and the verdict inconclusive instead of lopsided
    rate = wins / games
    stuck = cfg.fair_low - cfg.sprt_margin <= rate <= cfg.fair_high + cfg.sprt_margin
    return excludes_even and touches_band and stuck


def check_disputes(wins: int, cfg: AnalysisConfig) -> bool:
    """The rule for a check its sequential test left undecided after all its games (``cfg.check_test.games``):
    ``wins`` S1 wins dispute the opening when their 95% interval lies wholly outside the fair band."""
    low, high = wilson(wins, cfg.check_test.games)
    return low > cfg.fair_high or high < cfg.fair_low


def check_pair(cfg: AnalysisConfig) -> SprtPair:
    """The cross-check's sequential test, the one ``cfg.check_test`` names (see
    :data:`~core.analysis.config.CHECK_GAMES` and :data:`~core.analysis.config.FIRM_CHECK_GAMES`)."""
    rule = cfg.check_test
    return SprtPair.with_levels(high=rule.high, low=rule.low, alpha=rule.alpha, beta=rule.beta)


def check_outcome(pair: SprtPair, cfg: AnalysisConfig) -> bool | None:
    """Whether the check so far disputes the opening (None while it cannot tell): the SPRT pair's decision, or at
    the rule's last game the full-sample rule :func:`check_disputes`."""
    if pair.decided:
        return pair.status == "outside"
    if pair.trials >= cfg.check_test.games:
        return check_disputes(pair.successes, cfg)
    return None


def sprt_pair(cfg: AnalysisConfig) -> SprtPair:
    """The two one-sided SPRTs that decide one opening: inside the fair band, or outside it."""
    m = cfg.sprt_margin
    return SprtPair.with_levels(high=(cfg.fair_high - m, cfg.fair_high + m), low=(cfg.fair_low + m, cfg.fair_low - m))
