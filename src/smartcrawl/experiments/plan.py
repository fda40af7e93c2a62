"""Steps of every paper experiment, for the ``small`` and ``full`` settings.

A step is one command line (the repository's own entry points: ``prepare_data.py``, ``train.py``,
``crawl_eval.py``, the baselines' and evaluations' modules) and the file whose presence means it is
done. Settings:

- ``small``: me5-small cut to 2 layers (6 for the re-initialisation ablation), frozen word
  embeddings, a few thousand training examples, one to three epochs; results under
  ``results/small/``, prepared data under ``data/prepared-small/``, checkpoints under ``runs/small/``.
  Minutes per experiment on 2 CPU cores.
- ``full``: the paper's recipe (XLM-R base, the 1M + 1M curriculum, patience 5, GPU; pass
  ``model.path=/models/xlm-roberta-base`` after ``--``), 200 websim sites per pair; results under
  ``results/``. For users with GPUs; never run in CI.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from smartcrawl.data.negatives import GENERATORS, parse_negatives

SIZES: tuple[str, ...] = ("small", "full")
BEST_NEGATIVES = "rand+jaccard+remove"
ALL_NEGATIVES = "all"
PAIRS: tuple[str, ...] = ("eng-isl", "eng-mlt", "eng-fin", "spa-eus")
REINIT_RANGE: tuple[int, ...] = (0, 1, 2, 3, 4, 5)

# Training overrides per setting (key -> value; later layers replace keys, never repeat them).
TRAIN: Mapping[str, Mapping[str, str]] = {
    "small": {"model": "me5-small-2l", "train.optim.freeze_embeddings": "true", "curriculum": "none",
              "train.max_train": "3000", "train.max_dev": "300", "train.max_test": "1000", "train.max_epochs": "1",
              "train.optim.lr": "5e-4", "train.progress_bar": "false", "trainer.threads": "2"},
    "full": {"model": "xlmr-base", "trainer": "gpu", "curriculum": "paper"},
}
# Ours per setting: the run names conf/report.yaml prefers.
OURS_MODEL_TAG: Mapping[str, str] = {"small": "small", "full": "xlmr-base"}
# websim size of the crawl experiment per setting.
CRAWL: Mapping[str, Mapping[str, str]] = {
    "small": {"web.n_sites": "4", "web.n_pages": "800", "max_parallel": "2"},
    "full": {"web.n_sites": "200", "web.n_pages": "100000", "max_parallel": "8"},
}
SMALL_APPENDIX_COMBOS: tuple[str, ...] = ("rand_bi", "rand_bi+rand_mono", "+".join(parse_negatives(BEST_NEGATIVES)))


@dataclass(frozen=True)
class Settings:
    """Where an experiment reads and writes, and the options of its steps."""

    size: str
    shared_data: Path
    python: str = sys.executable
    train_extra: tuple[str, ...] = ()
    lett: Path | None = None
    scorer: str = "neural"
    langid_dir: Path | None = None
    parallel_dir: Path | None = None
    pairs: tuple[str, ...] = PAIRS
    combos: tuple[str, ...] | None = None
    needs_sample: bool = False

    def __post_init__(self) -> None:
        if self.size not in SIZES:
            raise ValueError(f"size: {self.size!r}; allowed: {', '.join(SIZES)}")

    @property
    def results(self) -> Path:
        """``results`` (full) or ``results/small``."""
        return Path("results") if self.size == "full" else Path("results/small")

    @property
    def prepared(self) -> Path:
        """``data/prepared`` (full) or ``data/prepared-small``."""
        return Path("data/prepared") if self.size == "full" else Path("data/prepared-small")

    @property
    def runs(self) -> Path:
        """``runs`` (full) or ``runs/small``: checkpoints and model directories."""
        return Path("runs") if self.size == "full" else Path("runs/small")

    def ours(self, task: str) -> str:
        """The run name of "ours" for a task in this setting (``langid-small``, ``parallel-xlmr-base``)."""
        return f"{task}-{OURS_MODEL_TAG[self.size]}"

    def model_dir(self, task: str, run_name: str) -> Path:
        """The model directory ``train.py`` writes for a run."""
        return self.runs / task / run_name / "model"


@dataclass(frozen=True)
class Step:
    """One command of an experiment; ``done`` is the file that exists once it has run."""

    name: str
    argv: tuple[str, ...]
    done: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)


def _paths(s: Settings) -> list[str]:
    return [f"paths.shared_data={s.shared_data}", f"paths.prepared_dir={s.prepared}", f"paths.results_dir={s.results}"]


def sample_step(s: Settings) -> list[Step]:
    """Build the built-in synthetic sample when the real data is absent (small setting only)."""
    if not s.needs_sample:
        return []
    return [Step("sample", (s.python, "-m", "smartcrawl.demo", "--sample-only", "--work", str(s.runs)),
                 s.shared_data / ".complete")]


def prepare_langid(s: Settings) -> Step:
    """``prepare_data.py task=langid``: the language-ID splits and their card (Figure 2)."""
    return Step("prepare-langid", (s.python, "prepare_data.py", "task=langid", *_paths(s)),
                s.results / "data" / "langid.card.json")


def prepare_parallel(s: Settings, negatives: str = BEST_NEGATIVES) -> Step:
    """``prepare_data.py task=parallel negatives=...``: the URL-pair splits and their card (Table 2)."""
    return Step(f"prepare-parallel-{negatives}",
                (s.python, "prepare_data.py", "task=parallel", f"negatives={negatives}", *_paths(s)),
                s.results / "data" / f"parallel-{negatives}.card.json")


def url_rules(s: Settings) -> Step:
    """The URL-rules language-ID baseline (order of components chosen on dev)."""
    out = s.results / "langid" / "url-rules"
    return Step("url-rules", (s.python, "-m", "smartcrawl.models.baselines.url_rules", "--data",
                              str(s.prepared / "langid"), "--out", str(out)), out / "metrics.json")


def fasttext(s: Settings) -> Step:
    """The FastText language-ID baseline (dim 16, char 2-4-grams, lr 0.1, 10 epochs)."""
    out = s.results / "langid" / "fasttext"
    return Step("fasttext", (s.python, "-m", "smartcrawl.models.baselines.fasttext_url", "--data",
                             str(s.prepared / "langid"), "--out", str(out)), out / "metrics.json")


def url_matching(s: Settings) -> Step:
    """The WMT16 URL-matching baseline on the pair test splits (Table 4, Figure 5)."""
    out = s.results / "parallel" / "url-matching"
    return Step("url-matching", (s.python, "-m", "smartcrawl.models.baselines.url_matching", "--data",
                                 str(s.prepared / "parallel" / BEST_NEGATIVES), "--out", str(out)),
                out / "metrics.json")


def train(s: Settings, task: str, run_name: str, overrides: Mapping[str, str] | None = None) -> Step:
    """``train.py`` for one run: the setting's training overrides, then ``overrides``, then the user's extras."""
    values = {**TRAIN[s.size], **(overrides or {})}
    argv = (s.python, "train.py", f"task={task}", f"run_name={run_name}", *_paths(s),
            f"run_dir={s.runs / task / run_name}", *(f"{k}={v}" for k, v in values.items()), *s.train_extra)
    return Step(f"train-{run_name}", argv, s.results / task / run_name / "metrics.json")


def wmt16_pairs(s: Settings) -> Path:
    """The WMT16 test gold pairs: the official file (full) or a subset of 40 small sites (small)."""
    official = s.shared_data / "wmt16" / "test.pairs"
    return official if s.size == "full" else s.runs / "wmt16-test-subset.pairs"


def wmt16_subset(s: Settings) -> list[Step]:
    """Write the small setting's WMT16 subset (the Cartesian product of all 203 sites is 243,788 pairs)."""
    if s.size == "full":
        return []
    return [Step("wmt16-subset", (s.python, "-m", "smartcrawl.experiments.subset_pairs", "--pairs",
                                  str(s.shared_data / "wmt16" / "test.pairs"), "--out", str(wmt16_pairs(s))),
                 wmt16_pairs(s))]


