"""The ONNX model files: exported from the packaged weights at first use, then reused.

``onnx`` is the BERT encoder exported with ``torch.onnx.export`` (opset 17, the
TorchScript exporter, the model called with keyword arguments); ``onnx-int8``
is that file after onnxruntime's dynamic quantisation (per-channel QInt8
weights, activations quantised at run time). Pooling and normalisation are not
in the graph: the runtime does them as sentence-transformers does.

Files live in ``<models dir>/<weights sha256[:16]>-<runtime>-<recipe>/model.onnx``
(the models dir is the default cache directory's ``models/``, see
:func:`models_dir`), written under a lock and renamed into place, so concurrent
runs export once and a half-written file is never read. The export runs in a
subprocess: this process never runs torch, so forking it stays safe and a run
on the ONNX runtime does not even import torch.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

__all__ = ["EXPORT_RECIPE", "RUNTIMES", "ExportError", "exported_model", "file_sha256",
           "models_dir", "transformer_dir"]

# cuda: torch on the GPU; auto: cuda where torch sees a GPU, else the default (runtime.py)
RUNTIMES = ("torch", "onnx", "onnx-int8", "cuda", "auto")
OPSET = 17
# Bumped when the export or quantisation recipe changes, so an old file is not reused.
EXPORT_RECIPE = "r2"


class ExportError(RuntimeError):
    """The ONNX export or quantisation failed (the message carries the child's error)."""


def models_dir() -> Path:
    """Where exported models live: ``$MEMORY_BENCH_CACHE/models`` (default
    ``~/.cache/memory-bench/models``), whatever a run's ``--cache-dir`` says: an
    exported model is a build of the installed weights, not run data, and the
    manifest (which sees no run options) must name the very file the pairs load."""
    env = os.environ.get("MEMORY_BENCH_CACHE")
    if env:
        return Path(env).expanduser() / "models"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "memory-bench" / "models"


@lru_cache(maxsize=16)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def file_sha256(path: Path) -> str:
    st = path.stat()
    return _sha256(str(path), st.st_size, st.st_mtime_ns)


def exported_model(model_dir: Path, weights_sha256: str, runtime: str) -> Path:
    """The ONNX file for ``runtime`` (``onnx`` or ``onnx-int8``), exporting it first
    if no process has yet. Raises ExportError with the exporter's message."""
    if runtime not in ("onnx", "onnx-int8"):
        raise ValueError(f"no ONNX file for runtime {runtime!r}")
    name = f"{weights_sha256[:16]}-{runtime}-{EXPORT_RECIPE}"
    home = models_dir() / name
    target = home / "model.onnx"
    if target.is_file():
        return target
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only home: this machine's temporary directory instead
        home = Path(tempfile.gettempdir()) / f"memory-bench-models-{os.getuid()}" / name
        target = home / "model.onnx"
        if target.is_file():
            return target
    # int8 is quantised from the fp32 export; fp32 is exported from the weights.
    source = exported_model(model_dir, weights_sha256, "onnx") if runtime == "onnx-int8" else None
    home.mkdir(parents=True, exist_ok=True)
    with open(home / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be exporting the same file
        if target.is_file():
            return target
        tmp = Path(tempfile.mkdtemp(prefix=".export-", dir=home)) / "model.onnx"
        cmd = [sys.executable, "-m", "memory_bench_embed.export", runtime, str(tmp),
               str(source if source is not None else model_dir)]
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        what = "quantising the encoder to int8" if source is not None else \
            "exporting the encoder to ONNX (torch.onnx, fp32)"
        _say(f"{what}, once for this machine (about 10-20 s); later runs reuse {name}")
        t0 = time.monotonic()
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
        if done.returncode != 0 or not tmp.is_file():
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise ExportError(f"exporting the {runtime} model failed: {' | '.join(tail)}")
        os.replace(tmp, target)
        tmp.parent.rmdir()
        _say(f"{runtime} model ready in {time.monotonic() - t0:.1f} s")
    return target


def _say(message: str) -> None:
    """A line on stderr while the first run waits on the export (else 14 s of silence)."""
    print(f"memory-bench: {message}", file=sys.stderr, flush=True)


def transformer_dir(model_dir: Path) -> Path:
    """Where a sentence-transformers model keeps its transformer (and tokenizer)."""
    import json

    modules = json.loads((model_dir / "modules.json").read_text())
    return model_dir / modules[0]["path"]


def _export_fp32(model_dir: str, out: str) -> None:
    import inspect

    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(transformer_dir(Path(model_dir)))).eval()
    names = ["input_ids", "attention_mask"]
    if "token_type_ids" in inspect.signature(model.forward).parameters:
        names.append("token_type_ids")  # BERT's; DistilBERT has none

    class Encoder(torch.nn.Module):
        """The encoder's last hidden state, the model called with keyword arguments."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs):  # type: ignore[no-untyped-def]
            return self.model(**dict(zip(names, inputs, strict=True))).last_hidden_state

    ids = torch.ones((2, 8), dtype=torch.int64)
    args = (ids, torch.ones_like(ids), torch.zeros_like(ids))[: len(names)]
    axes = {0: "batch", 1: "tokens"}
    with torch.no_grad():
        torch.onnx.export(
            Encoder(), args, out, input_names=names, output_names=["last_hidden_state"],
            dynamic_axes={**dict.fromkeys(names, axes), "last_hidden_state": axes},
            opset_version=OPSET, dynamo=False,
        )


def no_telemetry() -> None:
    """Before onnxruntime is first imported: its telemetry off. Otherwise the import
    writes a device id and a database under ~/.cache/Microsoft/DeveloperTools/. Here,
    not in runtime.py, which imports this module: the dependency points one way."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")


def _quantize(source: str, out: str) -> None:
    no_telemetry()
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(source, out, per_channel=True, weight_type=QuantType.QInt8)


def main(argv: list[str]) -> int:
    runtime, out, source = argv
    if runtime == "onnx":
        _export_fp32(source, out)
    else:
        _quantize(source, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
