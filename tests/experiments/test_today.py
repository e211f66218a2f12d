"""Today's default schedulers beside the era's (decision 166): a column of the claims
table, filled only for the claims about Xen's or KVM's default scheduler."""

from akita.experiments.experiment import TODAY_COLUMN, TODAYS_DEFAULT, Claim, Outcome
from akita.experiments.fig5 import claims, today_growth
from akita.experiments.experiment import example_host


def outcome(*claims_):
    return Outcome("x", "X", "source", ["a"], [["1"]], list(claims_), {})


def test_the_column_appears_only_when_a_claim_has_todays_figure():
    plain = outcome(Claim("c", "1", "2", True))
    assert TODAY_COLUMN not in plain.markdown() and TODAY_COLUMN not in plain.rst()
    assert "today" not in plain.as_json()["claims"][0]
    assert "| claim | source | ours | verdict |" in plain.markdown()
    both = outcome(Claim("c", "1", "2", True), Claim("d", "3", "4", False, "why", today="eevdf: 5"))
    assert f"| claim | source | ours | {TODAY_COLUMN} | verdict |" in both.markdown()
    assert "| c | 1 | 2 | - | reproduced |" in both.markdown()
    assert "| d | 3 | 4 | eevdf: 5 | not reproduced: why |" in both.markdown()
    assert both.as_json()["claims"][1]["today"] == "eevdf: 5"
    assert f"- {TODAY_COLUMN}" in both.rst()


def test_todays_defaults_are_eevdf_for_cfs_and_credit2_for_credit():
    assert TODAYS_DEFAULT == {"cfs": "eevdf", "credit": "credit2", "credit-3.3": "credit2"}


def test_fig5_puts_todays_growth_beside_the_xen_and_kvm_claims_only():
    rtt = {p: {"alone": {"p999": 1_000_000}, "crowded": {"p999": 2_000_000}}
           for p in ("akita", "credit", "cfs")}
    today = {"credit2": {"alone": {"p999": 1_000_000}, "crowded": {"p999": 4_000_000}},
             "eevdf": {"alone": {"p999": 1_000_000}, "crowded": {"p999": 1_500_000}}}
    got = claims(rtt, example_host("fig5.toml"), today=today)
    assert [c.today for c in got] == [None, None, "credit2: +300% (1.000 ms alone, 4.000 ms "
                                      "crowded)", "eevdf: +50% (1.000 ms alone, 1.500 ms crowded)"]
    # the verdicts stay the era's schedulers'
    assert [c.holds for c in got] == [c.holds for c in claims(rtt, example_host("fig5.toml"))]
    assert today_growth(None, "cfs") is None
