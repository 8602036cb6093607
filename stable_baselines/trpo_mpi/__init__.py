"""Trust Region Policy Optimization (TRPO), parallelized with MPI (needs ``mpi4py``)."""
from stable_baselines.trpo_mpi.trpo_mpi import TRPO

__all__ = ["TRPO"]
