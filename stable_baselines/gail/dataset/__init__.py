"""Expert datasets (:class:`ExpertDataset`, :class:`DataLoader`) and their recording (:func:`generate_expert_traj`)."""
from stable_baselines.gail.dataset.dataset import DataLoader, ExpertDataset
from stable_baselines.gail.dataset.record_expert import generate_expert_traj

__all__ = ["DataLoader", "ExpertDataset", "generate_expert_traj"]
