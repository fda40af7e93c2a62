"""The scoring service (loopback only): same answers as the local scorer, dynamic batching, bad input, client errors."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx
import numpy as np
import pytest
from hydra import compose, initialize_config_dir

from smartcrawl.crawl.scoring import RuleScorer, UrlScorer
from smartcrawl.serving.app import create_app
from smartcrawl.serving.background import BackgroundService
from smartcrawl.serving.batcher import PARALLEL, DynamicBatcher, JobKey
from smartcrawl.serving.cli import main as serve_main
from smartcrawl.serving.client import RemoteScorer, ScoringServiceError, ScoringServiceUnavailable

PAIR = ("eng", "mlt")
URLS = ["http://a.test/en/news", "http://a.test/mt/news", "http://a.test/x?lang=mt", "http://a.test/about",
        "", "not a url", "ftp://a.test/en/x", "http://a.test/fr/x"]
PAIRS = [("http://a.test/en/x", "http://a.test/mt/x"), ("http://a.test/en/x", "http://a.test/mt/y"),
         ("http://a.test/x", "http://a.test/x"), ("", "http://a.test/mt/x"), ("not a url", "http://a.test/")]


def _client_urls(i: int) -> list[str]:
    return [f"http://site{i}.test/{'en' if j % 2 else 'mt'}/page-{i}-{j}" for j in range(1 + i % 5)]


class FragileScorer(RuleScorer):
    """A RuleScorer that rejects any batch holding a URL with ``boom`` (a request the model cannot take)."""

    def lang_probs(self, urls: Sequence[str], lang: str) -> np.ndarray:
        if any("boom" in u for u in urls):
            raise ValueError("cannot score 'boom'")
        return super().lang_probs(urls, lang)


@pytest.fixture(scope="module")
def rules() -> RuleScorer:
    return RuleScorer(PAIR)


@pytest.fixture(scope="module")
def rule_service(rules: RuleScorer) -> Iterator[BackgroundService]:
    with BackgroundService(create_app(rules, window=0.2, max_request_items=1000)) as service:
        yield service


@pytest.fixture(scope="module")
def tiny_dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Freshly initialised tiny langid and parallel classifiers saved as train.py saves model dirs."""
    from smartcrawl.models.encoders import EncoderSpec, build_tiny, load_tokenizer
    from smartcrawl.training.inputs import PARALLEL_LABELS
    from smartcrawl.training.outputs import save_model_dir

    spec = EncoderSpec("tiny", num_layers=1, hidden_size=16, num_heads=2, intermediate_size=32)
    tokenizer = load_tokenizer(spec)
    root = tmp_path_factory.mktemp("serving-models")
    dirs = []
    for task, labels in (("langid", ["eng", "mlt", "und"]), ("parallel", list(PARALLEL_LABELS))):
        model = build_tiny(spec, tokenizer, len(labels), dict(enumerate(labels)))
        dirs.append(save_model_dir(root / task, model, tokenizer, task, labels, 64))
    return dirs[0], dirs[1]


def _stats(url: str) -> dict:
    return httpx.get(f"{url}/health").json()["stats"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- same answers as in-process ----------------------------------------------------------------------------


def test_rule_service_matches_local(rule_service: BackgroundService, rules: RuleScorer) -> None:
    with RemoteScorer(rule_service.url, langs=PAIR) as remote:
        assert isinstance(remote, UrlScorer)
        for lang in (*PAIR, "fra", "xxx"):
            assert np.allclose(remote.lang_probs(URLS, lang), rules.lang_probs(URLS, lang))
        assert np.allclose(remote.parallel_probs(PAIRS), rules.parallel_probs(PAIRS))
        assert remote.lang_probs([], "eng").shape == (0,) and remote.parallel_probs([]).shape == (0,)
        info = remote.health()
    assert info["scorer"]["langs"] == list(PAIR) and info["window_s"] == 0.2


def test_neural_service_matches_local(tiny_dirs: tuple[Path, Path]) -> None:
    from smartcrawl.models.scorer import NeuralScorer

    local = NeuralScorer(*tiny_dirs, device="cpu", batch_size=4)
    with BackgroundService(create_app(local, window=0.01)) as service, RemoteScorer(service.url) as remote:
        for lang in ("eng", "mlt", "fin"):
            assert np.allclose(remote.lang_probs(URLS, lang), local.lang_probs(URLS, lang), atol=1e-6)
        got = remote.parallel_probs(PAIRS)
        assert np.allclose(got, local.parallel_probs(PAIRS), atol=1e-6)
        assert remote.lang_probs(URLS, "fin").max() == 0.0 and got[3] == got[4] == 0.0  # defined outputs
        assert remote.health()["scorer"]["langs"] == ["eng", "mlt"]


# -- dynamic batching --------------------------------------------------------------------------------------


def test_concurrent_clients_are_merged(rule_service: BackgroundService, rules: RuleScorer) -> None:
    n_clients = 12
    clients = [RemoteScorer(rule_service.url) for _ in range(n_clients)]
    warm, go = threading.Barrier(n_clients + 1), threading.Barrier(n_clients + 1)
    results: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def work(i: int) -> None:
        urls = _client_urls(i)
        clients[i].parallel_probs([(urls[0], urls[0])])  # crawlers already at work: known to the service
        warm.wait()
        go.wait()
        lang = clients[i].lang_probs(urls, PAIR[i % 2])
        par = clients[i].parallel_probs([(u, u.replace("/en/", "/mt/")) for u in urls])
        results[i] = (lang, par)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n_clients)]
    for t in threads:
        t.start()
    warm.wait(30)
    before = _stats(rule_service.url)
    go.wait(30)
    for t in threads:
        t.join(30)
    for c in clients:
        c.close()
    assert sorted(results) == list(range(n_clients))
    for i, (lang, par) in results.items():
        urls = _client_urls(i)
        assert np.allclose(lang, rules.lang_probs(urls, PAIR[i % 2]))
        assert np.allclose(par, rules.parallel_probs([(u, u.replace("/en/", "/mt/")) for u in urls]))
    after = _stats(rule_service.url)
    requests = after["requests"] - before["requests"]
    calls = after["model_calls"] - before["model_calls"]
    assert requests == 2 * n_clients
    assert calls < requests / 2, after  # 24 requests, 2 questions x 2 languages: far fewer calls
    assert after["merged_requests"] > before["merged_requests"] and after["early_flushes"] > before["early_flushes"]


