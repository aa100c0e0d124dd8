"""The use cases: one module per verb, between the stages and the command line.

A verb takes a typed request (a frozen dataclass, or plain typed arguments), combines the
stages (``store``, ``pool``, ``judge``, ``score``, ``analysis``, the ``collection``) and returns
a typed report (:class:`poolkit.reports.Report`) that renders itself in every format it has.
Nothing here parses arguments or prints: ``poolkit/cli`` turns argv into a request, calls the
verb and writes ``report.render(fmt)``; tests, benchmarks and users' scripts call the verbs
directly (``from poolkit import score_runs``, ...).

Layering: ``app`` sits above ``collection`` and below ``cli``; a verb may call another verb.
"""
