"""``akita import-rtapp FILE.json``: the host an rt-app use case describes (docs/kernel.rst)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from akita.model import ModelError, host_json

__all__ = ["import_rtapp"]


@click.command("import-rtapp", short_help="Read an rt-app use case as a host file.")
@click.argument("use_case", metavar="FILE.json", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write the host file here (default: stdout).")
@click.option("--json", "as_json", is_flag=True,
              help="Print {host, notes} as one JSON document on stdout.")
def import_rtapp(use_case: str, output: str | None, as_json: bool) -> int:
    """Read an rt-app JSON use case as a host file: one VM a thread (threads NAME-0 ..
    NAME-(n-1) with the same events are one VM of n vCPUs).

    What a host file says differently is noted on stderr (under --json, in
    "notes"); what it cannot say is refused with the thread named (exit status 2).
    """
    from akita.linux.rtapp import host_file_text, loads_use_case, read_use_case

    try:
        text = Path(use_case).read_text()
    except UnicodeDecodeError:
        raise ModelError("json", "bytes that are not UTF-8", "an rt-app use case (JSON)",
                         path=use_case) from None
    document = loads_use_case(text, source=use_case)
    host, notes = read_use_case(document, source=use_case)
    text = host_file_text(host, use_case, notes)
    if output is not None:
        Path(output).write_text(text)
    if as_json:
        click.echo(json.dumps({"file": use_case, "output": output, "host": host_json(host),
                               "notes": [n.as_json() for n in notes]}))
    else:
        for note in notes:
            click.echo(f"akita: note: {use_case}: {note}", err=True)
        if output is None:
            click.echo(text, nl=False)
    return 0
