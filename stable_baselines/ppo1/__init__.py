"""Proximal Policy Optimization, MPI version (needs ``mpi4py``)."""
from stable_baselines.ppo1.pposgd_simple import PPO1

__all__ = ["PPO1"]
