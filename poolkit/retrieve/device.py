"""Where a model runs: a GPU when torch sees one, else the CPU; ``device:`` forces one.

The probe of what torch sees is injectable (``TorchDevices``), so the choice is tested on a
machine without a GPU. Only encoding moves to the device: exact search stays in NumPy on
the CPU, so its ranking is the same on every machine given the same embeddings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from poolkit.errors import PoolkitError

AUTO = "auto"
#: what ``device:`` takes besides an indexed ``cuda:N``
DEVICE_CHOICES = (AUTO, "cpu", "cuda", "mps")


class Devices(Protocol):
    def cuda(self) -> bool: ...

    def cuda_count(self) -> int: ...

    def mps(self) -> bool: ...


@dataclass(frozen=True)
class TorchDevices:
    """What the installed torch sees (imported only when asked)."""

    def cuda(self) -> bool:
        import torch

        return bool(torch.cuda.is_available())

    def cuda_count(self) -> int:
        import torch

        return int(torch.cuda.device_count()) if torch.cuda.is_available() else 0

    def mps(self) -> bool:
        import torch

        backend = getattr(torch.backends, "mps", None)
        return bool(backend is not None and backend.is_available())


def check_device_name(value: str) -> None:
    """Refuse what is not a device name (config validation: no torch needed)."""
    if value in DEVICE_CHOICES:
        return
    if value.startswith("cuda:") and value[5:].isdigit():
        return
    raise PoolkitError(f"device {value!r}: use one of {', '.join(DEVICE_CHOICES)} or cuda:N")


def resolve_device(requested: str | None, devices: Devices | None = None) -> str:
    """The device to run on: ``requested`` if it is there, else (``None`` or ``auto``) cuda,
    then mps, then cpu. A requested GPU that torch does not see is an error, not a silent
    fall back to a CPU that would take hours."""
    probe = devices if devices is not None else TorchDevices()
    name = requested or AUTO
    check_device_name(name)
    if name == AUTO:
        if probe.cuda():
            return "cuda"
        if probe.mps():
            return "mps"
        return "cpu"
    if name == "cpu":
        return name
    if name.startswith("cuda"):
        count = probe.cuda_count() if probe.cuda() else 0
        index = int(name[5:]) if ":" in name else 0
        if index >= count:
            seen = f"{count} CUDA device{'s' if count != 1 else ''}"
            raise PoolkitError(f"device {name!r} was asked for, but torch sees {seen}")
        return name
    if not probe.mps():
        raise PoolkitError(f"device {name!r} was asked for, but torch does not see it")
    return name
