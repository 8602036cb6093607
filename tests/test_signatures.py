"""Constructor and method signatures (names, order, defaults) are those of the original manual (v2.10)."""
import inspect

import pytest

from stable_baselines import A2C, PPO2
from stable_baselines.common.base_class import BaseRLModel

# transcribed from the manual (stable_baselines.<algo>.<Class>(...) headers)
CONSTRUCTORS = {
    A2C: "policy, env, gamma=0.99, n_steps=5, vf_coef=0.25, ent_coef=0.01, max_grad_norm=0.5, "
         "learning_rate=0.0007, alpha=0.99, momentum=0.0, epsilon=1e-05, lr_schedule='constant', verbose=0, "
         "tensorboard_log=None, _init_setup_model=True, policy_kwargs=None, full_tensorboard_log=False, "
         "seed=None, n_cpu_tf_sess=None",
    PPO2: "policy, env, gamma=0.99, n_steps=128, ent_coef=0.01, learning_rate=0.00025, vf_coef=0.5, "
          "max_grad_norm=0.5, lam=0.95, nminibatches=4, noptepochs=4, cliprange=0.2, cliprange_vf=None, "
          "verbose=0, tensorboard_log=None, _init_setup_model=True, policy_kwargs=None, "
          "full_tensorboard_log=False, seed=None, n_cpu_tf_sess=None",
}

# learn(..., progress_bar=False) is this project's addition, after the manual's arguments
LEARN = {
    A2C: "total_timesteps, callback=None, log_interval=100, tb_log_name='A2C', reset_num_timesteps=True",
    PPO2: "total_timesteps, callback=None, log_interval=1, tb_log_name='PPO2', reset_num_timesteps=True",
}

METHODS = {
    "predict": "observation, state=None, mask=None, deterministic=False",
    "action_probability": "observation, state=None, mask=None, actions=None, logp=False",
    "load_parameters": "load_path_or_dict, exact_match=True",
    "save": "save_path, cloudpickle=False",
    "pretrain": "dataset, n_epochs=10, learning_rate=0.0001, adam_epsilon=1e-08, val_interval=None",
    "set_env": "env",
    "set_random_seed": "seed",
    "get_env": "",
    "get_parameter_list": "",
    "get_parameters": "",
    "get_vec_normalize_env": "",
    "setup_model": "",
}


# this project's additions, after the manual's arguments: predict / action_probability(..., action_masks=None)
# (invalid-action masking) and save(..., include_training_state=False) (exact resume)
ADDITIONS = {"predict": [("action_masks", "None")], "action_probability": [("action_masks", "None")],
             "save": [("include_training_state", "False")]}


def _parse(text: str):
    result = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, default = item.partition("=")
        result.append((name, default if default else inspect.Parameter.empty))
    return result


def _actual(func, skip_self=True):
    params = list(inspect.signature(func).parameters.values())
    if skip_self:
        params = params[1:]
    return [(p.name, repr(p.default) if p.default is not inspect.Parameter.empty else p.default) for p in params
            if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]


def _normalise(expected):
    out = []
    for name, default in expected:
        if default is not inspect.Parameter.empty:
            default = repr(eval(default))  # pylint: disable=eval-used  (our own literal table above)
        out.append((name, default))
    return out


@pytest.mark.parametrize("model_class", list(CONSTRUCTORS))
def test_constructor_signature(model_class):
    assert _actual(model_class.__init__) == _normalise(_parse(CONSTRUCTORS[model_class]))


@pytest.mark.parametrize("model_class", list(LEARN))
def test_learn_signature(model_class):
    expected = _normalise(_parse(LEARN[model_class])) + [("progress_bar", "False")]
    assert _actual(model_class.learn) == expected


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("model_class", [A2C, PPO2])
def test_method_signatures(model_class, method):
    expected = _normalise(_parse(METHODS[method])) + ADDITIONS.get(method, [])
    assert _actual(getattr(model_class, method)) == expected


def test_load_signature():
    params = inspect.signature(PPO2.load).parameters
    assert list(params)[:3] == ["load_path", "env", "custom_objects"]
    assert params["env"].default is None and params["custom_objects"].default is None
    assert any(p.kind == p.VAR_KEYWORD for p in params.values())


def test_base_class_keyword_only_arguments():
    params = inspect.signature(BaseRLModel.__init__).parameters
    for name in ("requires_vec_env", "policy_base"):
        assert params[name].kind == inspect.Parameter.KEYWORD_ONLY
    assert params["policy_kwargs"].default is None and params["seed"].default is None
    assert params["n_cpu_tf_sess"].default is None
