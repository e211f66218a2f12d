"""R12 under departures: FirstFit.remove takes a VM off exactly, as if it had never
been placed (model/first_fit.py), and a removal that forgets the HI sums is caught."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import vm_lists, vms

from akita.model import PRESETS, VM, FirstFit, ModelError, UtilizationSums
from akita.model._slack_tree import SlackTree

pytestmark = pytest.mark.rule("R12")


def preset(name, type_, vcpus=1):
    p = PRESETS[type_]
    return VM(name, p.criticality, p.period, p.c_opt, p.c_pes, vcpus=vcpus, preset=type_)


class ForgetfulRemoval(FirstFit):
    """Deliberately wrong: a departing HI vCPU gives back its C_opt/T but not its C_pes/T."""

    def remove(self, name):
        result = self._placed[name].pop()
        del self._placed[name]
        for vcpu, index in zip(result.vm.all_vcpus(), result.pcpus):
            s = self._sums[index]
            self._set(index, UtilizationSums(s.lo_lo - (0 if vcpu.vm.is_hi else vcpu.vm.u_opt),
                                             s.hi_lo - (vcpu.vm.u_opt if vcpu.vm.is_hi else 0),
                                             s.hi_hi))
            self._vcpus[index].remove(vcpu)
        self._results.remove(result)
        return result


def state(picker):
    """Everything an answer of the picker can depend on, and what it reports."""
    m = len(picker._sums)
    return ([(s, s.vcpus) for s in picker._sums], [list(v) for v in picker._vcpus],
            picker._tree._lo, picker._tree._hi, picker.placement(),
            [picker.vcpus_on(i) for i in range(m)])


def same_as_never_placed(kind, pcpus, before, leaving, after, test="edf-vd"):
    """Place *before*, *leaving*, remove *leaving*: the picker is the one that never saw
    it, and answers *after* as that one does."""
    with_it, without = kind(pcpus, test), FirstFit(pcpus, test)
    for vm in before:
        with_it.offer(vm)
        without.offer(vm)
    answer = with_it.offer(leaving)
    if answer.admitted:
        with_it.remove(leaving.name)
    else:  # a rejection stays in placement() (as before departures existed): drop it
        with_it._results.pop()
    if state(with_it) != state(without):
        return False
    return all(with_it.offer(vm) == without.offer(vm) for vm in after)


@given(st.integers(1, 4), vm_lists(max_size=6), vms(name="leaving"), vm_lists(max_size=6),
       st.sampled_from(["edf-vd", "edf", "amc-rtb"]))
def test_a_removed_vm_leaves_the_picker_as_if_it_had_never_been_placed(pcpus, before, leaving,
                                                                       after, test):
    after = [VMPlacementName(vm, f"later{i}") for i, vm in enumerate(after)]
    assert same_as_never_placed(FirstFit, pcpus, before, leaving, after, test)


def VMPlacementName(vm, name):
    return VM(name, vm.criticality, vm.period, vm.c_opt, vm.c_pes, vcpus=vm.vcpus)


@given(st.integers(1, 4), vm_lists(max_size=8), st.data())
def test_removing_any_vm_leaves_each_pcpu_the_sums_of_what_stays(pcpus, placed, data):
    picker = FirstFit(pcpus)
    admitted = [vm for vm in placed if picker.offer(vm, record=False).admitted]
    gone = data.draw(st.permutations(admitted)).copy()[:data.draw(st.integers(0, len(admitted)))]
    for vm in gone:
        picker.remove(vm.name)
    staying = {vm.name for vm in admitted} - {vm.name for vm in gone}
    tree = SlackTree(pcpus)
    for i in range(pcpus):
        kept = [v for v in picker._vcpus[i] if v.vm.name in staying]
        assert picker._vcpus[i] == kept
        fresh = UtilizationSums.of(kept)
        assert picker.sums(i) == fresh and picker.sums(i).vcpus == fresh.vcpus
        capacity = picker._test.capacity(fresh)
        tree.set(i, capacity.lo, capacity.hi)
    assert (picker._tree._lo, picker._tree._hi) == (tree._lo, tree._hi)
    assert [p.vm.name for p in picker.placement().vms] == \
        [vm.name for vm in admitted if vm.name in staying]


@given(st.integers(1, 4), vm_lists(max_size=8), st.data())
def test_when_every_vm_has_left_the_picker_is_new(pcpus, placed, data):
    picker = FirstFit(pcpus)
    admitted = [vm for vm in placed if picker.offer(vm, record=False).admitted]
    for vm in data.draw(st.permutations(admitted)):
        picker.remove(vm.name)
    assert state(picker) == state(FirstFit(pcpus))


def test_the_forgetful_removal_is_caught():
    batch, leaving, db = preset("batch", "Type2"), preset("old-db", "Type6"), preset("db", "Type6")
    assert same_as_never_placed(FirstFit, 1, [batch], leaving, [db])
    assert not same_as_never_placed(ForgetfulRemoval, 1, [batch], leaving, [db])
    # and it matters: after the HI VM left, the forgetful picker turns away a VM that fits
    forgetful = ForgetfulRemoval(1)
    for vm in (batch, leaving):
        forgetful.offer(vm)
    forgetful.remove("old-db")
    honest = FirstFit(1)
    honest.offer(batch)
    assert honest.offer(db).admitted and not forgetful.offer(db).admitted


def test_a_rejection_is_kept_out_of_the_placement_when_asked():
    picker = FirstFit(1)
    picker.offer(preset("a", "Type3"))
    picker.offer(preset("b", "Type3"))
    assert not picker.offer(preset("c", "Type3"), record=False).admitted
    assert not picker.offer(preset("d", "Type3")).admitted
    assert [p.vm.name for p in picker.placement().vms] == ["a", "b", "d"]


def test_removing_a_vm_that_is_not_placed_names_it():
    picker = FirstFit(2)
    picker.offer(preset("a", "Type2"))
    picker.remove("a")
    with pytest.raises(ModelError, match="field 'name'.*'a'"):
        picker.remove("a")


def test_two_vms_of_one_name_leave_the_later_first():
    picker = FirstFit(2)
    first = picker.offer(preset("a", "Type3"))
    second = picker.offer(preset("a", "Type3", vcpus=2))
    assert picker.remove("a") == second
    assert picker.placement().vms == (first,)
