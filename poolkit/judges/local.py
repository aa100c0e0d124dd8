"""The ``local`` judge kind: a causal language model run in this process with transformers,
from a local folder or a GGUF file (``path:``; needs ``pip install 'poolkit[judges]'``).

The grade is not generated but read: one forward pass over the prompt gives the model's
next-token probabilities, and the probability of each grade is the mass of its tokens
("2" and " 2" where the tokenizer has both as one token). The distribution over 0-3 is that
mass normalised over the four grades, the grade its argmax (ties: the lower grade), and
``grade_mass`` (how much of the model's next token went to a grade at all) is recorded
beside it. The answer kept is the single most likely next token, whatever it is.

Prompts are rendered as for the ``openai`` kind (the passage's delimiters tagged with a hash
of the pair's texts, ``prompt.content_tag``, not a random draw: a pair's distribution is a
function of the pair) and, when the tokenizer has a chat template
(``chat_template: true``), wrapped in it as one user turn with the assistant's turn opened,
as a chat server does. Pairs go through in batches of ``batch_size``, left-padded with
positions counted from each prompt's first real token, so a pair's distribution does not
depend on the batch it is in. On a GPU when torch sees one (``device: auto``), else the CPU.
Nothing is downloaded: the files are read with ``local_files_only``.

The judge version hashes the model's bytes (``model_sha256``: the GGUF file, or every file
of the folder), so a different model at the same path is a different judge.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from poolkit.errors import PoolkitError
from poolkit.judges import JudgeKind, JudgePair, Verdict, register_judge_kind
from poolkit.judges.openai import Answer
from poolkit.judges.prompt import BUILTIN_TEMPLATE, Prompt, content_tag, pair_texts, render
from poolkit.params import Param

GRADES = (0, 1, 2, 3)
_CHUNK = 1 << 20


def model_sha256(path: Path) -> str:
    """The sha256 of a model file, or of a folder's files (relative names and bytes); hashed
    once per process while no file's size or modification time changes (``status --watch``
    asks for a local judge's version at every frame)."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    stamps = tuple((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    return _hashed(path, stamps)


@functools.lru_cache(maxsize=16)
def _hashed(path: Path, stamps: tuple[tuple[str, int, int], ...]) -> str:
    digest = hashlib.sha256()
    for name, _size, _mtime in stamps:
        file = Path(name)
        if file != path:
            digest.update(file.relative_to(path).as_posix().encode("utf-8") + b"\0")
        with file.open("rb") as handle:
            while block := handle.read(_CHUNK):
                digest.update(block)
    return digest.hexdigest()


def device_of(choice: str) -> str:
    """``auto``: cuda when torch sees a GPU, else cpu."""
    import torch

    if choice == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if choice == "cuda" and not torch.cuda.is_available():
        raise PoolkitError("device: cuda, but torch sees no GPU (device: auto uses the CPU)")
    return choice


def _needs_judges_extra(what: str) -> PoolkitError:
    return PoolkitError(f"{what} needs transformers (and gguf for a .gguf file): "
                        f"pip install 'poolkit[judges]'")


@register_judge_kind
class LocalKind(JudgeKind):
    name = "local"
    summary = "a causal language model run in-process with transformers (a folder or a GGUF)"
    version = "1"
    required = ("path",)
    options = (
        Param("path", (str,), None, "the model: a transformers folder or a .gguf file"),
        Param("batch_size", (int,), 8, "pairs per forward pass", minimum=1, maximum=4096),
        Param("device", (str,), "auto", "auto (a GPU when torch sees one), cpu or cuda",
              choices=("auto", "cpu", "cuda")),
        Param("chat_template", (bool,), True,
              "wrap the prompt in the tokenizer's chat template when it has one"),
        Param("prompt", (str,), None, "a prompt template file replacing the built-in one"),
        Param("scale_order", (str,), "ascending", "the rubric's order in the prompt",
              choices=("ascending", "descending")),
    )
    versioned = ("model_sha256", "chat_template", "scale_order")
    variants = ("scale_order",)

    def configured_version(self, settings: Mapping[str, Any], template: str) -> str | None:
        return self.version_of(with_model_sha256(settings), template)

    def build(self, settings: Mapping[str, Any], template: str, *,
              cache_dir: Path | None = None, read_cache: bool = True,
              calibration: Any = None) -> LocalJudge:
        return LocalJudge(settings, template)

    def grade(self, pairs: Sequence[JudgePair], settings: Mapping[str, Any],
              ) -> list[Verdict]:
        judge = LocalJudge(settings, str(settings.get("template") or BUILTIN_TEMPLATE))
        return [Verdict(p.query.qid, p.docid, int(a.grade), rationale=a.raw)
                for p, (_, a) in zip(pairs, judge.ask_batch(pairs), strict=True)
                if a.grade is not None]


