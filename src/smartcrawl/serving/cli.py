"""Command line of the scoring service.

    python -m smartcrawl.serving --langid-dir runs/langid/model --parallel-dir runs/parallel/model \\
        --host 127.0.0.1 --port 8900 --window 0.1 --max-batch 512
    python -m smartcrawl.serving --rules --langs eng mlt --port 8900      # model-free (URL baselines)

Crawlers then use it with ``python crawl.py scorer=remote scorer.url=http://127.0.0.1:8900 ...``.
Exits with 2 on a configuration error (e.g. a directory that is not a model directory).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import Any

from smartcrawl.crawl.scoring import UrlScorer

DEFAULT_PORT = 8900


def build_parser() -> argparse.ArgumentParser:
    """The service's argument parser."""
    ap = argparse.ArgumentParser(prog="python -m smartcrawl.serving", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    models = ap.add_argument_group("scorer (trained model directories, or --rules)")
    models.add_argument("--langid-dir", help="a langid model directory written by train.py")
    models.add_argument("--parallel-dir", help="a parallel model directory written by train.py")
    models.add_argument("--device", default=None, help="cuda | cpu (default: cuda when available)")
    models.add_argument("--batch-size", type=int, default=64, help="model micro-batch inside one merged call")
    models.add_argument("--backend", default="torch", choices=["torch", "onnx", "onnx-int8"],
                        help="NeuralScorer backend (the ONNX ones need python -m smartcrawl.models.onnx_export first)")
    models.add_argument("--threads", type=int, default=None,
                        help="CPU threads of torch or onnxruntime (default: the library's choice)")
    models.add_argument("--rules", action="store_true", help="model-free RuleScorer (URL rules x URL matching)")
    models.add_argument("--langs", nargs=2, metavar=("L1", "L2"), help="the language pair of --rules (ISO 639-3)")
    serve = ap.add_argument_group("service")
    serve.add_argument("--host", default="127.0.0.1", help="bind address (0.0.0.0 to serve other machines)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT)
    serve.add_argument("--window", type=float, default=0.1,
                       help="seconds a batch waits for more requests after its first one (0: no wait)")
    serve.add_argument("--max-batch", type=int, default=512, help="items (URLs or pairs) that flush a batch at once")
    serve.add_argument("--no-early-flush", dest="early_flush", action="store_false",
                       help="always wait out the window (default: flush as soon as every active client is waiting)")
    serve.add_argument("--max-request-items", type=int, default=10_000, help="largest request accepted")
    serve.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    return ap


def build_scorer(args: argparse.Namespace) -> tuple[UrlScorer, dict[str, Any]]:
    """The scorer the arguments name and the facts ``/health`` reports about it."""
    if args.rules:
        if args.langid_dir or args.parallel_dir:
            raise ValueError("--rules takes no model directories")
        if not args.langs:
            raise ValueError("--rules needs --langs L1 L2 (e.g. --langs eng mlt)")
        from smartcrawl.crawl.scoring import RuleScorer

        return RuleScorer(args.langs), {"mode": "rules"}
    if not (args.langid_dir and args.parallel_dir):
        raise ValueError("give --langid-dir and --parallel-dir (trained model directories), or --rules --langs L1 L2")
    import torch

    from smartcrawl.models.scorer import NeuralScorer

    if args.threads:
        torch.set_num_threads(args.threads)
    kwargs: dict[str, Any] = {}
    if args.backend != "torch":
        kwargs = {"backend": args.backend, "threads": args.threads}
    scorer = NeuralScorer(args.langid_dir, args.parallel_dir, device=args.device, batch_size=args.batch_size, **kwargs)
    return scorer, {"mode": "neural", "backend": args.backend, "langid_dir": str(args.langid_dir),
                    "parallel_dir": str(args.parallel_dir)}


def main(argv: Sequence[str] | None = None) -> int:
    """Build the scorer and serve it until interrupted."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        scorer, info = build_scorer(args)
        from smartcrawl.serving.app import create_app

        app = create_app(scorer, window=args.window, max_batch=args.max_batch,
                         max_request_items=args.max_request_items, early_flush=args.early_flush, info=info)
    except ValueError as err:  # ModelDirError is a ValueError too
        print(f"error: {err}", file=sys.stderr)
        return 2
    import uvicorn

    logging.getLogger(__name__).info("scoring service (%s) on http://%s:%d, window %.3f s, max batch %d",
                                     info["mode"], args.host, args.port, args.window, args.max_batch)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, access_log=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
