from stable_baselines.acktr.acktr import ACKTR
from stable_baselines.acktr.kfac import KfacOptimizer

__all__ = ["ACKTR", "KfacOptimizer"]
