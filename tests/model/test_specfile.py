"""One bounded TOML parse for every input file (akita.model.specfile, decision 264).

The parser raises ``ValueError`` for an integer of more digits than the interpreter
converts; every file reader turns it into its own one-line error naming the file and
the field ``toml`` -- the disk file's reader did not, and let the ``ValueError`` through.
"""

import sys

import pytest

from akita.disk.diskfile import DiskFileError, loads_disk_file
from akita.fleet import loads_spec as loads_fleet
from akita.model import HostFileError, ModelError, loads_host
from akita.model.specfile import parse_toml
from akita.sweep import loads_spec as loads_sweep

#: The least limit Python allows on the digits of an integer it converts from text.
DIGITS = 640


@pytest.fixture
def few_digits():
    """The interpreter converts integers of at most 640 digits while the test runs."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(DIGITS)
    yield "x = " + "7" * (DIGITS + 1) + "\n"  # one line, well under the line ceiling
    sys.set_int_max_str_digits(before)


READERS = {
    "host": (lambda text: loads_host(text, path="h.toml"), HostFileError),
    "sweep": (lambda text: loads_sweep(text, path="s.toml"), ModelError),
    "fleet": (lambda text: loads_fleet(text, path="f.toml"), ModelError),
    "disk": (lambda text: loads_disk_file(text, path="d.toml"), DiskFileError),
}


@pytest.mark.parametrize("name", sorted(READERS))
def test_every_reader_turns_the_parsers_value_error_into_its_own(name, few_digits):
    read, error_class = READERS[name]
    with pytest.raises(error_class) as caught:
        read(few_digits)
    error = caught.value
    assert error.field == "toml" and error.path is not None
    assert error.expected == "valid TOML of bounded numbers and nesting"
    assert "\n" not in str(error)


def test_a_syntax_error_is_valid_toml_expected():
    with pytest.raises(DiskFileError, match=r"^d.toml: field 'toml': expected valid TOML, got"):
        parse_toml("[run\n", path="d.toml", kind="disk file", error=DiskFileError)


def test_the_text_is_bounded_before_it_is_parsed():
    deep = "x = " + "[" * 40 + "]" * 40 + "\n"
    with pytest.raises(ModelError, match="nested at most"):
        parse_toml(deep, path="s.toml", kind="sweep file", error=ModelError)


def test_a_byte_order_mark_is_dropped():
    assert parse_toml("\ufeffa = 1\n", path=None) == {"a": 1}
