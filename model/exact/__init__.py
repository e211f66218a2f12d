"""Exact admission for Akita: explicit-state reachability over one pCPU's finite abstraction."""
