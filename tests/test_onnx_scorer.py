"""The fast CPU scorer: ONNX export (float and int8), the scorer's backends, and distillation into a student."""

from __future__ import annotations

import inspect
import json
import random
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from omegaconf import OmegaConf

from smartcrawl.models.distill import DistillSettings, distill, distill_loss
from smartcrawl.models.encoders import EncoderSpec, load_classifier
from smartcrawl.models.onnx_export import OnnxModelMissingError, export_model_dir
from smartcrawl.models.onnx_export import main as export_main
from smartcrawl.models.pooling import BertMeanPoolForSequenceClassification
from smartcrawl.models.scorer import ModelDirError, NeuralScorer, ParallelScorer, UrlModel
from smartcrawl.models.student import StudentSpec, build_student, pca_projection
from smartcrawl.training.outputs import save_model_dir

PARALLEL = ["non-parallel", "parallel"]
LANGS = ["deu", "eng", "fra", "und"]
TEXTS = ["a.com / en / x", "www.example.com / en / news / 2023 / a-rather-long-article-name.html?page=2",
         "b.org / fr / yyy", "c.de", "shop.example.de / de / produkte / schuhe"]
PAIRS = ["a.com / fr / x", "www.example.com / fr / actualites / 2023 / article.html", "b.org / en / yyy",
         "c.de / en", "shop.example.de / en / products / shoes"]


