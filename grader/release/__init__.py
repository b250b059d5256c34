"""Release the kit: the student handout zip, the Gradescope autograder bundle, and CI templates.

Both zips are built from the kit as it stands, deterministically (sorted entries, fixed timestamps),
and the handout is scanned for anything hidden before it is written: a leak stops the build.
"""