def test_batcher_flushes_at_max_batch_and_keeps_requests_whole(rules: RuleScorer) -> None:
    async def scenario() -> tuple[list[np.ndarray], DynamicBatcher]:
        batcher = DynamicBatcher(rules, window=5.0, max_batch=4)  # the window never ends a batch here
        batcher.start()
        t0 = time.perf_counter()
        jobs = [batcher.submit(JobKey(PARALLEL), PAIRS[:2]) for _ in range(4)]
        jobs.append(batcher.submit(JobKey("lang", "mlt"), URLS))  # 8 items > max_batch: a batch of its own
        out = await asyncio.gather(*jobs)
        assert time.perf_counter() - t0 < 4.0  # size, not the 5 s window, flushed every batch but the last
        await batcher.stop()
        return out, batcher

    out, batcher = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert all(np.allclose(o, rules.parallel_probs(PAIRS[:2])) for o in out[:4])
    assert np.allclose(out[4], rules.lang_probs(URLS, "mlt"))
    assert batcher.stats.batches == 3 and batcher.stats.max_call_items == len(URLS)


def test_window_zero_still_merges_queued_requests(rules: RuleScorer) -> None:
    async def scenario() -> DynamicBatcher:
        batcher = DynamicBatcher(rules, window=0.0)
        batcher.start()
        await asyncio.gather(*(batcher.submit(JobKey("lang", "eng"), URLS) for _ in range(5)))
        await batcher.stop()
        return batcher

    batcher = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert batcher.stats.requests == 5 and batcher.stats.model_calls == 1


def test_early_flush_spares_a_lone_client_the_window(rules: RuleScorer) -> None:
    async def latency(batcher: DynamicBatcher, clients: Sequence[str]) -> float:
        t0 = time.perf_counter()
        await asyncio.gather(*(batcher.submit(JobKey("lang", "eng"), URLS, c) for c in clients))
        return time.perf_counter() - t0

    async def scenario() -> dict[str, float]:
        out = {}
        eager = DynamicBatcher(rules, window=1.0)
        eager.start()
        out["alone"] = await latency(eager, ["a"])  # the only client: no one to wait for
        eager.touch("b")
        out["both"] = await latency(eager, ["a", "b"])  # both known clients waiting: flushed at once
        out["one_of_two"] = await latency(eager, ["a"])  # b is active but silent: the window is waited out
        await eager.stop()
        assert eager.stats.early_flushes == 2 and eager.stats.model_calls == 3
        patient = DynamicBatcher(rules, window=0.3, early_flush=False)
        patient.start()
        out["patient"] = await latency(patient, ["a"])
        await patient.stop()
        return out

    out = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert out["alone"] < 0.5 and out["both"] < 0.5, out
    assert out["one_of_two"] >= 1.0 and out["patient"] >= 0.3, out


# -- bad input ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "body"), [
    ("/lang_probs", {"urls": "http://a.test/", "lang": "eng"}),
    ("/lang_probs", {"urls": [1, 2], "lang": "eng"}),
    ("/lang_probs", {"urls": ["http://a.test/"], "lang": ""}),
    ("/lang_probs", {"urls": ["http://a.test/"]}),
    ("/lang_probs", {"urls": ["http://a.test/" + "x" * 20000], "lang": "eng"}),
    ("/lang_probs", {"urls": [], "lang": "eng", "extra": 1}),
    ("/parallel_probs", {"pairs": [["http://a.test/", "http://a.test/", "http://a.test/"]]}),
    ("/parallel_probs", {"pairs": "x"}),
    ("/parallel_probs", [1, 2]),
])
def test_malformed_bodies_get_422(rule_service: BackgroundService, path: str, body: object) -> None:
    resp = httpx.post(rule_service.url + path, json=body)
    assert resp.status_code == 422, resp.text


