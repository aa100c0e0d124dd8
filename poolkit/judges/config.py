"""The config's ``judges:`` section: one machine judge per name, checked against its kind.

::

    judges:
      llm: {kind: openai, base_url: "http://127.0.0.1:8080/v1", model: llama-3.3-70b,
            concurrency: 8, temperature: 0, prompt: judge-prompt.txt}

Each judge's keys are the common ones (``COMMON_JUDGE_PARAMS``: ``kind``; ``flagged``, whether
its grade of a flagged passage counts, ``human`` leaving it for people or ``machine``
counting it, ``judges.flags``; ``max_failures``, the runs that may fail on a pair before it is
left for people; ``family``, its model family, for the circularity marks) plus the options
its kind declares (``JudgeKind.options``, checked by ``params.Param``); an unknown key, a
wrong type, a missing required key or a prompt file whose placeholders are wrong is a
ConfigError naming the file and line, with a did-you-mean. ``poolkit.config`` calls
:func:`parse_judges` with the section's node.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from poolkit.errors import ConfigError, PoolkitError, did_you_mean, one_of, shown
from poolkit.io.common import decode, read_bytes
from poolkit.io.validate import check_assessor
from poolkit.io.yamlnodes import line_of, to_python
from poolkit.judges import JUDGE_KINDS
from poolkit.judges.prompt import BUILTIN_TEMPLATE, TemplateProblem, check_template
from poolkit.params import Param, ParamError

#: failed runs on a pair before autojudge leaves it for people (``max_failures:``)
DEFAULT_MAX_FAILURES = 3

#: the keys every judge takes, whatever its kind (its kind's own: ``JudgeKind.options``)
COMMON_JUDGE_PARAMS = (
    Param("kind", (str,), None, "which kind of judge (required): one of the kinds below"),
    Param("flagged", (str,), "human", "a passage flagged as written for the grader (judges."
                                      "flags): human leaves its grade for people, machine "
                                      "counts it (it stays flagged)",
          choices=("human", "machine")),
    Param("max_failures", (int,), DEFAULT_MAX_FAILURES,
          "failed answers on a pair, across runs, before it is left for people (autojudge "
          "--retry-failed asks again)",
          minimum=1),
    Param("family", (str,), None, "the judge's model family (e.g. llama, qwen): runs of a "
          "system of the same family are marked by score, estimate and check-judge "
          "(circularity); not part of the judge version"),
)
COMMON_JUDGE_KEYS = tuple(p.key for p in COMMON_JUDGE_PARAMS)


@dataclass(frozen=True)
class JudgeSpec:
    """One configured judge: its name (the assessor its events are recorded under), its
    kind, every option of the kind (defaults filled in) and its prompt template."""

    name: str
    kind: str
    settings: dict[str, Any] = field(default_factory=dict)
    template: str = BUILTIN_TEMPLATE
    template_source: str = "built-in"   # or the prompt file's path
    line: int | None = None
    #: a flagged pair's grade: "human" (left for people) or "machine" (counted)
    flagged: str = "human"
    #: failed answers on a pair, across runs, before autojudge leaves it for people
    max_failures: int = DEFAULT_MAX_FAILURES
    family: str | None = None           # its model family (circularity marks)


def template_on(spec: JudgeSpec, scale: Any) -> str:
    """The judge's template on the collection's ``scale``: a config's own as written (its
    ``{scale}`` is the scale's rubric), the built-in one asking for a digit of the scale."""
    from poolkit.judges.prompt import builtin_template

    return builtin_template(scale) if spec.template_source == "built-in" else spec.template


def configured_version(spec: JudgeSpec, scale: Any) -> str | None:
    """The version ``autojudge --judge NAME`` records for the judge as the config defines it
    on the collection's ``scale`` (``JudgeKind.configured_version``; None where a run
    decides it)."""
    from poolkit.judges import judge_kind, on_scale

    return judge_kind(spec.kind).configured_version(on_scale(spec.settings, scale),
                                                    template_on(spec, scale))


def parse_judges(path: Path, node: yaml.Node, base: Path) -> dict[str, JudgeSpec]:
    """The ``judges:`` mapping of the config at ``path`` (relative files from ``base``)."""
    if not isinstance(node, yaml.MappingNode):
        raise ConfigError(path, line_of(node), "judges must be a mapping of name -> "
                                               "{kind: ...}")
    judges: dict[str, JudgeSpec] = {}
    for k, v in node.value:
        name = str(k.value)
        where = f"judges.{name}"
        if name in judges:
            raise ConfigError(path, line_of(k), f"judges: {name!r} appears twice")
        try:
            check_assessor(name, f"{where}: judge name")
        except PoolkitError as exc:
            raise ConfigError(path, line_of(k), str(exc)) from None
        judges[name] = _judge(path, base, name, k, v)
    return judges


