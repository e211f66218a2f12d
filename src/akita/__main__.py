"""``python -m akita`` runs the command line."""

from akita.cli import main

main()
