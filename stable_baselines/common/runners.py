"""
Experience collection of the on-policy algorithms, at its public path.

- :class:`AbstractEnvRunner` and :func:`swap_and_flatten`: the runners of A2C, ACER, ACKTR and PPO2 (their code is
  in :mod:`stable_baselines.common.model.rollouts`, with the step loop and the returns);
- :func:`traj_segment_generator` and :func:`add_vtarg_and_adv`: the segments of PPO1, TRPO and GAIL (their code is in
  :mod:`stable_baselines.common.model.segments`).
"""
from stable_baselines.common.model.rollouts import AbstractEnvRunner, swap_and_flatten
from stable_baselines.common.model.segments import add_vtarg_and_adv, traj_segment_generator

__all__ = ["AbstractEnvRunner", "swap_and_flatten", "traj_segment_generator", "add_vtarg_and_adv"]
