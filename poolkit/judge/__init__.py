"""The judging UI (Textual): ``session`` holds the rules; ``app``, ``screens``, ``dialogs`` and
``widgets`` draw, in the words of ``texts``.

Importing this package does not import Textual; ``poolkit.judge.app`` does.
"""
