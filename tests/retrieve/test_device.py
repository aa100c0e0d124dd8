"""Device choice: a GPU when torch sees one, ``device:`` forces one; tested by injection."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from poolkit.errors import ConfigError, PoolkitError
from poolkit.retrieve.device import check_device_name, resolve_device


@dataclass
class Seen:
    cuda_devices: int = 0
    has_mps: bool = False

    def cuda(self) -> bool:
        return self.cuda_devices > 0

    def cuda_count(self) -> int:
        return self.cuda_devices

    def mps(self) -> bool:
        return self.has_mps


@pytest.mark.parametrize("seen, expected", [
    (Seen(), "cpu"),
    (Seen(has_mps=True), "mps"),
    (Seen(cuda_devices=1), "cuda"),
    (Seen(cuda_devices=2, has_mps=True), "cuda"),  # cuda first
])
def test_auto_prefers_cuda_then_mps_then_cpu(seen, expected):
    assert resolve_device(None, seen) == expected
    assert resolve_device("auto", seen) == expected


def test_a_forced_device_is_used_when_present():
    assert resolve_device("cpu", Seen(cuda_devices=1)) == "cpu"
    assert resolve_device("cuda:1", Seen(cuda_devices=2)) == "cuda:1"
    assert resolve_device("mps", Seen(has_mps=True)) == "mps"


@pytest.mark.parametrize("name, seen, message", [
    ("cuda", Seen(), "torch sees 0 CUDA devices"),
    ("cuda:2", Seen(cuda_devices=2), "torch sees 2 CUDA devices"),
    ("cuda:1", Seen(cuda_devices=1), "torch sees 1 CUDA device"),
    ("mps", Seen(cuda_devices=1), "does not see it"),
    ("gpu", Seen(), "use one of auto, cpu, cuda, mps or cuda:N"),
    ("cuda:x", Seen(), "use one of"),
])
def test_a_device_that_is_not_there_is_one_clear_error(name, seen, message):
    with pytest.raises(PoolkitError, match=message):
        resolve_device(name, seen)


def test_this_machine_without_a_gpu_runs_on_the_cpu():
    """The real probe (torch imported only when asked): there is no GPU here."""
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():  # pragma: no cover - a machine with a GPU
        pytest.skip("a GPU is present")
    assert resolve_device(None) in ("cpu", "mps")


def test_config_checks_device_names_without_torch(tmp_path):
    from pool_helpers import write_config

    from poolkit.config import load_config

    check_device_name("cuda:0")
    ok = load_config(write_config(tmp_path, "d: {kind: dense, device: cpu}"))
    assert ok.systems["d"].options["device"] == "cpu"
    with pytest.raises(ConfigError, match="device 'gpu'"):
        load_config(write_config(tmp_path, "d: {kind: dense, device: gpu}"))
