"""Tables and figures made from the files under ``results/`` (never typed numbers)."""
