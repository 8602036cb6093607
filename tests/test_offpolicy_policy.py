"""The shared feed-forward body of the SAC / TD3 / DDPG policies (common/policy_parts/offpolicy_policy.py)."""
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines.common.policy_parts.offpolicy_policy import OffPolicyFeedForward, hidden_stack
from stable_baselines.common.tf_compat import tf
from stable_baselines.ddpg import policies as ddpg_policies
from stable_baselines.sac import policies as sac_policies
from stable_baselines.td3 import policies as td3_policies

OB_SPACE = spaces.Box(-1, 1, (3,), np.float32)
AC_SPACE = spaces.Box(-1, 1, (2,), np.float32)


def test_hidden_stack_names_and_values():
    with tf.Graph().as_default(), tf.Session() as sess:
        inputs = tf.constant([[1.0, -2.0]])
        with tf.variable_scope("net"):
            out = hidden_stack(inputs, [3, 4], tf.nn.relu, layer_norm=True, first_index=2)
        names = [var.name for var in tf.trainable_variables()]
        assert names == ["net/fc2/kernel:0", "net/fc2/bias:0", "net/LayerNorm/beta:0", "net/LayerNorm/gamma:0",
                         "net/fc3/kernel:0", "net/fc3/bias:0", "net/LayerNorm_1/beta:0", "net/LayerNorm_1/gamma:0"]
        sess.run(tf.global_variables_initializer())
        value = sess.run(out)
        assert value.shape == (1, 4)
        assert np.all(value >= 0.0)
        # an empty stack is the identity
        assert hidden_stack(inputs, [], tf.nn.relu, layer_norm=False) is inputs


@pytest.mark.parametrize("module", [sac_policies, td3_policies, ddpg_policies])
def test_presets_fix_feature_extraction_and_layer_norm(module):
    expected = {"MlpPolicy": ("mlp", False), "LnMlpPolicy": ("mlp", True),
                "CnnPolicy": ("cnn", False), "LnCnnPolicy": ("cnn", True)}
    for name, (extraction, norm) in expected.items():
        cls = getattr(module, name)
        assert issubclass(cls, module.FeedForwardPolicy)
        assert issubclass(cls, OffPolicyFeedForward)
        if extraction == "mlp":
            with tf.Graph().as_default(), tf.Session() as sess:
                policy = cls(sess, OB_SPACE, AC_SPACE, 1, 1, None, layers=[8])
                assert (policy.feature_extraction, policy.layer_norm, policy.layers) == (extraction, norm, [8])
                assert policy.activ_fn is tf.nn.relu


@pytest.mark.parametrize("module", [sac_policies, td3_policies, ddpg_policies])
def test_invalid_constructor_arguments(module):
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(ValueError, match="feature_extraction"):
            module.FeedForwardPolicy(sess, OB_SPACE, AC_SPACE, 1, 1, None, feature_extraction="rnn")
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(ValueError, match="at least one hidden layer"):
            module.MlpPolicy(sess, OB_SPACE, AC_SPACE, 1, 1, None, layers=[])
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(ValueError, match="Unknown keywords"):
            module.MlpPolicy(sess, OB_SPACE, AC_SPACE, 1, 1, None, n_filters=3)


def test_ddpg_critic_takes_the_action_after_the_first_layer():
    with tf.Graph().as_default(), tf.Session() as sess:
        policy = ddpg_policies.LnMlpPolicy(sess, OB_SPACE, AC_SPACE, 1, 1, None, layers=[4, 5])
        policy.make_critic()
        kernels = {var.name: var.shape.as_list() for var in tf.trainable_variables() if "kernel" in var.name}
        assert kernels == {"qf/fc0/kernel:0": [3, 4], "qf/fc1/kernel:0": [4 + 2, 5], "qf/qf_output/kernel:0": [5, 1]}


def test_sac_critics_scopes():
    with tf.Graph().as_default(), tf.Session() as sess:
        policy = sac_policies.MlpPolicy(sess, OB_SPACE, AC_SPACE, layers=[4])
        action = tf.placeholder(tf.float32, (None, 2))
        qf1, qf2, value = policy.make_critics(action=action)
        kernels = {var.name: var.shape.as_list() for var in tf.trainable_variables() if "kernel" in var.name}
        assert kernels == {"values_fn/vf/fc0/kernel:0": [3, 4], "values_fn/vf/vf/kernel:0": [4, 1],
                           "values_fn/qf1/fc0/kernel:0": [5, 4], "values_fn/qf1/qf1/kernel:0": [4, 1],
                           "values_fn/qf2/fc0/kernel:0": [5, 4], "values_fn/qf2/qf2/kernel:0": [4, 1]}
        assert [t.shape.as_list() for t in (qf1, qf2, value)] == [[None, 1]] * 3
