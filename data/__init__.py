"""Text for the kit: the generated story corpus (corpus.py) and optional real datasets (fetch.py)."""