def _model_dir(root: Path, task: str, labels: list[str], seed: int = 0, pooling: str = "cls") -> Path:
    model, tokenizer = load_classifier(EncoderSpec(name="tiny", seed=seed), len(labels), dict(enumerate(labels)),
                                       pooling=pooling)
    return save_model_dir(root / f"tiny-{task}", model, tokenizer, task, labels, 64)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Untrained tiny model dirs exported to ONNX and int8: parallel (mean pooling; dynamo exporter via the
    CLI) and langid (CLS pooling; legacy exporter)."""
    root = tmp_path_factory.mktemp("onnx")
    dirs = {"parallel": _model_dir(root, "parallel", PARALLEL, pooling="mean"),
            "langid": _model_dir(root, "langid", LANGS, 1)}
    export_main([str(dirs["parallel"]), "--int8"])
    report = export_model_dir(dirs["langid"], int8=True, legacy=True)
    assert report.exporter == "torchscript" and report.max_abs_logit_diff < 1e-4
    return dirs


@pytest.mark.parametrize("task", ["parallel", "langid"])
def test_onnx_backends_match_torch(exported: dict[str, Path], task: str) -> None:
    d = exported[task]
    assert (d / "model.onnx").is_file() and (d / "model.int8.onnx").is_file()
    pairs = PAIRS if task == "parallel" else None
    ref = UrlModel(d, task, "cpu", batch_size=2).probs(TEXTS, pairs)
    got = UrlModel(d, task, batch_size=2, backend="onnx", threads=1).probs(TEXTS, pairs)
    np.testing.assert_allclose(got, ref, atol=1e-4)
    q = UrlModel(d, task, batch_size=2, backend="onnx-int8").probs(TEXTS, pairs)
    assert q.shape == ref.shape and np.all(q >= 0)
    np.testing.assert_allclose(q.sum(axis=1), 1.0, atol=1e-5)
    assert np.abs(q - ref).max() < 0.1


def test_batches_sorted_by_length_keep_input_order(exported: dict[str, Path]) -> None:
    model = UrlModel(exported["parallel"], "parallel", "cpu", batch_size=2)
    together = model.probs(TEXTS, PAIRS)
    alone = np.concatenate([model.probs([t], [p]) for t, p in zip(TEXTS, PAIRS)])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    assert model.probs([], []).shape == (0, 2)


def test_missing_onnx_file_names_the_export_command(exported: dict[str, Path], tmp_path: Path) -> None:
    d = tmp_path / "not-exported"
    d.mkdir()
    for f in exported["parallel"].iterdir():
        if f.suffix != ".onnx":
            (d / f.name).symlink_to(f)
    with pytest.raises(OnnxModelMissingError, match=r"python -m smartcrawl\.models\.onnx_export .* --int8"):
        ParallelScorer(d, backend="onnx-int8")
    with pytest.raises(ValueError, match="unknown backend 'tensorrt'"):
        UrlModel(d, "parallel", backend="tensorrt")


def test_neural_scorer_on_onnx_handles_bad_urls(exported: dict[str, Path]) -> None:
    scorer = NeuralScorer(exported["langid"], exported["parallel"], batch_size=4, backend="onnx-int8")
    urls = ["http://x.example.com/en/a", "", "not a url", "http://y.example.com/fr/b"]
    p = scorer.lang_probs(urls, "eng")
    assert p.shape == (4,) and p[1] == p[2] == 0.0 and 0.0 < p[0] <= 1.0
    pp = scorer.parallel_probs([(urls[0], urls[3]), (urls[0], "")])
    assert pp[1] == 0.0 and 0.0 < pp[0] <= 1.0


def test_neural_scorer_config_matches_signature(repo_root: Path) -> None:
    cfg = OmegaConf.load(repo_root / "conf" / "scorer" / "neural.yaml")
    params = inspect.signature(NeuralScorer).parameters
    assert cfg.backend == "torch" and set(cfg) - {"_target_"} <= set(params)


def _write_parallel(root: Path) -> Path:
    rng = random.Random(1)
    out = root / "parallel"
    out.mkdir(parents=True)
    for split, n in (("train", 24), ("dev", 8)):
        rows = []
        for d in range(n):
            base = f"http://{split}{d}.example.org"
            rows.append((f"{base}/en/item{d}", f"{base}/fr/item{d}", 1))
            rows.append((f"{base}/en/item{d}", f"{base}/fr/other{d + 7}", 0))
        rng.shuffle(rows)
        pd.DataFrame([{"src_url": a, "trg_url": b, "pair": "eng-fra", "kind": "test", "label": y}
                      for a, b, y in rows]).to_parquet(out / f"{split}.parquet", index=False)
    return out


def test_distil_a_student_and_score_with_it(exported: dict[str, Path], tmp_path: Path) -> None:
    data, cache, out = _write_parallel(tmp_path), tmp_path / "cache", tmp_path / "student"
    settings = DistillSettings(batch_size=8, max_steps=3, max_dev=16, log_every=1)
    summary = distill(exported["parallel"], "parallel", out, StudentSpec(layers=1, hidden=32, heads=2), settings,
                      data, cache)
    assert summary["steps"] == 3 and summary["student"] == "student-1l-32"
    assert 0.0 <= summary["dev"]["student_macro_f1"] <= 100.0
    card = json.loads((out / "smartcrawl.json").read_text())
    assert card["task"] == "parallel" and card["distilled_from"] == str(exported["parallel"])
    assert json.loads((out / "distill.json").read_text())["steps"] == 3
    assert len(list(cache.glob("*.npy"))) == 2  # train and dev teacher probabilities
    probs = ParallelScorer(out, "cpu").parallel_probs([("http://a.example.org/en/x", "http://a.example.org/fr/x")])
    assert probs.shape == (1,) and 0.0 < probs[0] < 1.0
    # training continues from the saved student (its size kept, whatever spec says); a student of
    # another teacher is refused
    more = distill(exported["parallel"], "parallel", tmp_path / "more", StudentSpec(layers=3, hidden=96), settings,
                   data, cache, init_dir=out)
    assert more["student"] == "student-1l-32" and more["init"] == f"continued from {out}"
    other_teacher = shutil.copytree(exported["parallel"], tmp_path / "other-teacher")
    with pytest.raises(ModelDirError, match="distilled from"):
        distill(other_teacher, "parallel", tmp_path / "bad", StudentSpec(), settings, data, cache, init_dir=out)


def test_student_init_from_teacher(exported: dict[str, Path]) -> None:
    teacher = UrlModel(exported["parallel"], "parallel", "cpu").model
    assert isinstance(teacher, BertMeanPoolForSequenceClassification)
    same, how = build_student(StudentSpec(layers=1, hidden=64), teacher)
    assert "copied" in how and isinstance(same, BertMeanPoolForSequenceClassification)
    torch.testing.assert_close(same.bert.embeddings.word_embeddings.weight, teacher.bert.embeddings.word_embeddings.weight)
    torch.testing.assert_close(same.bert.encoder.layer[0].output.dense.weight,
                               teacher.bert.encoder.layer[0].output.dense.weight)
    narrow, how = build_student(StudentSpec(layers=1, hidden=16, heads=2, pooling="cls"), teacher)
    assert "principal components" in how and narrow.config.hidden_size == 16
    assert type(narrow).__name__ == "BertForSequenceClassification"
    proj = pca_projection(teacher.bert.embeddings.word_embeddings.weight, 16)
    torch.testing.assert_close(proj.T @ proj, torch.eye(16), atol=1e-4, rtol=0)


def test_distill_loss() -> None:
    logits = torch.tensor([[2.0, -1.0], [0.5, 0.3]])
    soft, gold = logits.softmax(-1), torch.tensor([0, 1])
    assert float(distill_loss(logits, soft, gold, temperature=2.0, alpha=1.0)) == pytest.approx(0.0, abs=1e-6)
    mixed = distill_loss(logits, soft, gold, temperature=2.0, alpha=0.5)
    assert float(mixed) == pytest.approx(0.5 * float(torch.nn.functional.cross_entropy(logits, gold)), rel=1e-5)
    with pytest.raises(ValueError, match="multiple of heads"):
        StudentSpec(hidden=100, heads=3)
