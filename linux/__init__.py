"""Akita's host files on this machine's Linux: real tasks, the kernel's own schedulers."""
