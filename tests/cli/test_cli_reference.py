"""The generated command reference covers the live command line, so it cannot drift."""

import importlib.util
import re
import sys

import click
import pytest

from akita.cli import cli
from repo import DOCS

EXT = DOCS / "_ext" / "cli_reference.py"


@pytest.fixture(scope="module")
def reference():
    if str(EXT.parent) not in sys.path:  # as docs/conf.py puts it, for its shared helper
        sys.path.insert(0, str(EXT.parent))
    spec = importlib.util.spec_from_file_location("cli_reference", EXT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("cli_reference", module)
    spec.loader.exec_module(module)
    return module


def _sections(text: str) -> dict[str, str]:
    """The generated text cut at each ``.. _cli-...:`` label, keyed by label."""
    parts = re.split(r"^\.\. _(cli-[\w-]+):$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def _walk(command, ctx):
    yield command, ctx
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            yield from _walk(sub, click.Context(sub, info_name=name, parent=ctx, **sub.context_settings))


def _live():
    return list(_walk(cli, click.Context(cli, info_name="akita", **cli.context_settings)))


def test_every_command_has_a_labelled_section(reference):
    sections = _sections(reference.generate())
    paths = [ctx.command_path for _, ctx in _live()]
    assert {"akita admit", "akita simulate", "akita check", "akita prove", "akita verify",
            "akita conform", "akita reproduce"} <= set(paths)
    assert sorted(sections) == sorted(reference.label(path) for path in paths)
    for path in paths:
        section = sections[reference.label(path)]
        assert f"``{path}``" in section
        assert re.search(rf"^   {re.escape(path)} ", section, flags=re.M), f"no usage line for {path}"


def test_every_option_and_argument_is_in_its_section(reference):
    sections = _sections(reference.generate())
    for command, ctx in _live():
        section = sections[reference.label(ctx.command_path)]
        first = " ".join(command.help.split()).split(".")[0]
        assert reference._text(first) in " ".join(section.split()), ctx.command_path
        for param in command.get_params(ctx):
            if isinstance(param, click.Argument):
                assert f"``{param.make_metavar(ctx)}``" in section, (ctx.command_path, param.name)
                continue
            for name in param.opts + param.secondary_opts:
                assert f"``{name}``" in section, (ctx.command_path, name)
            if param.help:
                assert reference._text(param.help) in section, (ctx.command_path, param.opts)
            if isinstance(param.type, click.Choice):
                for choice in param.type.choices:
                    assert f"``{choice}``" in section, (ctx.command_path, param.opts, choice)


def test_defaults_and_flags_are_shown(reference):
    section = _sections(reference.generate())["cli-conform"]
    rows = section.split("   * - ")
    (ties,) = [row for row in rows if row.startswith("``--ties``")]
    assert "one of ``any``, ``strict``" in ties and "``any``" in ties
    (keep,) = [row for row in rows if row.startswith("``--max``")]
    assert "``10``" in keep and "x>=1" in keep
    (mapping,) = [row for row in rows if row.startswith("``--map``")]
    assert "``TASK=VM/i``, repeatable" in mapping
    (json_flag,) = [row for row in rows if row.startswith("``--json``")]
    assert "flag" in json_flag and "off" in json_flag


def test_a_changed_cli_changes_the_reference(reference):
    """The generator reads the click objects; it holds no list of its own."""

    @click.group()
    def tool():
        """A tool."""

    @tool.command()
    @click.argument("src", metavar="SRC")
    @click.option("--level", type=click.Choice(["low", "high"]), default="low", help="How hard.")
    @click.option("--fast/--slow", default=True, help="Speed.")
    def go(src, level, fast):
        """Go somewhere_special with *care*.

        - not a list item
        """

    text = reference.generate(tool, prog="tool")
    sections = _sections(text)
    assert sorted(sections) == ["cli-go", "cli-tool"]
    go_section = sections["cli-go"]
    assert "   tool go [OPTIONS] SRC" in go_section
    assert "somewhere\\_special with \\*care\\*" in go_section
    assert "\\- not a list item" in go_section
    assert "``--fast`` / ``--slow``" in go_section and "one of ``low``, ``high``" in go_section


def test_the_build_writes_the_page(reference, tmp_path):
    class App:
        srcdir = str(tmp_path)

    reference.write_reference(App)
    page = tmp_path / "_generated" / "cli-reference.rst"
    assert page.read_text(encoding="utf-8") == reference.generate()
    mtime = page.stat().st_mtime_ns
    reference.write_reference(App)  # unchanged text: the file is left alone
    assert page.stat().st_mtime_ns == mtime