def wmt16(s: Settings, name: str, model_dir: Path | None) -> Step:
    """WMT16 recall (and soft recall with ``.lett`` files) of the URL-matching baseline or a trained model."""
    out = s.results / "wmt16" / name
    argv = [s.python, "-m", "smartcrawl.eval.wmt16", "--pairs", str(wmt16_pairs(s)), "--out", str(out)]
    argv += ["--scorer", "matching"] if model_dir is None else ["--scorer", "model", "--model-dir", str(model_dir)]
    if s.lett is not None:
        argv += ["--lett", str(s.lett)]
    return Step(f"wmt16-{name}", tuple(argv), out / "metrics.json")


def score_fixed(s: Settings, run_name: str, model_dir: Path) -> Step:
    """Score a pair model on the fixed test split built with all six generators (Appendix A)."""
    out = s.results / "parallel-fixed" / run_name
    argv = [s.python, "-m", "smartcrawl.experiments.score_pairs", "--model-dir", str(model_dir), "--data",
            str(s.prepared / "parallel" / ALL_NEGATIVES), "--split", "test", "--out", str(out)]
    if s.size == "small":
        argv += ["--max-rows", "2000"]
    return Step(f"fixed-test-{run_name}", tuple(argv), out / "metrics.json")


def crawl(s: Settings, pair: str, langid_dir: Path | None, parallel_dir: Path | None) -> Step:
    """``crawl_eval.py`` for one pair on websim with BFS, +CLD2 and +CLD2+smart (rules or neural scorer)."""
    # Separate roots per scorer: crawl_eval skips finished jobs by directory, so a neural smart crawl
    # must not find the rules scorer's finished jobs.
    name = "crawl" if s.scorer == "rules" else "crawl-neural"
    root = s.results / name
    argv = [s.python, "crawl_eval.py", f"pair={pair}", "web=websim", f"paths.results_dir={s.results}",
            f"results_root={root}", f"work_root={s.runs / name}", *(f"{k}={v}" for k, v in CRAWL[s.size].items())]
    if s.scorer == "neural":
        argv += ["scorer=neural", f"scorer.langid_dir={langid_dir}", f"scorer.parallel_dir={parallel_dir}"]
    return Step(f"crawl-{pair}", tuple(argv), root / pair / "websim" / "summary.json")


