"""Extras: what the model answer does beyond the stubs. No stub asks for any of it.

The answer to each stub is in the module of the same name as the starter's
(``training.py`` holds all of ``train_bpe``, ``tokenizer.py`` all of
``BPETokenizer``). What is here serves very large inputs and the command
line, which the graded tests do not need. Each builds on the answers; no
answer imports anything from here:

* ``train_large``: the package's ``train_bpe``: ``training``'s, with a
  large file counted by ``parallel_counts``;
* ``parallel_counts``: ``train_bpe`` on a file of many megabytes, counted in
  segments by worker processes, in bounded memory;
* ``segments``: where a large file may be cut (before a special token),
  reading one segment in bounded blocks, and the worker processes;
* ``encode_file``: a whole file to a binary array of token ids, in parallel
  (``python -m bpe.extras.encode_file``);
* ``progress``: a one-line progress bar on a terminal.
"""
