"""The config's ``pool:`` section, checked against the strategy registries.

``config.py`` reads the section's keys with their lines; what they may be is declared here,
by the stage that uses them: ``pool.order`` names a judging-order strategy
(``order.ORDER_STRATEGIES``), ``pool.strategy`` a pooling strategy
(``pooling.POOLING_STRATEGIES``), and every other key must be a parameter some registered
strategy declares, of the declared type and within its bounds. ``Collection.open`` runs this
check, so every command refuses a bad pool section before it does anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from poolkit.config import POOL_KEYS, POOL_PARAMS, Config
from poolkit.errors import ConfigError, one_of
from poolkit.params import Param, ParamError
from poolkit.pool.budget import Budget
from poolkit.pool.order import ORDER_STRATEGIES, OrderStrategy, order_strategy
from poolkit.pool.pooling import POOLING_STRATEGIES, PoolingStrategy, pooling_strategy

if TYPE_CHECKING:
    from poolkit.pool.remaining import StopRule
    from poolkit.pool.stopping import StoppingRule


_CONFIDENCE = next(p for p in POOL_PARAMS if p.key == "stop_confidence")


def declared_params() -> dict[str, Param]:
    """Every ``pool:`` key a registered strategy declares (first declaration wins)."""
    out: dict[str, Param] = {}
    declared = [p for cls in ORDER_STRATEGIES.values() for p in cls.params]
    declared += [p for kind in POOLING_STRATEGIES.values() for p in kind.params]
    for param in declared:
        out.setdefault(param.key, param)
    return out


def check_pool_section(config: Config) -> None:
    """A ConfigError naming the file and line of the first bad ``pool:`` key, if any."""
    pool = config.pool

    def fail(key: str, message: str) -> None:
        raise ConfigError(config.path, pool.lines.get(key), message)

    params = declared_params()
    for key in pool.settings:
        if key not in POOL_KEYS and key not in params:
            fail(key, one_of(key, sorted({*POOL_KEYS, *params}), "key in pool"))
    for key, registry, what in (("order", ORDER_STRATEGIES, "judging order"),
                                ("strategy", POOLING_STRATEGIES, "pooling strategy")):
        value = pool.settings.get(key)
        if value is not None and (not isinstance(value, str) or value not in registry):
            fail(key, f"pool.{key}: " + one_of(str(value), registry, what))
    for key, param in params.items():
        if key in pool.settings:
            try:
                param.check(pool.settings[key], "pool")
            except ParamError as exc:
                fail(key, str(exc))
    if "budget" in pool.settings:
        try:
            Budget.parse(pool.settings["budget"])
        except ValueError as exc:
            fail("budget", f"pool.budget: {exc}")
    if "stop" in pool.settings:
        _check_stop(pool.settings["stop"], fail)
    for key in ("stop_recall", "stop_confidence"):
        value = pool.settings.get(key)
        if key in pool.settings and (isinstance(value, bool)
                                     or not isinstance(value, (int, float))
                                     or not 0 < value <= 1):
            fail(key, f"pool.{key} must be a number in (0, 1], found {value!r}")


def _check_stop(value: object, fail: Callable[[str, str], None]) -> None:
    """``pool.stop`` names a stopping rule a judging session can use (``stopping.STOP_RULES``,
    ``live``)."""
    from poolkit.pool.stopping import STOP_RULES

    live = [n for n, rule in STOP_RULES.items() if rule.live]
    if isinstance(value, str) and value in STOP_RULES and value not in live:
        fail("stop", f"pool.stop: {value} sets its threshold on queries judged whole and is "
                     f"replayed only (poolkit simulate --stop {value}); a judging session "
                     f"takes one of {', '.join(sorted(live))}")
    if not isinstance(value, str) or value not in live:
        fail("stop", "pool.stop: " + one_of(str(value), live, "stopping rule"))


def budget_of(config: Config) -> Budget | None:
    """``pool.budget``: judgments per query (a number or a fraction of its pool), or None."""
    value = config.pool.settings.get("budget")
    return None if value is None else Budget.parse(value)


def stop_rule_of(config: Config, target: float | None = None,
                 ) -> StopRule | StoppingRule | None:
    """The stopping rule of ``pool:``, or None: ``stop: NAME`` (``stopping.STOP_RULES``, the
    rules ``simulate --stop`` replays) at recall ``stop_recall`` (default 0.9); without
    ``stop:`` (or ``stop: model``), the model rule once ``stop_recall`` is set. ``target``
    overrides ``stop_recall``."""
    settings = config.pool.settings
    target = target if target is not None else settings.get("stop_recall")
    name = settings.get("stop", "model")
    if target is None and "stop" not in settings:
        return None
    recall = float(target) if target is not None else 0.9
    confidence = float(settings.get("stop_confidence", _CONFIDENCE.default))
    if name == "model":
        from poolkit.pool.remaining import StopRule  # NumPy: only when a rule is asked for

        return StopRule(target=recall, confidence=confidence)
    from poolkit.pool.stopping import stopping_rule

    return stopping_rule(name, recall, confidence)


def order_of(config: Config, name: str | None = None) -> OrderStrategy:
    """The judging-order strategy the config names (or ``name``), built from ``pool:``, for
    the store's pool and judging screen.

    ``order: judge`` without ``judge_order:`` has no grades to order by: refused here, one
    line, before any work (whether the judge is in the store is checked when judging starts,
    ``live_guides``: ``autojudge`` grades a pool that exists, so not at pooling)."""
    strategy = order_strategy(name or config.pool.order, config.pool.settings)
    if strategy.name == "judge" and not getattr(strategy, "judge", ""):
        raise ConfigError(config.path, config.pool.lines.get("order") if not name else None,
                          "pool.order: 'judge' orders by a machine judge's grades: name the "
                          "judge with pool.judge_order: NAME (one autojudge or import "
                          "--machine recorded)")
    return strategy


def pooling_of(config: Config) -> PoolingStrategy:
    """The pooling strategy the config names, built from ``pool:``."""
    return pooling_strategy(config.pool.strategy, config.pool.settings)
