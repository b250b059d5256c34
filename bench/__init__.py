"""`make bench`: how fast the reference solution and the grader are, side by side with real tokenizers.

Nothing in the kit imports this package; it exists to keep the reference honest about speed and to
give the README its figures. Every contender runs in a fresh subprocess so that its time and peak
memory are its own.
"""
