"""Proof obligations about the model, discharged by Z3.

Planned: this package is a placeholder for the namespace and holds no code yet.
"""

__all__: list[str] = []
