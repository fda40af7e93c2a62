"""Data sources, splits, synthetic negatives and the data-set builders."""
