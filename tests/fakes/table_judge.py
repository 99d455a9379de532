"""An entailment judge for citation metrics that entails exactly the pairs a test gives it."""

from __future__ import annotations


class TableJudge:
    """Entails exactly the (premise, claim) pairs it is given; counts its calls."""

    def __init__(self, supported: set[tuple[str, str]]) -> None:
        self.supported = supported
        self.calls = 0

    def entails(self, premise: str, claim: str, *, question: str = "") -> bool:
        self.calls += 1
        return (premise, claim) in self.supported
