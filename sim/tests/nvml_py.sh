#!/bin/sh
# cuda-core's NVML view of the sim (cuda.core.system): device count, names,
# UUIDs, PCI bus ids, driver version; PyTorch's NVML device count.  Needs a
# Python with cuda-core: $DEVCHECK_PYTHON, else the exploration venv; skipped
# (with a note) when there is none.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_MEM_MB SIMCUDA_DRIVER_VERSION SIMCUDA_HIDE
py=${DEVCHECK_PYTHON:-/root/.cache/devcheck/explore-venv/bin/python}
if ! [ -x "$py" ] || ! "$py" -c 'import cuda.core.system' 2>/dev/null; then
    note "no Python with cuda-core ($py): skipped"; exit 0
fi
SIMCUDA_DEVICES=3 SIMCUDA_PEER=0-1 on_sim "$py" - >"$TMPD/out" 2>&1 <<'PY' || { cat "$TMPD/out" >&2; fail "cuda-core on the sim's NVML"; }
from cuda.core import system
from cuda.core.system import Device
assert system.get_num_devices() == 3, system.get_num_devices()
assert system.get_user_mode_driver_version() == (13, 0)
assert system.get_kernel_mode_driver_version() == (580, 65, 6)
for i in range(3):
    d = Device(index=i)
    assert d.name == "SimCUDA GPU %d (simulated)" % i, d.name
    assert d.uuid == "GPU-515dc0da-0000-4000-8000-73696d6375%02x" % i, d.uuid
    assert d.pci_info.bus_id == "00000000:%02X:00.0" % (0x10 + i), d.pci_info.bus_id
    assert d.cuda_compute_capability == (9, 0)
try:
    import torch.cuda
except ImportError:
    torch = None
if torch is not None:
    assert torch.cuda._device_count_nvml() == 3
    assert torch.cuda._raw_device_uuid_nvml()[2] == "GPU-515dc0da-0000-4000-8000-73696d637502"
print("ok")
PY
expect_grep '^ok$' "$TMPD/out"
