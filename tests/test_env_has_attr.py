"""
Whether an environment defines a method is asked in ONE way (``env_has_attr``), through every wrapper and worker
process, without calling it. The case that matters: an ordinary masked env whose mask exists only once it has been
reset (``action_masks()`` raises AttributeError before), handed to a model in every way a user hands over an env.
"""
from typing import Any, Callable, Dict, Optional, Tuple

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import DQN, PPO2
from stable_baselines.bench import Monitor
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.vec_env import (DummyVecEnv, SubprocVecEnv, VecEnv, VecFrameStack, VecNormalize,
                                             env_has_attr)
from stable_baselines.common.vec_env.single_env import has_env_attr
from mask_env_helpers import (MASK_ENV_ID, N_ACTIONS, BrokenMaskEnv, LegacyMaskAfterResetEnv,  # noqa: F401
                              MaskAfterResetEnv, UserWrapper)

try:
    from stable_baselines import PPO1
except ImportError:  # without mpi4py
    PPO1 = None

def _env_kinds() -> Dict[str, Callable[[], Any]]:
    return {
        "id": lambda: MASK_ENV_ID,
        "plain": MaskAfterResetEnv,
        "legacy 4-tuple": LegacyMaskAfterResetEnv,
        "Monitor": lambda: Monitor(MaskAfterResetEnv(), filename=None),
        "gymnasium wrappers": lambda: gymnasium.wrappers.TimeLimit(UserWrapper(MaskAfterResetEnv()), 25),
        "DummyVecEnv": lambda: DummyVecEnv([MaskAfterResetEnv, MaskAfterResetEnv]),
        "SubprocVecEnv": lambda: SubprocVecEnv([MaskAfterResetEnv, MaskAfterResetEnv]),
        "VecNormalize": lambda: VecNormalize(DummyVecEnv([MaskAfterResetEnv])),
        "VecFrameStack": lambda: VecFrameStack(DummyVecEnv([MaskAfterResetEnv]), 2),
    }


def _forbidden(env: Any) -> int:
    if isinstance(env, VecEnv):
        return int(sum(env.get_attr("forbidden")))
    layer = env
    while not isinstance(layer, MaskAfterResetEnv):
        layer = layer.env
    return layer.forbidden


def test_defined_method_is_found_without_calling_it() -> None:
    env = MaskAfterResetEnv()
    with pytest.raises(AttributeError):
        env.action_masks()  # no mask before the first reset
    assert has_env_attr(env, "action_masks") and env_has_attr(env, "action_masks")
    assert not env_has_attr(env, "compute_reward") and not env_has_attr(None, "action_masks")
    for kind, make in _env_kinds().items():
        made = make()
        if isinstance(made, str):  # the model makes the env of an id (asked below, through the model's env)
            continue
        try:
            assert env_has_attr(made, "action_masks"), kind
            assert not env_has_attr(made, "no_such_method"), kind
        finally:
            if isinstance(made, VecEnv):
                made.close()


def _small(model_class: type) -> Dict[str, Any]:
    if model_class is DQN:
        return dict(learning_starts=50, buffer_size=500, policy_kwargs=dict(layers=[16]))
    if model_class is PPO1:
        return dict(timesteps_per_actorbatch=64, optim_batchsize=16)
    return dict(n_steps=16, nminibatches=1)


# A2C, ACER, ACKTR, DQN, TRPO and GAIL train on a masked env through every kind in the feature x env matrix
# (tests/test_feature_env_matrix.py, its discrete task); PPO2 and PPO1 play its continuous task, so their masks
# through the kinds are checked here
MODELS = [PPO2] + ([PPO1] if PPO1 is not None else [])
# a single-env algorithm cannot take a VecEnv of two envs: those kinds get one env
SINGLE_ENV_MODELS = {DQN, PPO1}


@pytest.mark.parametrize("kind", sorted(_env_kinds()))
@pytest.mark.parametrize("model_class", MODELS, ids=lambda cls: cls.__name__)
def test_training_takes_no_forbidden_action(model_class: type, kind: str) -> None:
    make = _env_kinds()[kind]
    if model_class in SINGLE_ENV_MODELS and kind in ("DummyVecEnv", "SubprocVecEnv"):
        vec_class = SubprocVecEnv if kind == "SubprocVecEnv" else DummyVecEnv
        make = lambda: vec_class([MaskAfterResetEnv])  # noqa: E731
    env = make()
    try:
        model = model_class("MlpPolicy", env, seed=0, n_cpu_tf_sess=1, **_small(model_class))
        assert model.uses_action_masks
        if isinstance(env, str):  # an id: the env the model made of it
            env = model.get_env()
            assert env_has_attr(env, "action_masks")
        model.learn(200)
        assert _forbidden(env) == 0
        # evaluation reads the masks the same way
        before = _forbidden(env)
        evaluate_policy(model, model.get_env(), n_eval_episodes=2, deterministic=False)
        assert _forbidden(env) == before
    finally:
        if isinstance(env, VecEnv):
            env.close()


@pytest.mark.parametrize("model_class", [PPO2, DQN], ids=lambda cls: cls.__name__)
def test_an_error_of_the_mask_method_reaches_the_user(model_class: type) -> None:
    model = model_class("MlpPolicy", BrokenMaskEnv(), seed=0, n_cpu_tf_sess=1, **_small(model_class))
    assert model.uses_action_masks
    with pytest.raises(KeyError, match="the user's bug"):
        model.learn(100)


@pytest.mark.parametrize("model_class", [DQN, PPO2], ids=lambda cls: cls.__name__)
def test_eval_callback_compares_the_users_env_types(model_class: type) -> None:
    """The rl-baselines-zoo hands DummyVecEnvs to training and evaluation: no warning about an internal class."""
    import warnings

    from stable_baselines.common.callbacks import EvalCallback

    model = model_class("MlpPolicy", DummyVecEnv([MaskAfterResetEnv]), seed=0, n_cpu_tf_sess=1,
                        **_small(model_class))
    callback = EvalCallback(DummyVecEnv([MaskAfterResetEnv]), n_eval_episodes=1, eval_freq=50)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.learn(100, callback=callback)
    assert not [str(w.message) for w in caught if "same type" in str(w.message)]
    assert np.isfinite(callback.last_mean_reward)  # it evaluated
    # an eval env of another kind is still pointed out, naming the user's training env
    other = EvalCallback(VecFrameStack(DummyVecEnv([MaskAfterResetEnv]), 1), n_eval_episodes=1, eval_freq=50)
    with pytest.warns(UserWarning, match="same type.*DummyVecEnv"):
        model.learn(50, callback=other)