def with_model_sha256(settings: Mapping[str, Any]) -> dict[str, Any]:
    """``settings`` with the hash of the model at ``path`` (``model_sha256``, in the
    version): what an in-process judge's settings are once built."""
    path = Path(str(settings["path"]))
    if not path.exists():
        raise PoolkitError(f"{path}: no such model file or folder")
    return {**settings, "model_sha256": model_sha256(path)}


class InProcessJudge:
    """What a judge running a model in this process starts from: its settings with the
    model's hash added (``model_sha256``, in the version), its batch size and device."""

    def __init__(self, settings: Mapping[str, Any], batch_size: int) -> None:
        self.settings = with_model_sha256(settings)
        self.batch_size = int(settings.get("batch_size") or batch_size)
        self.path = Path(str(settings["path"]))
        self.device = device_of(str(settings.get("device") or "auto"))


class LocalJudge(InProcessJudge):
    """A loaded model and tokenizer that grade pairs in batches (see the module)."""

    def __init__(self, settings: Mapping[str, Any], template: str) -> None:
        super().__init__(settings, 8)
        self.template = template
        #: the loaded model, shared by copies (``autojudge --variant``'s judge is one)
        self._state: dict[str, Any] = {}

    # The model is loaded when first needed: a run with nothing left to grade only hashes it.
    @property
    def _loaded(self) -> tuple[Any, Any, str]:
        if "loaded" not in self._state:
            self._state["loaded"] = _load(self.path, self.device)
        return self._state["loaded"]  # type: ignore[no-any-return]

    @property
    def tokenizer(self) -> Any:
        return self._loaded[0]

    @property
    def model(self) -> Any:
        return self._loaded[1]

    @property
    def model_id(self) -> str:
        return self._loaded[2]

    @property
    def grade_tokens(self) -> dict[int, list[int]]:
        if "grades" not in self._state:
            self._state["grades"] = grade_token_ids(self.tokenizer)
        return self._state["grades"]  # type: ignore[no-any-return]

    @property
    def _last_only(self) -> dict[str, int]:
        """Logits of the last position only, where the model can (transformers >= 4.45):
        the vocabulary projection of every prompt token is most of a batch's memory."""
        import inspect

        accepted = inspect.signature(self.model.forward).parameters
        return next(({k: 1} for k in ("logits_to_keep", "num_logits_to_keep")
                     if k in accepted), {})

    @property
    def _chat(self) -> bool:
        return bool(self.settings.get("chat_template", True)) \
            and bool(getattr(self.tokenizer, "chat_template", None))

    def prompt(self, pair: JudgePair) -> str:
        """The exact text the model reads for ``pair``."""
        text = render(self.template, pair.query, pair.title, pair.body,
                      str(self.settings.get("scale_order") or "ascending"),
                      tag=content_tag(pair_texts(pair.query, pair.title, pair.body)))
        if not self._chat:
            return text
        return Prompt(str(self.tokenizer.apply_chat_template(
            [{"role": "user", "content": text}], tokenize=False, add_generation_prompt=True)),
            text.tag)

    def count_tokens(self, prompt: str) -> int:
        return len(self.tokenizer(prompt, add_special_tokens=False)["input_ids"])

    def ask_batch(self, pairs: Sequence[JudgePair]) -> list[tuple[str, Answer]]:
        """Each pair's prompt and answer, ``batch_size`` pairs a forward pass."""
        out: list[tuple[str, Answer]] = []
        for start in range(0, len(pairs), self.batch_size):
            prompts = [self.prompt(p) for p in pairs[start:start + self.batch_size]]
            out.extend(zip(prompts, self._answers(prompts), strict=True))
        return out

    def _answers(self, prompts: list[str]) -> list[Answer]:
        import torch

        started = time.monotonic()
        batch = self.tokenizer(prompts, return_tensors="pt", padding=True,
                               add_special_tokens=False)
        mask = batch["attention_mask"].to(self.device)
        ids = batch["input_ids"].to(self.device)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        with torch.inference_mode():
            logits = self.model(input_ids=ids, attention_mask=mask, position_ids=positions,
                                **self._last_only).logits[:, -1, :]
        probs = torch.softmax(logits.float(), dim=-1).cpu()
        seconds = (time.monotonic() - started) / len(prompts)
        lengths = mask.sum(-1).tolist()
        return [self._answer(row, int(n), seconds, len(prompts))
                for row, n in zip(probs, lengths, strict=True)]

    def _answer(self, probs: Any, prompt_tokens: int, seconds: float, batch: int) -> Answer:
        distribution, mass = grade_distribution_of(probs.tolist(), self.grade_tokens)
        grade = max(GRADES, key=lambda g: (distribution[str(g)], -g)) if mass > 0 else None
        top = self.tokenizer.decode([int(probs.argmax())])
        return Answer(grade, top, self.model_id, distribution if mass > 0 else None,
                      prompt_tokens, 0, round(seconds, 6), 1,
                      extra={"grade_mass": round(mass, 6), "batch": batch,
                             "device": self.device})


