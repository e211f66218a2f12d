"""The reference scheduler: a deterministic discrete-event simulation of a host.

Planned: this package is a placeholder for the namespace and holds no code yet.
"""

__all__: list[str] = []
