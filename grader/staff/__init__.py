"""Course staff's week after grading: roster and LMS folders, late policy, overrides, feedback pages,
exports for the LMS, and the similarity check. Everything here reads the farm's output and never
changes it: policies and overrides apply at report time, so changing them needs no regrade."""
