"""The limits of a check (:mod:`akita.proofs.limits`; issue 13, finding 2): a deadline that
stops the unrolling, a search in a child process that is stopped at the deadline, and Z3's
reasons put in the words of the limit reached."""

import os
import time

import pytest
import z3

from akita.model.smt.pcpu import unroll
from akita.proofs.limits import (
    Deadline,
    LimitReached,
    explain_unknown,
    memory_ceiling,
    memory_limit_mb,
    within,
)
from akita.proofs.pcpus import example_pcpu
from akita.proofs.schedule_check import check_schedule


def test_a_passed_deadline_stops_the_unrolling_and_says_where():
    deadline = Deadline(0.0)
    with pytest.raises(LimitReached, match=r"^wall-clock guard 0 s reached while building the "
                                           r"encoding while declaring the jobs \(at tick 0 of 7\)$"):
        unroll(example_pcpu("fig5"), 7, watch=deadline.watch)
    ticks = []

    def stop_at_three(stage, done, total):
        if stage == "encoding":
            ticks.append(done)
            if done == 3:
                raise LimitReached("stop")

    with pytest.raises(LimitReached):
        unroll(example_pcpu("fig5"), 7, watch=stop_at_three)
    assert ticks == [0, 1, 2, 3]


def test_a_check_whose_time_is_spent_is_unknown_never_a_pass():
    verdict = check_schedule(example_pcpu("fig5"), 20, lambda u: z3.BoolVal(False),
                             timeout=60, what="nothing", deadline=Deadline(0.0))
    assert verdict.verdict == "unknown"
    assert verdict.reason.startswith("wall-clock guard 0 s reached while building the encoding")


def test_the_search_runs_in_a_child_and_answers():
    assert within(Deadline(30), lambda: os.getpid()) != os.getpid()
    assert within(Deadline(30), lambda: {"a": [1, 2]}) == {"a": [1, 2]}


def test_a_search_that_outlives_the_deadline_is_stopped():
    """Old code: Z3's preprocessing ran 30 s past its own 5 s limit, in this process,
    and nothing could stop it."""
    with pytest.raises(LimitReached,
                       match=r"^wall-clock guard 0.2 s reached while solving \(Z3 was stopped\)$"):
        within(Deadline(0.2), lambda: time.sleep(20))


def test_a_search_that_raises_or_dies_is_no_answer():
    def boom():
        raise RuntimeError("boom")

    with pytest.raises(LimitReached, match="raised RuntimeError: boom"):
        within(Deadline(30), boom)
    with pytest.raises(LimitReached, match="ended without an answer"):
        within(Deadline(30), lambda: os._exit(9))


def test_z3_reasons_in_the_words_of_the_limit():
    deadline = Deadline(5)
    with memory_ceiling(100):
        assert memory_limit_mb() == 100
        assert explain_unknown(b"out of memory", deadline, "building the encoding") == (
            "memory limit 100 MB reached while building the encoding (Z3: out of memory)")
    assert explain_unknown("timeout", deadline) == (
        "wall-clock guard 5 s reached while solving (Z3: timeout)")
    assert explain_unknown("incomplete quantifiers", deadline) == "Z3: incomplete quantifiers"
    assert explain_unknown(None, deadline) == "Z3: no reason given"
