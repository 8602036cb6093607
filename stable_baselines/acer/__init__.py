from stable_baselines.acer.acer_simple import ACER

__all__ = ["ACER"]
