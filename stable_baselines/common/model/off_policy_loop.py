"""The off-policy env-step loop now lives in :mod:`stable_baselines.common.model.off_policy`."""
from stable_baselines.common.model.off_policy import (ABSENT, LOOP_NAMES, CallbackNames, LearnArguments,
                                                      LoopStateT, OffPolicyLoopState, Source, check_finite_losses)

__all__ = ["ABSENT", "LOOP_NAMES", "CallbackNames", "LearnArguments", "LoopStateT", "OffPolicyLoopState", "Source",
           "check_finite_losses"]
