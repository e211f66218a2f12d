"""A tiny stand-in for QEMU: threads named like vCPU threads that run, sleep and move."""
import ctypes, os, sys, threading, time

libc = ctypes.CDLL(None)
switch = sys.argv[1]  # the instance's tracing_on file

def vcpu(name, cpus):
    libc.prctl(15, name.encode(), 0, 0, 0)  # PR_SET_NAME
    os.sched_setaffinity(0, cpus)
    for _ in range(3):
        end = time.perf_counter() + 0.0015
        while time.perf_counter() < end:
            pass
        time.sleep(0.001)
    os.sched_setaffinity(0, {1})

def io(cpus):
    """Kernel-mode work that the vCPUs preempt (prev_state R+)."""
    os.sched_setaffinity(0, cpus)
    with open("/dev/zero", "rb", buffering=0) as zero:
        for _ in range(4):
            zero.read(1 << 22)

threads = [threading.Thread(target=vcpu, args=(n, {0})) for n in ("CPU 0/KVM", "CPU 1/KVM:x")]
threads.append(threading.Thread(target=io, args=({0},)))
with open(switch, "w") as on:
    on.write("1"); on.flush()
    for t in threads: t.start()
    for t in threads: t.join()
with open(switch, "w") as off:
    off.write("0")
