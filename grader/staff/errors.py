"""The one error of the staff tools: a file staff wrote (roster, policy, overrides, LMS metadata)
cannot be used as given. Its message names the file and what is wrong, for one line on stderr."""

from __future__ import annotations


class StaffFileError(ValueError):
    """A roster, policy, overrides or LMS metadata file cannot be used as given."""
