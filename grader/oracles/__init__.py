"""The private reference behaviour (working oracles for Parts 1-3) and the fixture maker.

Never shipped in the handout: `grader/oracles/**` is the one glob that says so.
"""
