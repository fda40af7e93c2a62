"""Training: the tiny encoder trains a few steps on both tasks, saves, resumes, and the scorer loads it."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import DictConfig

from smartcrawl.models.scorer import ModelDirError, NeuralScorer, UrlModel
from smartcrawl.training.curriculum import Curriculum
from smartcrawl.training.run import TrainConfigError, train_from_config
from smartcrawl.training.schedule import warmup_inverse_sqrt

LANGS = {"eng": "en", "fra": "fr", "deu": "de"}


def _write_langid(root: Path) -> Path:
    rng = random.Random(0)
    out = root / "langid"
    out.mkdir(parents=True)
    for split, n_domains in (("train", 40), ("dev", 8), ("test", 8)):
        rows = []
        for d in range(n_domains):
            for lang, code in LANGS.items():
                for p in range(3):
                    rows.append({"url": f"http://{split}{d}.example.com/{code}/page{p}", "lang": lang,
                                 "domain": f"{split}{d}.example.com", "source": "test"})
        rng.shuffle(rows)
        pd.DataFrame(rows).to_parquet(out / f"{split}.parquet", index=False)
    return out


def _write_parallel(root: Path) -> Path:
    rng = random.Random(1)
    out = root / "parallel"
    out.mkdir(parents=True)
    for split, n in (("train", 60), ("dev", 12), ("test", 12)):
        rows = []
        for d in range(n):
            base = f"http://{split}{d}.example.org"
            rows.append((f"{base}/en/item{d}", f"{base}/fr/item{d}", 1, "positive"))
            rows.append((f"{base}/en/item{d}", f"{base}/fr/other{d + 7}", 0, "rand_bi"))
        rng.shuffle(rows)
        pd.DataFrame(
            [{"src_url": a, "trg_url": b, "src_lang": "eng", "trg_lang": "fra", "pair": "eng-fra", "label": y,
              "kind": k, "domain": f"{split}.example.org", "source": "test"} for a, b, y, k in rows]
        ).to_parquet(out / f"{split}.parquet", index=False)
    return out


def _cfg(repo_root: Path, tmp: Path, task: str, data_dir: Path, extra: list[str] = ()) -> DictConfig:
    overrides = [
        f"task={task}", "model=tiny", f"data.out_dir={data_dir}", f"run_dir={tmp}/run-{task}",
        f"results_dir={tmp}/results-{task}", "train.max_epochs=1", "train.batch_size=16", "train.max_dev=null",
        "train.progress_bar=false", "curriculum=none", "train.optim.lr=5e-4", "trainer.threads=2", *extra,
    ]
    with initialize_config_dir(config_dir=str(repo_root / "conf"), version_base="1.3"):
        return compose(config_name="train", overrides=overrides)


@pytest.fixture(scope="module")
def trained(repo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict]]:
    """Both tasks trained once (tiny model, one epoch); {task: (tmp dir, metrics)}."""
    out = {}
    for task in ("langid", "parallel"):
        tmp = tmp_path_factory.mktemp(task)
        data_dir = _write_langid(tmp) if task == "langid" else _write_parallel(tmp)
        out[task] = (tmp, train_from_config(_cfg(repo_root, tmp, task, data_dir)))
    return out


@pytest.mark.parametrize("task", ["langid", "parallel"])
def test_train_tiny_saves_and_scores(trained: dict[str, tuple[Path, dict]], task: str) -> None:
    tmp_path, metrics = trained[task]
    results = tmp_path / f"results-{task}"
    assert (results / "config.yaml").is_file()
    on_disk = json.loads((results / "metrics.json").read_text())
    assert on_disk["test"]["macro"]["f1"] == metrics["test"]["macro"]["f1"]
    assert metrics["epochs_completed"] == 1 and metrics["global_steps"] > 0
    preds = pd.read_parquet(results / "predictions.parquet")
    assert len(preds) == metrics["test"]["n"] and {"gold", "pred", "prob"} <= set(preds.columns)
    curve = pd.read_csv(results / "dev_curve.csv")  # one row per validation, the best one in metrics.json
    assert list(curve.columns) == ["step", "dev_macro_f1"] and len(curve) >= 1
    assert curve["dev_macro_f1"].max() == pytest.approx(metrics["best_dev_macro_f1"], abs=1e-3)
    model_dir = Path(metrics["model_dir"])
    card = json.loads((model_dir / "smartcrawl.json").read_text())
    assert card["task"] == task
    other = "parallel" if task == "langid" else "langid"
    with pytest.raises(ModelDirError, match=f"holds a '{task}' model"):
        UrlModel(model_dir, other)
    model = UrlModel(model_dir, task)
    probs = model.probs(["a.com / en / x", "b.org / fr / y"], ["a.com / fr / x", "b.org / en / y"] if task == "parallel" else None)
    assert probs.shape == (2, len(card["labels"]))
    assert abs(float(probs.sum(axis=1).mean()) - 1.0) < 1e-4


def test_scorer_handles_bad_urls(trained: dict[str, tuple[Path, dict]]) -> None:
    lang, par = trained["langid"][1], trained["parallel"][1]
    scorer = NeuralScorer(lang["model_dir"], par["model_dir"], device="cpu")
    urls = ["http://x.example.com/en/a", "", "not a url", "ftp://x.com/y", "http://y.example.com/fr/b"]
    p = scorer.lang_probs(urls, "eng")
    assert p.shape == (5,) and p[1] == p[2] == p[3] == 0.0 and 0.0 < p[0] <= 1.0
    assert scorer.lang_probs(urls, "isl").sum() == 0.0  # a language the model does not know
    assert scorer.lang_predict(urls)[1] == "und"
    pp = scorer.parallel_probs([(urls[0], urls[4]), (urls[0], ""), ("bad url", urls[4])])
    assert pp.shape == (3,) and pp[1] == pp[2] == 0.0 and 0.0 < pp[0] <= 1.0


def test_resume_continues_from_last_checkpoint(repo_root: Path, tmp_path: Path) -> None:
    data_dir = _write_langid(tmp_path)
    first = train_from_config(_cfg(repo_root, tmp_path, "langid", data_dir, ["train.max_epochs=1"]))
    second = train_from_config(_cfg(repo_root, tmp_path, "langid", data_dir, ["train.max_epochs=2"]))
    assert first["epochs_completed"] == 1 and second["epochs_completed"] == 2
    assert second["global_steps"] == 2 * first["global_steps"]
    fresh = train_from_config(_cfg(repo_root, tmp_path, "langid", data_dir, ["train.max_epochs=1", "train.resume=false",
                                                                             f"run_dir={tmp_path}/fresh"]))
    assert fresh["global_steps"] == first["global_steps"]


def test_missing_data_names_the_command(repo_root: Path, tmp_path: Path) -> None:
    with pytest.raises(TrainConfigError, match=r"prepare_data.py task=parallel negatives=rand\+jaccard\+remove"):
        train_from_config(_cfg(repo_root, tmp_path, "parallel", tmp_path / "nowhere"))


def test_curriculum_grows_and_caps() -> None:
    c = Curriculum(start=100, step=50)
    assert [c.size(e, 220) for e in range(4)] == [100, 150, 200, 220]
    assert Curriculum().size(3, 220) == 220 and not Curriculum().grows
    with pytest.raises(ValueError, match="curriculum.start"):
        Curriculum(start=0)


def test_warmup_then_inverse_sqrt() -> None:
    f = warmup_inverse_sqrt(10)
    assert f(0) == pytest.approx(0.1) and f(9) == pytest.approx(1.0)
    assert f(39) == pytest.approx(math.sqrt(10 / 40))
    assert all(f(s) >= f(s + 1) for s in range(10, 100))


def test_module_trains_with_dropout_on() -> None:
    from transformers import BertConfig, BertForSequenceClassification

    from smartcrawl.training.module import OptimSettings, UrlClassifier

    model = BertForSequenceClassification(BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1,
                                                     num_attention_heads=2, intermediate_size=32)).eval()
    module = UrlClassifier(model, ["a", "b"], OptimSettings(), first_epoch_steps=10)
    assert all(m.training for m in module.model.modules())


def test_mean_pooling_and_class_weights_train_and_score(repo_root: Path, tmp_path: Path) -> None:
    data_dir = _write_parallel(tmp_path)
    metrics = train_from_config(_cfg(repo_root, tmp_path, "parallel", data_dir,
                                     ["model.pooling=mean", "train.class_weights=balanced", "train.bucket_batches=2"]))
    model = UrlModel(metrics["model_dir"], "parallel")
    assert type(model.model).__name__ == "BertMeanPoolForSequenceClassification"
    probs = model.probs(["a.com / en / x"], ["a.com / fr / x"])
    assert probs.shape == (1, 2)


def test_wrong_pooling_or_weights_name_the_key(repo_root: Path, tmp_path: Path) -> None:
    data_dir = _write_langid(tmp_path)
    with pytest.raises(TrainConfigError, match="model.pooling.*allowed: cls, mean"):
        train_from_config(_cfg(repo_root, tmp_path, "langid", data_dir, ["model.pooling=max"]))
    with pytest.raises(TrainConfigError, match="train.class_weights.*allowed"):
        train_from_config(_cfg(repo_root, tmp_path, "langid", data_dir, ["train.class_weights=inverse"]))


def test_resume_with_another_model_config_names_the_way_out(repo_root: Path, tmp_path: Path) -> None:
    data_dir = _write_langid(tmp_path)
    train_from_config(_cfg(repo_root, tmp_path, "langid", data_dir, ["train.max_epochs=1"]))
    with pytest.raises(TrainConfigError, match="different model configuration.*train.resume=false"):
        train_from_config(_cfg(repo_root, tmp_path, "langid", data_dir, ["train.max_epochs=2", "model.pooling=mean"]))


def test_max_steps_mid_epoch_validates_before_stopping(repo_root: Path, tmp_path: Path) -> None:
    # 360 training URLs / batch 16 = 23 steps an epoch: max_steps=3 stops in the middle of the first one.
    data_dir = _write_langid(tmp_path)
    metrics = train_from_config(_cfg(repo_root, tmp_path, "langid", data_dir, ["train.max_epochs=5",
                                                                               "train.max_steps=3"]))
    assert metrics["global_steps"] == 3
    assert metrics["best_dev_macro_f1"] is not None and Path(metrics["best_checkpoint"]).name == "best.ckpt"
    logged = pd.read_csv(next((tmp_path / "run-langid" / "logs").glob("version_*/metrics.csv")))
    assert logged["val/macro_f1"].notna().sum() == 1


def test_marked_pair_view_is_saved_and_applied_by_the_scorer(repo_root: Path, tmp_path: Path) -> None:
    data_dir = _write_parallel(tmp_path)
    metrics = train_from_config(_cfg(repo_root, tmp_path, "parallel", data_dir, ["pair_view=marked"]))
    card = json.loads((Path(metrics["model_dir"]) / "smartcrawl.json").read_text())
    assert card["pair_view"] == "marked"
    model = UrlModel(metrics["model_dir"], "parallel")
    assert model.pair_view == "marked"
    from smartcrawl.models.scorer import ParallelScorer
    from smartcrawl.pair_view import pair_inputs

    pairs = [("http://a.com/en/item1", "http://a.com/fr/item1"), ("http://a.com/en/item1", "http://a.com/fr/other9")]
    marked = model.probs(*pair_inputs([a for a, _ in pairs], [b for _, b in pairs], "marked"))[:, 1]
    plain = model.probs(*pair_inputs([a for a, _ in pairs], [b for _, b in pairs], "plain"))[:, 1]
    scored = ParallelScorer(metrics["model_dir"]).parallel_probs(pairs)
    assert scored == pytest.approx(marked, abs=1e-5)
    assert not plain == pytest.approx(marked, abs=1e-5)  # the view changes what the model reads


def test_unknown_pair_view_names_the_key(repo_root: Path, tmp_path: Path) -> None:
    data_dir = _write_parallel(tmp_path)
    with pytest.raises(TrainConfigError, match="pair_view.*allowed: plain, marked"):
        train_from_config(_cfg(repo_root, tmp_path, "parallel", data_dir, ["pair_view=diff"]))
    metrics = train_from_config(_cfg(repo_root, tmp_path, "parallel", data_dir))
    card_path = Path(metrics["model_dir"]) / "smartcrawl.json"
    card = json.loads(card_path.read_text())
    assert card["pair_view"] == "plain"
    card_path.write_text(json.dumps({**card, "pair_view": "diff"}))
    with pytest.raises(ModelDirError, match="unknown pair_view 'diff'"):
        UrlModel(metrics["model_dir"], "parallel")
