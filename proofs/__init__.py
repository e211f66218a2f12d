"""Proof obligations about the model, discharged by Z3.

Not built yet; see the project's issue tracker.
"""

__all__: list[str] = []
