"""Public path of :mod:`stable_baselines.common.command_line.scripts` (what the command-line scripts share)."""
from stable_baselines.common.command_line.scripts import (ATARI_MARGIN, N_STACKED_FRAMES, learn_and_close,  # noqa: F401
                                                          learn_and_save, learn_on_rank, monitored_atari_env,
                                                          parse_and_configure, parse_and_train, stacked_atari_env,
                                                          train_parser, vec_atari_parser, with_margin, worker_seeds,
                                                          worker_start_index)
