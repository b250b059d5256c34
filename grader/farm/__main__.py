"""`python -m grader.farm ...` runs the farm's command line, grader/farm_cli.py (`bpe-kit farm`).

That command line sits above the farm and the staff's tools (its `report --roster` shows the
staff's final grades, and it keeps the old spelling of the staff's commands), so it is run here by
name, not imported: the farm's own modules import nothing of the staff's.
"""

import runpy

runpy.run_module("grader.farm_cli", run_name="__main__", alter_sys=True)
