"""
The command-line scripts of the algorithms (``python -m stable_baselines.<algo>.run_atari`` ...): what they share,
in :mod:`.scripts` (also at :mod:`stable_baselines.common.cli`). The original's helpers for scripts are
:mod:`stable_baselines.common.cmd_util`.
"""
