"""FastText URL language classifier (paper, Section 3.1): a linear bag of character n-grams.

Trained with ``fasttext-numpy2`` on the same pre-processed URLs as the Transformer model
(:func:`smartcrawl.urls.preprocess_url`: scheme stripped, percent-decoded, split on ``/``), with the
hyper-parameters of fastText's ``lid.176`` language identifier that the paper adopts: 16-dimensional
embeddings, character n-grams of 2 to 4, learning rate 0.1, 10 epochs, hierarchical softmax
(``loss="hs"``, the paper's "hierarchical softmax classifier"); word n-grams stay at fastText's
default (1). Training is seeded; with more than one thread fastText's lock-free updates make runs
differ slightly, so use ``threads=1`` for bit-identical models.

CLI::

    python -m smartcrawl.models.baselines.fasttext_url --data data/prepared/langid --out results/langid/fasttext
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

import fasttext
import pandas as pd
import pyarrow.parquet as pq

from smartcrawl.eval.metrics import classification_metrics, summary_line, write_metrics
from smartcrawl.langs import UNKNOWN
from smartcrawl.urls import preprocess_url

log = logging.getLogger(__name__)

LABEL_PREFIX = "__label__"
MODEL_FILE = "model.bin"


@dataclass(frozen=True)
class FastTextParams:
    """Training hyper-parameters (defaults: the paper's, i.e. lid.176's)."""

    dim: int = 16
    minn: int = 2
    maxn: int = 4
    lr: float = 0.1
    epoch: int = 10
    loss: str = "hs"
    word_ngrams: int = 1
    bucket: int = 2_000_000
    min_count: int = 1
    threads: int = 2
    seed: int = 0


def url_text(url: str) -> str:
    """The text fastText sees for a URL: :func:`preprocess_url` with all whitespace runs made one space."""
    return " ".join(preprocess_url(url).split())


def write_training_file(fh: IO[str], urls: Iterable[str], labels: Iterable[str]) -> int:
    """Write ``__label__<lang> <text>`` lines; returns the number of lines written.

    URLs whose text is empty are skipped (fastText ignores lines without words anyway).
    """
    n = 0
    for url, label in zip(urls, labels, strict=True):
        text = url_text(url)
        lab = str(label)
        if not text:
            continue
        if not lab or any(c.isspace() for c in lab):
            raise ValueError(f"label must be a non-empty token without whitespace: {lab!r}")
        fh.write(f"{LABEL_PREFIX}{lab} {text}\n")
        n += 1
    return n


def _train_and_save(kwargs: dict[str, Any], out: str) -> None:
    """Child-process body of :meth:`FastTextUrlClassifier.train_file`."""
    fasttext.train_supervised(**kwargs).save_model(out)


class FastTextUrlClassifier:
    """Language of a URL with a supervised fastText model over pre-processed URLs."""

    def __init__(self, model: Any) -> None:
        self.model = model

    @classmethod
    def train_file(cls, path: str | Path, params: FastTextParams | None = None, verbose: int = 0) -> FastTextUrlClassifier:
        """Train on a file already in fastText's ``__label__`` format (see :func:`write_training_file`).

        Training runs in a fresh child process: fastText's trainer was seen to fail with
        "Encountered NaN" in a process where PyTorch had already trained a model (reproducible in
        the test suite, not with fastText alone), so it gets a clean process of its own.
        """
        p = params or FastTextParams()
        kwargs = dict(
            input=str(path), dim=p.dim, minn=p.minn, maxn=p.maxn, lr=p.lr, epoch=p.epoch, loss=p.loss,
            wordNgrams=p.word_ngrams, bucket=p.bucket, minCount=p.min_count, thread=p.threads, seed=p.seed,
            label=LABEL_PREFIX, verbose=verbose,
        )
        with tempfile.TemporaryDirectory(prefix="smartcrawl-fasttext-model-") as tmp:
            out = Path(tmp) / "model.bin"
            ctx = multiprocessing.get_context("spawn")
            with ctx.Pool(1) as pool:
                pool.apply(_train_and_save, (kwargs, str(out)))
            return cls(fasttext.load_model(str(out)))

    @classmethod
    def train(
        cls, urls: Iterable[str], labels: Iterable[str], params: FastTextParams | None = None, verbose: int = 0
    ) -> FastTextUrlClassifier:
        """Train on URLs and their labels (written to a temporary file in fastText's format)."""
        with tempfile.TemporaryDirectory(prefix="smartcrawl-fasttext-") as tmp:
            path = Path(tmp) / "train.txt"
            with path.open("w", encoding="utf-8") as fh:
                n = write_training_file(fh, urls, labels)
            if n == 0:
                raise ValueError("no training examples")
            return cls.train_file(path, params, verbose)

    @property
    def labels(self) -> list[str]:
        """The labels the model can predict."""
        return [str(lab)[len(LABEL_PREFIX):] for lab in self.model.get_labels()]

    def predict_with_proba(self, urls: Iterable[str]) -> tuple[list[str], list[float]]:
        """Top label and its probability for each URL; an empty URL text gives ``und`` with 0.0."""
        texts = [url_text(u) for u in urls]
        preds: list[str] = [UNKNOWN] * len(texts)
        probs: list[float] = [0.0] * len(texts)
        idx = [i for i, t in enumerate(texts) if t]
        if idx:
            labs, ps = self.model.predict([texts[i] for i in idx], k=1)
            for i, lab, p in zip(idx, labs, ps, strict=True):
                if len(lab):
                    preds[i] = str(lab[0])[len(LABEL_PREFIX):]
                    probs[i] = float(p[0])
        return preds, probs

    def predict(self, urls: Iterable[str]) -> list[str]:
        """Top label for each URL."""
        return self.predict_with_proba(urls)[0]

    def save(self, path: str | Path) -> Path:
        """Save the model (fastText's binary format); parent directories are created."""
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        self.model.save_model(str(out))
        return out

    @classmethod
    def load(cls, path: str | Path) -> FastTextUrlClassifier:
        """Load a model written by :meth:`save`."""
        return cls(fasttext.load_model(str(path)))


def _read(data_dir: Path, split: str) -> pd.DataFrame:
    path = data_dir / f"{split}.parquet"
    if not path.is_file():
        raise FileNotFoundError(f"missing split file {path}")
    return pd.read_parquet(path, columns=["url", "lang"])


def _write_split_file(src: Path, dst: Path, batch_rows: int = 65536) -> int:
    """Stream a split's Parquet file into fastText's format without loading it whole."""
    n = 0
    with dst.open("w", encoding="utf-8") as fh:
        for batch in pq.ParquetFile(src).iter_batches(batch_size=batch_rows, columns=["url", "lang"]):
            cols = batch.to_pydict()
            n += write_training_file(fh, cols["url"], (str(x) for x in cols["lang"]))
    return n


def run(data_dir: str | Path, out_dir: str | Path, params: FastTextParams | None = None) -> dict[str, Any]:
    """Train on ``train.parquet``, evaluate on dev and test, write the model, metrics and test predictions."""
    data, out = Path(data_dir), Path(out_dir)
    p = params or FastTextParams()
    out.mkdir(parents=True, exist_ok=True)
    train_path = data / "train.parquet"
    if not train_path.is_file():
        raise FileNotFoundError(f"missing split file {train_path}")
    with tempfile.TemporaryDirectory(prefix="smartcrawl-fasttext-") as tmp:
        txt = Path(tmp) / "train.txt"
        n_train = _write_split_file(train_path, txt)
        log.info("training fastText on %d URLs with %s", n_train, p)
        clf = FastTextUrlClassifier.train_file(txt, p)
    clf.save(out / MODEL_FILE)
    results: dict[str, Any] = {"model": "fasttext_url", "params": asdict(p), "n_train": n_train,
                                  "labels": sorted(clf.labels)}
    test_pred: list[str] = []
    test = pd.DataFrame()
    for split in ("dev", "test"):
        df = _read(data, split)
        pred = clf.predict(df["url"].tolist())
        metrics = classification_metrics(df["lang"].astype(str).tolist(), pred)
        results[split] = metrics
        log.info("%s %s", split, summary_line(metrics))
        if split == "test":
            test, test_pred = df, pred
    write_metrics(out / "metrics.json", results)
    pd.DataFrame({"url": test["url"], "lang": test["lang"], "pred": test_pred}).to_parquet(
        out / "predictions.parquet", index=False
    )
    return results


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: ``--data DIR --out RESULTS_DIR`` plus the hyper-parameters (see :func:`run`)."""
    d = FastTextParams()
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--data", required=True, type=Path, help="prepared langid dir with {train,dev,test}.parquet")
    p.add_argument("--out", required=True, type=Path, help="results dir (model.bin, metrics.json, predictions.parquet)")
    p.add_argument("--dim", type=int, default=d.dim)
    p.add_argument("--minn", type=int, default=d.minn)
    p.add_argument("--maxn", type=int, default=d.maxn)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--epoch", type=int, default=d.epoch)
    p.add_argument("--loss", default=d.loss, choices=["hs", "softmax", "ns", "ova"])
    p.add_argument("--word-ngrams", type=int, default=d.word_ngrams)
    p.add_argument("--bucket", type=int, default=d.bucket)
    p.add_argument("--threads", type=int, default=d.threads)
    p.add_argument("--seed", type=int, default=d.seed)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    params = FastTextParams(
        dim=args.dim, minn=args.minn, maxn=args.maxn, lr=args.lr, epoch=args.epoch, loss=args.loss,
        word_ngrams=args.word_ngrams, bucket=args.bucket, threads=args.threads, seed=args.seed,
    )
    res = run(args.data, args.out, params)
    print(f"dev {summary_line(res['dev'])}")
    print(f"test {summary_line(res['test'])}")


if __name__ == "__main__":
    main()