def _judge(path: Path, base: Path, name: str, key: yaml.Node, node: yaml.Node) -> JudgeSpec:
    where = f"judges.{name}"
    if not isinstance(node, yaml.MappingNode):
        raise ConfigError(path, line_of(node), f"{where} must be a mapping ({{kind: ...}})")
    items: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for k, v in node.value:
        if str(k.value) in items:
            raise ConfigError(path, line_of(k), f"{where}: key {str(k.value)!r} appears twice")
        items[str(k.value)] = (k, v)
    if "kind" not in items:
        raise ConfigError(path, line_of(key), f"{where} needs 'kind:' "
                                              f"(one of {', '.join(sorted(JUDGE_KINDS))})")
    kind_name = to_python(items["kind"][1])
    if not isinstance(kind_name, str) or kind_name not in JUDGE_KINDS:
        raise ConfigError(path, line_of(items["kind"][1]), f"{where}: "
                          + one_of(str(kind_name), JUDGE_KINDS, "judge kind"))
    kind = JUDGE_KINDS[kind_name]
    allowed = COMMON_JUDGE_KEYS + kind.keys
    for k_name, (k_node, _) in items.items():
        if k_name not in allowed:
            raise ConfigError(path, line_of(k_node), one_of(k_name, allowed, f"key in {where}"))
    for required in kind.required:
        if required not in items:
            raise ConfigError(path, line_of(key), f"{where} needs '{required}:'")
    common = _checked(path, where, COMMON_JUDGE_PARAMS[1:], items)
    settings = _checked(path, where, kind.options, items)
    if settings.get("path"):  # a model file or folder (local, cross-encoder)
        settings["path"] = _model_path(path, base, where, str(settings["path"]),
                                       line_of(items["path"][1]))
    template, source = BUILTIN_TEMPLATE, "built-in"
    if settings.get("prompt"):
        template, source = _prompt_file(path, base, where, str(settings["prompt"]),
                                        line_of(items["prompt"][1]))
    return JudgeSpec(name=name, kind=kind_name, settings=settings, template=template,
                     template_source=source, line=line_of(key), **common)


def _checked(path: Path, where: str, params: tuple[Param, ...],
             items: dict[str, tuple[yaml.Node, yaml.Node]]) -> dict[str, Any]:
    """Each of ``params``' values as given (checked; a ConfigError at its line) or its
    default."""
    out: dict[str, Any] = {}
    for param in params:
        if param.key in items:
            value_node = items[param.key][1]
            try:
                out[param.key] = param.check(to_python(value_node), where)
            except ParamError as exc:
                raise ConfigError(path, line_of(value_node), str(exc)) from None
        else:
            out[param.key] = param.default
    return out


def _model_path(path: Path, base: Path, where: str, value: str, line: int) -> str:
    """``path:`` made absolute from the config's folder; it must exist."""
    model = (base / value).resolve()
    if not model.exists():
        raise ConfigError(path, line, f"{where}.path: no such file or folder {model}"
                                      f"{_near(model)}")
    return str(model)


def _near(file: Path) -> str:
    """A did-you-mean among the names beside a missing ``file``."""
    if not file.parent.is_dir():
        return ""
    return did_you_mean(file.name, [p.name for p in file.parent.iterdir()])


def _prompt_file(path: Path, base: Path, where: str, value: str,
                 line: int) -> tuple[str, str]:
    """The template text of ``prompt: FILE``, its placeholders checked."""
    file = (base / value).resolve()
    if not file.is_file():
        raise ConfigError(path, line, f"{where}.prompt: no such file {file}{_near(file)}")
    text = decode(file, read_bytes(file))
    try:
        check_template(text)
    except TemplateProblem as exc:
        if exc.line is not None:
            raise ConfigError(file, exc.line, f"{where}.prompt: {exc}") from None
        raise ConfigError(path, line, f"{where}.prompt: {shown(str(file))}: {exc}") from None
    return text, str(file)


__all__ = ["COMMON_JUDGE_KEYS", "COMMON_JUDGE_PARAMS", "JudgeSpec", "configured_version",
           "parse_judges", "template_on"]