def test_oversized_request_and_client_side_errors(rule_service: BackgroundService) -> None:
    resp = httpx.post(rule_service.url + "/lang_probs", json={"urls": ["http://a.test/"] * 1001, "lang": "eng"})
    assert resp.status_code == 413 and "at most 1000" in resp.json()["detail"]
    assert httpx.post(rule_service.url + "/lang_probs", content=b"{not json").status_code == 422
    big = [f"http://a.test/{'mt' if i % 3 else 'en'}/{i}" for i in range(2500)]
    with RemoteScorer(rule_service.url) as remote:  # the client splits what the service would refuse
        assert remote.max_request_items == 1000
        assert np.allclose(remote.lang_probs(big, "mlt"), RuleScorer(PAIR).lang_probs(big, "mlt"))
    with RemoteScorer(rule_service.url, check=False) as remote, pytest.raises(ValueError, match="413"):
        remote.max_request_items = 5000
        remote.lang_probs(big, "eng")  # a client that does not know the limit gets the service's reason


def test_one_failing_request_does_not_break_its_batch() -> None:
    scorer = FragileScorer(PAIR)
    with BackgroundService(create_app(scorer, window=0.3, early_flush=False)) as service:  # the window merges all
        good: dict[int, np.ndarray] = {}
        errors: list[Exception] = []
        barrier = threading.Barrier(5)

        def work(i: int) -> None:
            urls = ["http://a.test/boom"] if i == 0 else _client_urls(i)
            with RemoteScorer(service.url, retries=0) as remote:
                barrier.wait()
                try:
                    good[i] = remote.lang_probs(urls, "eng")
                except ValueError as err:
                    errors.append(err)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        stats = _stats(service.url)
    assert len(errors) == 1 and "400" in str(errors[0]) and "boom" in str(errors[0])
    assert sorted(good) == [1, 2, 3, 4]
    assert all(np.allclose(good[i], scorer.lang_probs(_client_urls(i), "eng")) for i in good)
    assert stats["failed_requests"] == 1 and stats["model_calls"] >= 2


# -- client errors -----------------------------------------------------------------------------------------


def test_client_says_how_to_start_an_unreachable_service() -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(ScoringServiceUnavailable, match=r"unreachable.*python -m smartcrawl\.serving"):
        RemoteScorer(url, retries=1, backoff_s=0.01)
    lazy = RemoteScorer(url, retries=0, check=False)
    with pytest.raises(ScoringServiceUnavailable, match="--rules --langs"):
        lazy.parallel_probs(PAIRS)
    with pytest.raises(ValueError, match="http"):
        RemoteScorer("127.0.0.1:8900")


def test_client_checks_the_crawl_languages(rule_service: BackgroundService) -> None:
    with pytest.raises(ScoringServiceError, match="does not score"):
        RemoteScorer(rule_service.url, langs=["eng", "fin"])


# -- wiring: crawl config and command line -----------------------------------------------------------------


def test_remote_scorer_config_drives_the_smart_strategy(repo_root: Path, rule_service: BackgroundService,
                                                        rules: RuleScorer, tmp_path: Path) -> None:
    from smartcrawl.crawl.cli import spec_from_config
    from smartcrawl.crawl.strategies import ParentPage, build_strategy

    with initialize_config_dir(config_dir=str(repo_root / "conf"), version_base="1.3"):
        cfg = compose(config_name="crawl", overrides=["pair=eng-mlt", "strategy=smart", "scorer=remote",
                                                      f"scorer.url={rule_service.url}", f"job_dir={tmp_path}"])
    spec = spec_from_config(cfg)
    assert isinstance(spec.scorer, RemoteScorer) and spec.scorer.langs == PAIR
    links = ["http://a.test/mt/x", "http://a.test/x", "http://b.test/mt/x"]
    parent = ParentPage(url="http://a.test/en/x", lang="eng")
    remote = build_strategy(spec.strategy, spec.pair, spec.scorer).outlink_priorities(parent, links)
    local = build_strategy(spec.strategy, spec.pair, rules).outlink_priorities(parent, links)
    assert remote == local


def test_cli_rejects_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert serve_main(["--rules"]) == 2
    assert serve_main([]) == 2
    assert serve_main(["--langid-dir", str(tmp_path), "--parallel-dir", str(tmp_path)]) == 2
    assert "not a smartcrawl model directory" in capsys.readouterr().err


def test_cli_serves_rules(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "smartcrawl.serving", "--rules", "--langs", "eng", "mlt",
                             "--port", str(port), "--window", "0.01", "--log-level", "warning"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                remote = RemoteScorer(f"http://127.0.0.1:{port}", retries=0, langs=PAIR)
                break
            except ScoringServiceUnavailable:
                assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
                assert time.monotonic() < deadline, "the service did not start within 30 s"
                time.sleep(0.2)
        assert np.allclose(remote.lang_probs(URLS, "mlt"), RuleScorer(PAIR).lang_probs(URLS, "mlt"))
        assert remote.health()["window_s"] == 0.01
        remote.close()
    finally:
        proc.terminate()
        proc.wait(10)
