"""Public path of :mod:`stable_baselines.common.policy_parts.action_masks` (invalid-action masks)."""
from stable_baselines.common.policy_parts.action_masks import (METHOD_NAME, checked_masks, enable_masks,  # noqa: F401
                                                               env_action_masks, env_has_action_masks, mask_width,
                                                               masked_actions, masked_probabilities, masks_enabled)