# ------------------------------------------------------------------------------------------ experiments
def table1_langid(s: Settings) -> list[Step]:
    """Table 1 (and Figure 3): data, the two baselines and ours."""
    return [*sample_step(s), prepare_langid(s), url_rules(s), fasttext(s), train(s, "langid", s.ours("langid"))]


def figure2_languages(s: Settings) -> list[Step]:
    """Figure 2: the language-ID data card."""
    return [*sample_step(s), prepare_langid(s)]


def table2_parallel_data(s: Settings) -> list[Step]:
    """Table 2: the URL-pair data card with the paper's best negatives."""
    return [*sample_step(s), prepare_parallel(s)]


def table4_parallel(s: Settings) -> list[Step]:
    """Table 4 (and Figure 5): pair data, the URL-matching baseline and ours."""
    return [*sample_step(s), prepare_parallel(s), url_matching(s), train(s, "parallel", s.ours("parallel"))]


def table3_wmt16(s: Settings) -> list[Step]:
    """Table 3: WMT16 recall of the URL-matching baseline and of ours."""
    ours = s.ours("parallel")
    return [*sample_step(s), *wmt16_subset(s), wmt16(s, "url-matching", None), prepare_parallel(s),
            train(s, "parallel", ours),
            wmt16(s, ours, s.model_dir("parallel", ours))]


