"""The reference scheduler: a deterministic discrete-event simulation of a host.

Not built yet; see the project's issue tracker.
"""

__all__: list[str] = []
