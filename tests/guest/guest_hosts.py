"""Small hosts with SMP guests, written as host files, for the guest tests."""

from akita.model import Host, loads_host


def vm(name: str, vcpus: int, *, program: str | None = None, work: str = "100ms",
       control: str = "none", budget: str = "10ms", pes: str | None = None) -> str:
    """One ``[[vm]]`` table: a cpu-bound VM without *program*; HI if it has a *pes* budget."""
    kind = f'criticality = "HI"\nc_pes = "{pes}"' if pes else 'criticality = "LO"'
    text = (f'[[vm]]\nname = "{name}"\n{kind}\nperiod = "10ms"\nc_opt = "{budget}"\n'
            f'vcpus = {vcpus}\n')
    if program is not None:
        text += f'[vm.guest]\nprogram = "{program}"\nwork = "{work}"\ncontrol = "{control}"\n'
    return text


def host(pcpus: int, *vms: str, options: str = "") -> Host:
    """A host of *pcpus* pCPUs and the ``[[vm]]`` tables *vms*; *options*: more ``[host]``
    lines."""
    return loads_host(f"[host]\npcpus = {pcpus}\n{options}" + "".join(vms))
