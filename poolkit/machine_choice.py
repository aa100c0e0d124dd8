"""Which version of a machine judge a command reads: one rule for every command that takes a
judge's labels from the store (``export --with-machine`` and ``--machine-only``, ``compare``,
``reusability``, ``estimate --machine``, ``sample-queries --machine``, ``agreement
--with-machine``, ``judge --review-machine``, ``pool.judge_order:``), and the default
``status`` marks.

- ``NAME@VERSION``: exactly that version; it must hold a standing grade in the store.
- ``NAME`` where the judge has more than one version in the store, in the commands whose
  figures stand for a judge (``estimate``, ``export --with-machine`` and ``--machine-only``,
  ``agreement``, ``check-judge``: ``strict``): refused, listing the versions. A
  ``--variant``'s, a ``--paraphrases`` set's or an earlier definition's grades must never
  become those figures because a name was short; the reader names the one it means.
- ``NAME``, a judge of the config's ``judges:``, elsewhere (``compare``, ``reusability``,
  ``sample-queries --machine``, ``judge --review-machine``, ``pool.judge_order:``, the
  default ``status`` marks), or of one version in the store: the version ``poolkit autojudge --judge
  NAME`` records for the judge as the config defines it now
  (``judges.config.configured_version``). A ``--variant``'s version, or one of an earlier
  definition, is read only when named, however recently it graded; if the configured
  version has graded nothing, the command refuses and lists the versions that have. A kind
  whose version each run decides (a ``cross-encoder`` fitting its thresholds on the people's
  grades of the moment) takes the version of its last run.
- ``NAME``, a judge the config does not define (labels imported with ``import --machine``,
  a judge since taken out of the config): its one version; of several, the command refuses
  and lists them.

Every version read leaves out the grades of flagged passages (``judges.flags``: text aimed at
the grader) unless the config's ``judges.NAME.flagged: machine`` counts them: a judge the
config does not define leaves them out (``flagged: human``, the default), so the pair is
left for people, in every command above.

A refusal is one line naming the store and the flag, and lists each version as
``NAME@VERSION (N grades)``, ready to be given back.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from poolkit.errors import StoreError, one_of
from poolkit.policies import MachineVersion, machine_names, machine_versions

if TYPE_CHECKING:
    from poolkit.config import Config
    from poolkit.store.contract import StoreBackend


class MachineChoice:
    """The machine judges of ``store`` as ``config`` (None: no config, every judge taken as
    one it does not define) names them; ``where`` (the store as messages name it) begins
    every refusal. Each judge's events are read once."""

    def __init__(self, store: StoreBackend, where: str, config: Config | None = None) -> None:
        self.store, self.where, self.config = store, where, config
        self._versions: dict[str, list[MachineVersion]] = {}
        self._known: list[str] | None = None

    def chosen(self, names: Iterable[str] | None, flag: str,
               strict: bool = False) -> list[MachineVersion]:
        """The versions ``names`` ask for (repeated, or ``a,b``), in order."""
        return [self.choose(spec, flag, strict) for spec in machine_names(names)]

    def choose(self, spec: str, flag: str, strict: bool = False) -> MachineVersion:
        """The version ``spec`` (``NAME`` or ``NAME@VERSION``) names, or a StoreError
        ``WHERE: FLAG: why`` (see the module; ``strict``: a bare NAME of several versions
        is refused)."""
        found = self.pick(spec, strict)
        if isinstance(found, str):
            raise StoreError(f"{self.where}: {flag}: {found}")
        return found

    def pick(self, spec: str, strict: bool = False) -> MachineVersion | str:
        """The version ``spec`` names, or why there is none (a message without its place)."""
        judge, at, version = spec.partition("@")
        if not judge or (at and not version):
            return f"{spec!r}: write NAME or NAME@VERSION"
        if judge not in self.known():
            return one_of(judge, self.known(), "machine judge")
        versions = self.versions(judge)
        if not versions:
            return f"machine judge {judge!r} has no standing grade"
        if not at and strict and len(versions) > 1:
            return (f"machine judge {judge!r} has {len(versions)} versions in the store; "
                    f"name one: {listed(versions)}")
        if not at:
            return self.default(judge)
        match = [m for m in versions if m.version == version]
        if not match:
            return one_of(version, [m.version for m in versions],
                          f"version of machine judge {judge!r}")
        return match[0]

    def default(self, judge: str) -> MachineVersion | str:
        """The version a bare ``judge`` (one with a standing grade) names, or why none does
        (see the module)."""
        versions = self.versions(judge)
        judges = self.config.judges if self.config is not None else {}
        if judge not in judges:
            if len(versions) == 1:
                return versions[0]
            undefined = (f" and {self.config.path} defines no judge {judge!r}"
                         if self.config is not None else "")
            return (f"machine judge {judge!r} has {len(versions)} versions{undefined}; name "
                    f"one: {listed(versions)}")
        from poolkit.judges.config import configured_version

        assert self.config is not None
        configured = configured_version(judges[judge], self.config.grades)
        if configured is None:  # each run decides it: the last run's
            return versions[-1]
        match = [m for m in versions if m.version == configured]
        if match:
            return match[0]
        return (f"machine judge {judge!r} as {self.config.path} defines it (version "
                f"{configured}) has graded nothing; run poolkit autojudge --judge {judge}, "
                f"or name a version: {listed(versions)}")

    def known(self) -> list[str]:
        """The machine judges with an event in the store."""
        if self._known is None:
            self._known = self.store.machine_judges()
        return self._known

    def versions(self, judge: str) -> list[MachineVersion]:
        """Every version of ``judge`` in the store, oldest first (``machine_versions``)."""
        if judge not in self._versions:
            self._versions[judge] = machine_versions(self.store, judge,
                                                     count_flagged=self.counts_flagged(judge))
        return self._versions[judge]

    def counts_flagged(self, judge: str) -> bool:
        """Whether ``judge``'s grades of flagged passages count: its ``flagged: machine``
        in the config (a judge the config does not define: no)."""
        spec = self.config.judges.get(judge) if self.config is not None else None
        return spec is not None and spec.flagged == "machine"

    def max_failures(self, judge: str) -> int:
        """The failures on a pair after which ``judge`` leaves it for people: its
        ``max_failures`` in the config, else the default."""
        from poolkit.judges.config import DEFAULT_MAX_FAILURES

        spec = self.config.judges.get(judge) if self.config is not None else None
        return int(spec.max_failures) if spec is not None else DEFAULT_MAX_FAILURES