def grade_token_ids(tokenizer: Any) -> dict[int, list[int]]:
    """Each grade's single-token spellings ("2", " 2"), by token id."""
    out: dict[int, list[int]] = {}
    for grade in GRADES:
        ids: list[int] = []
        for text in (str(grade), f" {grade}"):
            encoded = tokenizer.encode(text, add_special_tokens=False)
            if len(encoded) == 1 and encoded[0] not in ids:
                ids.append(int(encoded[0]))
        if not ids:
            raise PoolkitError(f"the tokenizer has no single token for grade {grade}")
        out[grade] = ids
    return out


def grade_distribution_of(probs: Sequence[float], tokens: Mapping[int, Sequence[int]],
                          ) -> tuple[dict[str, float], float]:
    """(the grades' probabilities normalised over 0-3, their total mass before that)."""
    mass = {g: sum(probs[i] for i in tokens[g]) for g in GRADES}
    total = sum(mass.values())
    if total <= 0:
        return {str(g): 0.0 for g in GRADES}, 0.0
    return {str(g): round(mass[g] / total, 6) for g in GRADES}, total


def _load(path: Path, device: str) -> tuple[Any, Any, str]:
    """(tokenizer, model, model id) from a folder or a .gguf file, never from the network."""
    try:
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError:
        raise _needs_judges_extra("judge kind local") from None
    folder, extra = (path.parent, {"gguf_file": path.name}) if path.is_file() else (path, {})
    try:
        with quiet_loading(), _gguf_read_once(path.is_file()):
            tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True,
                                                      **extra)
            model = AutoModelForCausalLM.from_pretrained(str(folder), local_files_only=True,
                                                         **extra)
            model_id = _model_id(path)
    except ImportError as exc:
        raise PoolkitError(f"{path}: {exc}") from None
    except (OSError, ValueError) as exc:
        raise PoolkitError(f"{path}: not a model transformers can load "
                           f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
                           ) from None
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
    loaded: Any = model
    return tokenizer, loaded.to(device).eval(), model_id


@contextmanager
def quiet_loading() -> Iterator[None]:
    """transformers' progress bars off while a model loads: poolkit's own bar counts pairs,
    and a bar per tensor on stderr would bury a one-line error."""
    from transformers.utils import logging as hf_logging

    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if bars:
            hf_logging.enable_progress_bar()


@contextmanager
def _gguf_read_once(active: bool) -> Iterator[None]:
    """While a GGUF model loads: one parse of the file and one tensor-name map.

    transformers parses a GGUF file's header afresh for the config, the tokenizer and the
    weights, and asks gguf for its tensor-name map once per module; each parse walks every
    metadata field (the vocabulary too) through numpy memmap slices. Measured loading
    SmolLM2-135M's 98 MB GGUF on this 2-core machine: 78 s, 34 s of it in three header
    parses and 18 s in 397 identical name maps. Both are pure functions of their arguments
    here (a read-only file; arch and layer count), so they are memoised for the load only.
    """
    if not active:
        yield
        return
    import functools

    import gguf

    reader, name_map = gguf.GGUFReader, gguf.get_tensor_name_map
    gguf.GGUFReader = functools.lru_cache(maxsize=4)(reader)  # type: ignore[misc,assignment]
    gguf.get_tensor_name_map = functools.lru_cache(maxsize=16)(name_map)
    try:
        yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = reader, name_map  # type: ignore[misc]


def _model_id(path: Path) -> str:
    """The model's name as the GGUF file states it (``general.name``), else the file's or
    folder's name."""
    if path.is_file():
        try:
            from gguf import GGUFReader

            field = GGUFReader(str(path)).fields.get("general.name")
            if field is not None:
                return bytes(field.parts[field.data[0]]).decode("utf-8")
        except Exception:  # noqa: BLE001  (a name is nice to have, not worth failing over)
            pass
        return path.stem
    return path.name


__all__ = ["InProcessJudge", "LocalJudge", "LocalKind", "device_of", "grade_distribution_of",
           "grade_token_ids", "model_sha256", "quiet_loading"]
