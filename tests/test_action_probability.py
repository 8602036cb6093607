"""
``action_probability`` of given actions (``stable_baselines.common.model.probabilities``): the batch checks of
every action space, and the one-action broadcast the original allowed for Box actions.
"""
import numpy as np
import pytest

from stable_baselines import A2C


def test_box_action_probability_checks_the_batch():
    model = A2C("MlpPolicy", "Pendulum-v1", seed=0, n_cpu_tf_sess=1)
    obs = np.zeros((4, 3), dtype=np.float32)
    # one action for a batch of observations: broadcast, as the original did
    assert model.action_probability(obs, actions=np.array([0.5])).shape == (4, 1)
    assert model.action_probability(obs, actions=np.full((4, 1), 0.5)).shape == (4, 1)
    # three actions for one observation: refused, not reduced to one density
    with pytest.raises(ValueError, match=r"batch sizes differ for actions \(3\) and observations \(1\)"):
        model.action_probability(obs[0], actions=np.array([0.1, 0.2, 0.3]))
    mean, std = model.action_probability(obs)
    expected = -0.5 * ((0.5 - mean) / std) ** 2 - np.log(std) - 0.5 * np.log(2 * np.pi)
    np.testing.assert_allclose(model.action_probability(obs, actions=np.array([0.5]), logp=True),
                               expected.reshape(4, 1), rtol=1e-5)