def figure7_crawl(s: Settings) -> list[Step]:
    """Figure 7: crawl the four pairs' websim webs (the neural scorer needs both models: trained here or given)."""
    steps: list[Step] = []
    langid_dir, parallel_dir = s.langid_dir, s.parallel_dir
    if s.scorer == "neural":
        if langid_dir is None:
            steps += [*sample_step(s), prepare_langid(s), train(s, "langid", s.ours("langid"))]
            langid_dir = s.model_dir("langid", s.ours("langid"))
        if parallel_dir is None:
            steps += [*([] if steps else sample_step(s)), prepare_parallel(s), train(s, "parallel", s.ours("parallel"))]
            parallel_dir = s.model_dir("parallel", s.ours("parallel"))
    return steps + [crawl(s, pair, langid_dir, parallel_dir) for pair in s.pairs]


def negative_combinations(size: str) -> tuple[str, ...]:
    """Appendix A's combinations: every non-empty subset of the six generators (full), three (small)."""
    if size == "small":
        return SMALL_APPENDIX_COMBOS
    sizes = range(1, len(GENERATORS) + 1)
    subsets = itertools.chain.from_iterable(itertools.combinations(GENERATORS, k) for k in sizes)
    return tuple("+".join(c) for c in subsets)


def appendix_a_negatives(s: Settings) -> list[Step]:
    """Appendix A: per combination, prepare, train, score on WMT16 and on the fixed all-generator test split."""
    steps = [*sample_step(s), *wmt16_subset(s), prepare_parallel(s, ALL_NEGATIVES)]
    for combo in s.combos or negative_combinations(s.size):
        spec = "+".join(parse_negatives(combo))
        run = f"parallel-neg-{spec}"
        steps += [prepare_parallel(s, spec), train(s, "parallel", run, {"negatives": spec}),
                  wmt16(s, run, s.model_dir("parallel", run)), score_fixed(s, run, s.model_dir("parallel", run))]
    return steps


def ablation_reinit(s: Settings) -> list[Step]:
    """Re-initialise the top n = 0..5 layers before fine-tuning (language ID)."""
    model = {"model": "me5-small-6l"} if s.size == "small" else {}
    return [*sample_step(s), prepare_langid(s)] + [
        train(s, "langid", f"langid-reinit{n}", {**model, "model.reinit_top_layers": str(n)}) for n in REINIT_RANGE]


def ablation_curriculum(s: Settings) -> list[Step]:
    """The fold-growing curriculum against all training data in every epoch (language ID)."""
    if s.size == "small":
        grow = {"curriculum": "none", "curriculum.start": "1000", "curriculum.step": "1000", "train.max_epochs": "3"}
        flat = {"curriculum": "none", "train.max_epochs": "3"}
    else:
        grow, flat = {"curriculum": "paper"}, {"curriculum": "none"}
    return [*sample_step(s), prepare_langid(s), train(s, "langid", "langid-curriculum-grow", grow),
            train(s, "langid", "langid-curriculum-none", flat)]


EXPERIMENTS: Mapping[str, Callable[[Settings], list[Step]]] = {
    "table1_langid": table1_langid,
    "figure2_languages": figure2_languages,
    "figure3_per_language": table1_langid,
    "table2_parallel_data": table2_parallel_data,
    "table3_wmt16": table3_wmt16,
    "table4_parallel": table4_parallel,
    "figure5_pairs": table4_parallel,
    "figure7_crawl": figure7_crawl,
    "appendix_a_negatives": appendix_a_negatives,
    "ablation_reinit": ablation_reinit,
    "ablation_curriculum": ablation_curriculum,
}


def plan(name: str, settings: Settings) -> list[Step]:
    """The steps of experiment ``name`` (one of :data:`EXPERIMENTS`) in ``settings``."""
    if name not in EXPERIMENTS:
        raise KeyError(f"unknown experiment {name!r}; known: {', '.join(EXPERIMENTS)}")
    return EXPERIMENTS[name](settings)


def unique(steps: Sequence[Step]) -> list[Step]:
    """Steps without repeats (same command), in order."""
    seen: set[tuple[str, ...]] = set()
    out = []
    for step in steps:
        if step.argv not in seen:
            seen.add(step.argv)
            out.append(step)
    return out
