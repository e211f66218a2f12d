"""A smoke run of the command-line fuzz campaign (``bench/fuzz.py --cli``, in
``bench/fuzz_cli.py``): a few inputs of each format, no traceback, no hang, no
vacuous pass -- and the campaign's own counting, shown able to count each."""

import importlib.util
import time

import pytest

from repo import ROOT


@pytest.fixture(scope="module")
def fuzz_cli():
    spec = importlib.util.spec_from_file_location("fuzz_cli", ROOT / "bench" / "fuzz_cli.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("fmt", ["fleet", "sweep", "disk", "tracedat", "xentrace"])
def test_a_few_inputs_of_each_format_hold_up(fuzz_cli, tmp_path, fmt):
    figures = fuzz_cli.campaign(fmt, 6, 7, 60.0, tmp_path, say=lambda line: None)
    assert figures["runs"] == 6
    assert (figures["tracebacks"], figures["hangs"], figures["vacuous_passes"],
            figures["multi_line_errors"]) == (0, 0, 0, 0), figures["findings"]
    assert sum(figures["statuses"].values()) == 6


def test_the_same_seed_gives_the_same_inputs(fuzz_cli):
    import random

    seed = fuzz_cli._seed_texts()["sweep"][0]
    first = [fuzz_cli.mutate_toml(seed, random.Random(5)) for _ in range(3)]
    assert first == [fuzz_cli.mutate_toml(seed, random.Random(5)) for _ in range(3)]
    data = fuzz_cli._seed_texts()["tracedat"][0]
    assert fuzz_cli.mutate_bytes(data, random.Random(5)) == \
        fuzz_cli.mutate_bytes(data, random.Random(5)) != data


def test_the_campaign_counts_a_traceback_and_a_hang(fuzz_cli, tmp_path, monkeypatch):
    import akita.cli

    def escapes(args):
        raise TypeError("unhashable type: 'dict'")

    monkeypatch.setattr(akita.cli, "run", escapes)
    figures = fuzz_cli.campaign("sweep", 2, 1, 10.0, tmp_path, say=lambda line: None)
    assert figures["tracebacks"] == 2
    assert "TypeError: unhashable type" in figures["findings"][0]["what"]

    monkeypatch.setattr(akita.cli, "run", lambda args: time.sleep(5))
    figures = fuzz_cli.campaign("disk", 1, 1, 0.2, tmp_path, say=lambda line: None)
    assert figures["hangs"] == 1


def test_the_campaign_counts_a_vacuous_pass(fuzz_cli, tmp_path, monkeypatch):
    import akita.cli

    def conformant_with_nothing(args):
        print('{"verdict": "conformant", "events": 0}')
        return 0

    monkeypatch.setattr(akita.cli, "run", conformant_with_nothing)
    figures = fuzz_cli.campaign("tracedat", 1, 1, 10.0, tmp_path, say=lambda line: None)
    assert figures["vacuous_passes"] == 1
