"""The judging UI (Textual): ``session`` holds the rules, ``app``/``screens``/``widgets`` draw.

Importing this package does not import Textual; ``poolkit.judge.app`` does.
"""
