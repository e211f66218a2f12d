"""Output paths are checked before the work: one line, exit status 2, never a traceback."""

import pytest

from akita.cli.outputs import writable_file, writable_folder
from akita.model import ModelError


@pytest.mark.parametrize("path", ["/nonexistent/dir/t.jsonl", "/proc/nope"])
def test_a_file_that_cannot_be_written_is_bad_input(path):
    with pytest.raises(ModelError) as error:
        writable_file("--trace", path)
    assert error.value.field == "--trace" and error.value.value == path
    assert "can be written" in error.value.expected


def test_a_folder_is_not_a_file(tmp_path):
    with pytest.raises(ModelError, match="Is a directory"):
        writable_file("--trace", tmp_path)


def test_a_writable_file_is_left_as_it_was(tmp_path):
    new, old = tmp_path / "new.jsonl", tmp_path / "old.jsonl"
    old.write_text("kept")
    writable_file("--trace", new)
    writable_file("--trace", old)
    assert not new.exists() and old.read_text() == "kept"


def test_a_folder_is_made_or_refused(tmp_path):
    writable_folder("--out", tmp_path / "a" / "b")
    assert (tmp_path / "a" / "b").is_dir()
    with pytest.raises(ModelError, match="--out"):
        writable_folder("--out", "/proc/nope")