def trust_gate(store: StoreBackend, version: MachineVersion, where: str, flag: str, *,
               accept: bool = False, config: str = "CONFIG") -> str | None:
    """Refuse ``version`` when its latest ``poolkit check-judge`` marked it untrusted (a
    canary kind fooled it more often than the check's ``--max-fooled``): a StoreError
    ``WHERE: FLAG: why``, naming the kind, its rate and the command that checked it, unless
    ``accept`` (``--accept-untrusted``). Returns the line the command says on stderr once it
    has done its work: for a version never checked (used all the same), or an untrusted one
    accepted; None for a trusted one. ``config``: the config's path as the commands given in
    messages name it."""
    check = store.latest_judge_check(version.judge, version.version)
    again = f"poolkit check-judge {config} --judge {version.label}"
    if check is None:
        return (f"note: machine judge {version.label} was never checked for gullibility "
                f"({again})")
    if check.trusted:
        return None
    from poolkit.judges.canaries import KINDS

    summary = check.summary  # the worst kind; of two as bad, the first of KINDS
    kind = max((k for k in KINDS if k in summary),
               key=lambda k: (summary[k]["rate"] is None, summary[k]["rate"] or 0.0))
    doc = summary[kind]
    why = (f"no `{kind}` canary got a grade" if doc["rate"] is None else
           f"{doc['fooled']} of {doc['graded']} `{kind}` canaries fooled it (rate "
           f"{doc['rate']:.2f} > --max-fooled {check.max_fooled:g})")
    line = f"machine judge {version.label} is untrusted: {why}; see {again}"
    if accept:
        return f"note: {line}; used all the same (--accept-untrusted)"
    raise StoreError(f"{where}: {flag}: {line}, or pass --accept-untrusted")


def listed(versions: Iterable[MachineVersion]) -> str:
    """``NAME@VERSION (N grades)``, comma-separated, the last graded first."""
    return ", ".join(f"{v.label} ({len(v.grades)} grade{'s' if len(v.grades) != 1 else ''})"
                     for v in sorted(versions, key=lambda m: -m.last_event))


def chosen_machines(store: StoreBackend, names: Iterable[str] | None, where: str,
                    flag: str = "--with-machine") -> list[MachineVersion]:
    """The machine judge versions ``names`` ask for, read without a config: ``NAME@VERSION``
    that one, ``NAME`` a judge's only version (a command holding a config asks
    ``Collection.machines``, whose bare NAME is the configured judge's version). An unknown
    judge or version, or a NAME of several versions, is a StoreError (``where: FLAG: ...``)."""
    return MachineChoice(store, where).chosen(names, flag)


__all__ = ["MachineChoice", "chosen_machines", "listed", "trust_gate"]
