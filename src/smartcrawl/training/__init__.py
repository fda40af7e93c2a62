"""Training of the URL classifiers: data module, Lightning module, curriculum, schedule, run outputs."""
