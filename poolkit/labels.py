"""Old name of :mod:`poolkit.policies` (label policies and golden.yaml provenance); kept so
code written against it still imports. New code imports poolkit.policies."""

from poolkit.policies import (
    DEFAULT_POLICY,
    POLICIES,
    Labels,
    Policy,
    Unresolvable,
    Unresolved,
    Vote,
    current_labels,
    get_policy,
    provenance,
)

__all__ = ["DEFAULT_POLICY", "POLICIES", "Labels", "Policy", "Unresolvable", "Unresolved", "Vote",
           "current_labels", "get_policy", "provenance"]
