"""
The original manual's code examples, run as the manual prints them.

Each example below is the manual's code with only:

* the changes listed on the migration page (docs/guide/migration.rst), each marked ``# CHANGED``:
  ``import gym`` -> ``import gymnasium as gym``, ``import tensorflow as tf`` ->
  ``import tensorflow.compat.v1 as tf``, renamed gymnasium ids, and for loops that step a single
  environment by hand the one-line ``DummyVecEnv`` wrap (the VecEnv keeps the old 4-value API);
* smaller training budgets (marked ``# manual: <original value>``), so that the file stays fast;
* ``render()`` calls kept (they do nothing on an env created without a ``render_mode``).

When Box2D is not installed, the LunarLander ids are replaced by a classic-control task of the same
action-space kind (CartPole-v1 / Pendulum-v1), which is the only edit made at run time.

Every example runs in its own temporary working directory (the manual's examples save files in the
current directory) and its own namespace; each model owns its own ``tf.Graph``.
"""
import importlib.util
import os
import textwrap

import numpy as np
import pytest

from stable_baselines.common.safe_pickle import SafeUnpicklingError

HAS_BOX2D = importlib.util.find_spec("Box2D") is not None
HAS_PYGAME = importlib.util.find_spec("pygame") is not None
HAS_IMAGEIO = importlib.util.find_spec("imageio") is not None
HAS_MPI = importlib.util.find_spec("mpi4py") is not None


def run_example(source: str, tmp_path, monkeypatch) -> dict:
    """Execute a manual example in ``tmp_path`` (as a script: ``__name__ == '__main__'``); return its namespace."""
    source = textwrap.dedent(source)
    if not HAS_BOX2D:
        source = (source.replace("'LunarLanderContinuous-v2'", "'Pendulum-v1'")
                  .replace("'LunarLanderContinuous-v3'", "'Pendulum-v1'")
                  .replace("'LunarLander-v2'", "'CartPole-v1'").replace("'LunarLander-v3'", "'CartPole-v1'")
                  .replace('"LunarLander-v2"', '"CartPole-v1"').replace('"LunarLander-v3"', '"CartPole-v1"'))
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    exec(compile(source, "<manual example>", "exec"), namespace)  # noqa: S102 (our own test code)
    return namespace


# --- Getting started ---------------------------------------------------------------------------------------

GETTING_STARTED = """
import gymnasium as gym  # CHANGED: import gym

from stable_baselines.common.policies import MlpPolicy
from stable_baselines.common.vec_env import DummyVecEnv
from stable_baselines import PPO2

env = gym.make('CartPole-v1')
# Optional: PPO2 requires a vectorized environment to run
# the env is now wrapped automatically when passing it to the constructor
env = DummyVecEnv([lambda: env])  # CHANGED: uncommented (the loop below uses the 4-value VecEnv API)

model = PPO2(MlpPolicy, env, verbose=1)
model.learn(total_timesteps=500)  # manual: 10000

obs = env.reset()
for i in range(200):  # manual: 1000
    action, _states = model.predict(obs)
    obs, rewards, dones, info = env.step(action)
    env.render()
"""

ONE_LINER = """
from stable_baselines import PPO2
model = PPO2('MlpPolicy', 'CartPole-v1').learn(256)  # manual: 10000
"""


def test_getting_started(tmp_path, monkeypatch):
    namespace = run_example(GETTING_STARTED, tmp_path, monkeypatch)
    assert namespace["obs"].shape == (1, 4)
    # PPO2 trains in whole rollouts of n_steps=128: 3 of them fit in 500 steps
    assert namespace["model"].num_timesteps == 384
    namespace = run_example(ONE_LINER, tmp_path, monkeypatch)
    assert namespace["model"].num_timesteps == 256


# --- Basic usage: train, save, load (DQN) -------------------------------------------------------------------

BASIC_USAGE = """
import gymnasium as gym  # CHANGED: import gym

from stable_baselines import DQN
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.vec_env import DummyVecEnv  # CHANGED: added (for the wrap below)


# Create environment
env = gym.make('LunarLander-v3')  # CHANGED: 'LunarLander-v2'
env = DummyVecEnv([lambda: env])  # CHANGED: added (the loop below uses the 4-value VecEnv API)

# Instantiate the agent
model = DQN('MlpPolicy', env, learning_rate=1e-3, prioritized_replay=True, verbose=1)
# Train the agent
model.learn(total_timesteps=int(500))  # manual: int(2e5)
# Save the agent
model.save("dqn_lunar")
del model # delete trained model to demonstrate loading

# Load the trained agent
model = DQN.load("dqn_lunar")

# Evaluate the agent
mean_reward, std_reward = evaluate_policy(model, env, n_eval_episodes=2)  # manual: model.get_env(), 10 episodes

# Enjoy trained agent
obs = env.reset()
for i in range(200):  # manual: 1000
    action, _states = model.predict(obs)
    obs, rewards, dones, info = env.step(action)
    env.render()
"""


def test_basic_usage_dqn(tmp_path, monkeypatch):
    namespace = run_example(BASIC_USAGE, tmp_path, monkeypatch)
    assert os.path.isfile(os.path.join(str(tmp_path), "dqn_lunar.zip"))
    assert np.isfinite(namespace["mean_reward"])


# --- Multiprocessing ------------------------------------------------------------------------------------------

MULTIPROCESSING = """
import gymnasium as gym  # CHANGED: import gym
import numpy as np

from stable_baselines.common.policies import MlpPolicy
from stable_baselines.common.vec_env import SubprocVecEnv
from stable_baselines.common import set_global_seeds, make_vec_env
from stable_baselines import ACKTR

def make_env(env_id, rank, seed=0):
    \"\"\"
    Utility function for multiprocessed env.

    :param env_id: (str) the environment ID
    :param num_env: (int) the number of environments you wish to have in subprocesses
    :param seed: (int) the initial seed for RNG
    :param rank: (int) index of the subprocess
    \"\"\"
    def __init__():
        env = gym.make(env_id, render_mode="rgb_array")  # CHANGED: gym.make(env_id) (render mode at creation)
        env.reset(seed=seed + rank)  # CHANGED: env.seed(seed + rank) (gymnasium seeds through reset)
        return env
    set_global_seeds(seed)
    return __init__

if __name__ == '__main__':
    env_id = "CartPole-v1"
    num_cpu = 2  # manual: 4 (processes to use)
    # Create the vectorized environment
    env = SubprocVecEnv([make_env(env_id, i) for i in range(num_cpu)])

    # Stable Baselines provides you with make_vec_env() helper
    # which does exactly the previous steps for you:
    # env = make_vec_env(env_id, n_envs=num_cpu, seed=0)

    model = ACKTR(MlpPolicy, env, verbose=1)
    model.learn(total_timesteps=200)  # manual: 25000

    obs = env.reset()
    for _ in range(50):  # manual: 1000
        action, _states = model.predict(obs)
        obs, rewards, dones, info = env.step(action)
        env.render()
    env.close()  # ADDED for the test: stop the worker processes
"""


def test_multiprocessing(tmp_path, monkeypatch):
    shown = []  # no display here: record the tiled images env.render() would show
    monkeypatch.setattr("stable_baselines.common.vec_env.base_vec_env._show_image", shown.append)
    namespace = run_example(MULTIPROCESSING, tmp_path, monkeypatch)
    assert len(shown) == 50 and shown[0].ndim == 3 and shown[0].shape[2] == 3
    assert namespace["obs"].shape == (2, 4)
    assert namespace["model"].num_timesteps >= 200


# --- Callbacks ------------------------------------------------------------------------------------------------

SAVE_ON_BEST_CALLBACK = """
import os

import gymnasium as gym  # CHANGED: import gym
import numpy as np
import matplotlib.pyplot as plt

from stable_baselines import DDPG
from stable_baselines.ddpg.policies import LnMlpPolicy
from stable_baselines import results_plotter
from stable_baselines.bench import Monitor
from stable_baselines.results_plotter import load_results, ts2xy
from stable_baselines.common.noise import AdaptiveParamNoiseSpec
from stable_baselines.common.callbacks import BaseCallback


class SaveOnBestTrainingRewardCallback(BaseCallback):
    \"\"\"
    Callback for saving a model (the check is done every ``check_freq`` steps)
    based on the training reward (in practice, we recommend using ``EvalCallback``).

    :param check_freq: (int)
    :param log_dir: (str) Path to the folder where the model will be saved.
      It must contains the file created by the ``Monitor`` wrapper.
    :param verbose: (int)
    \"\"\"
    def __init__(self, check_freq: int, log_dir: str, verbose=1):
        super(SaveOnBestTrainingRewardCallback, self).__init__(verbose)
        self.check_freq = check_freq
        self.log_dir = log_dir
        self.save_path = os.path.join(log_dir, 'best_model')
        self.best_mean_reward = -np.inf

    def _init_callback(self) -> None:
        # Create folder if needed
        if self.save_path is not None:
            os.makedirs(self.save_path, exist_ok=True)

    def _on_step(self) -> bool:
        if self.n_calls % self.check_freq == 0:

          # Retrieve training reward
          x, y = ts2xy(load_results(self.log_dir), 'timesteps')
          if len(x) > 0:
              # Mean training reward over the last 100 episodes
              mean_reward = np.mean(y[-100:])
              if self.verbose > 0:
                print("Num timesteps: {}".format(self.num_timesteps))
                print("Best mean reward: {:.2f} - Last mean reward per episode: {:.2f}"
                    .format(self.best_mean_reward, mean_reward))

              # New best model, you could save the agent here
              if mean_reward > self.best_mean_reward:
                  self.best_mean_reward = mean_reward
                  # Example for saving best model
                  if self.verbose > 0:
                    print("Saving new best model to {}".format(self.save_path))
                  self.model.save(self.save_path)

        return True

# Create log dir
log_dir = "tmp/"
os.makedirs(log_dir, exist_ok=True)

# Create and wrap the environment
env = gym.make('LunarLanderContinuous-v3')  # CHANGED: 'LunarLanderContinuous-v2'
env = Monitor(env, log_dir)

# Add some param noise for exploration
param_noise = AdaptiveParamNoiseSpec(initial_stddev=0.1, desired_action_stddev=0.1)
# Because we use parameter noise, we should use a MlpPolicy with layer normalization
model = DDPG(LnMlpPolicy, env, param_noise=param_noise, verbose=0)
# Create the callback: check every 1000 steps
callback = SaveOnBestTrainingRewardCallback(check_freq=200, log_dir=log_dir)  # manual: check_freq=1000
# Train the agent
time_steps = 400  # manual: 1e5
model.learn(total_timesteps=int(time_steps), callback=callback)

results_plotter.plot_results([log_dir], time_steps, results_plotter.X_TIMESTEPS, "DDPG LunarLander")
plt.show()
"""


@pytest.mark.skipif(not HAS_MPI, reason="DDPG needs mpi4py (the [mpi] extra)")
def test_callback_save_on_best_training_reward(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt
    monkeypatch.setattr(plt, "show", lambda *args, **kwargs: None)  # headless: nothing to show
    namespace = run_example(SAVE_ON_BEST_CALLBACK, tmp_path, monkeypatch)
    assert namespace["callback"].best_mean_reward > -np.inf
    assert os.path.isfile(os.path.join(str(tmp_path), "tmp", "best_model.zip"))
    assert plt.gca().get_title() == "DDPG LunarLander"
    plt.close("all")


CUSTOM_CALLBACK = """
from stable_baselines.common.callbacks import BaseCallback

class CustomCallback(BaseCallback):
    \"\"\"
    A custom callback that derives from ``BaseCallback``.

    :param verbose: (int) Verbosity level 0: not output 1: info 2: debug
    \"\"\"
    def __init__(self, verbose=0):
        super(CustomCallback, self).__init__(verbose)
        self.events = []  # ADDED for the test: record the events

    def _on_training_start(self) -> None:
        self.events.append("training_start")

    def _on_rollout_start(self) -> None:
        self.events.append("rollout_start")

    def _on_step(self) -> bool:
        self.events.append("step")
        return True

    def _on_rollout_end(self) -> None:
        self.events.append("rollout_end")

    def _on_training_end(self) -> None:
        self.events.append("training_end")

from stable_baselines import PPO2  # ADDED for the test: use the callback
callback = CustomCallback()
PPO2('MlpPolicy', 'CartPole-v1', n_steps=64).learn(128, callback=callback)
"""


def test_custom_callback_events(tmp_path, monkeypatch):
    events = run_example(CUSTOM_CALLBACK, tmp_path, monkeypatch)["callback"].events
    assert events[0] == "training_start" and events[-1] == "training_end"
    assert events.count("rollout_start") == events.count("rollout_end") == 2
    assert events.count("step") == 128


CHECKPOINT_EVAL_CALLBACKS = """
import gymnasium as gym  # CHANGED: import gym

from stable_baselines import SAC
from stable_baselines.common.callbacks import CallbackList, CheckpointCallback, EvalCallback

checkpoint_callback = CheckpointCallback(save_freq=200, save_path='./logs/')  # manual: save_freq=1000
# Separate evaluation env
eval_env = gym.make('Pendulum-v1')  # CHANGED: 'Pendulum-v0'
eval_callback = EvalCallback(eval_env, best_model_save_path='./logs/best_model',
                             log_path='./logs/results', eval_freq=200, n_eval_episodes=1)  # manual: 500, 5
# Create the callback list
callback = CallbackList([checkpoint_callback, eval_callback])

# 'Pendulum-v0' needs no change here: an id string given to a model is mapped, with a warning
model = SAC('MlpPolicy', 'Pendulum-v0', learning_starts=100)  # manual: no learning_starts (fast test)
# Equivalent to:
# model.learn(5000, callback=[checkpoint_callback, eval_callback])
model.learn(400, callback=callback)  # manual: 5000
"""


def test_checkpoint_and_eval_callbacks(tmp_path, monkeypatch):
    with pytest.warns(UserWarning, match="Pendulum-v1"):
        run_example(CHECKPOINT_EVAL_CALLBACKS, tmp_path, monkeypatch)
    logs = os.path.join(str(tmp_path), "logs")
    assert sorted(name for name in os.listdir(logs) if name.endswith(".zip")) == \
        ["rl_model_200_steps.zip", "rl_model_400_steps.zip"]
    assert os.path.isfile(os.path.join(logs, "best_model", "best_model.zip"))
    evaluations = np.load(os.path.join(logs, "results", "evaluations.npz"))
    assert evaluations["timesteps"].tolist() == [200, 400]


LEGACY_CALLBACK = """
from typing import Dict, Any

from stable_baselines import PPO2


def simple_callback(_locals: Dict[str, Any], _globals: Dict[str, Any]) -> bool:
    print("callback called")
    # Save the model
    _locals["self"].save("saved_model")
    # If you want to continue training, the callback must return True.
    # return True # returns True, training continues.
    print("stop training")
    return False # returns False, training stops.

model = PPO2('MlpPolicy', 'CartPole-v1')
model.learn(2000, callback=simple_callback)
"""


def test_legacy_functional_callback(tmp_path, monkeypatch):
    namespace = run_example(LEGACY_CALLBACK, tmp_path, monkeypatch)
    assert os.path.isfile(os.path.join(str(tmp_path), "saved_model.zip"))
    assert namespace["model"].num_timesteps < 2000  # stopped early


# --- Custom policies -----------------------------------------------------------------------------------------

POLICY_KWARGS = """
import gymnasium as gym  # CHANGED: import gym
import tensorflow.compat.v1 as tf  # CHANGED: import tensorflow as tf

from stable_baselines import PPO2

# Custom MLP policy of two layers of size 32 each with tanh activation function
policy_kwargs = dict(act_fun=tf.nn.tanh, net_arch=[32, 32])
# Create the agent
model = PPO2("MlpPolicy", "CartPole-v1", policy_kwargs=policy_kwargs, verbose=1)  # manual (typo): policy_kwarg=
# Retrieve the environment
env = model.get_env()
# Train the agent
model.learn(total_timesteps=128)  # manual: 100000
# Save the agent
model.save("ppo2-cartpole")

del model
# the policy_kwargs are automatically loaded
model = PPO2.load("ppo2-cartpole")
"""

CUSTOM_FEEDFORWARD_POLICY = """
import gymnasium as gym  # CHANGED: import gym

from stable_baselines.common.policies import FeedForwardPolicy, register_policy
from stable_baselines.common.vec_env import DummyVecEnv
from stable_baselines import A2C

# Custom MLP policy of three layers of size 128 each
class CustomPolicy(FeedForwardPolicy):
    def __init__(self, *args, **kwargs):
        super(CustomPolicy, self).__init__(*args, **kwargs,
                                           net_arch=[dict(pi=[128, 128, 128],
                                                          vf=[128, 128, 128])],
                                           feature_extraction="mlp")

# Create and wrap the environment
env = gym.make('LunarLander-v3')  # CHANGED: 'LunarLander-v2'
env = DummyVecEnv([lambda: env])

model = A2C(CustomPolicy, env, verbose=1)
# Train the agent
model.learn(total_timesteps=100)  # manual: 100000
# Save the agent
model.save("a2c-lunar")

del model
# When loading a model with a custom policy
# you MUST pass explicitly the policy when loading the saved model
model = A2C.load("a2c-lunar", policy=CustomPolicy)
"""

REGISTER_POLICY = """
from stable_baselines.common.policies import FeedForwardPolicy, register_policy
from stable_baselines import A2C

# Custom MLP policy of three layers of size 128 each
class CustomPolicyManualTest(FeedForwardPolicy):  # manual: CustomPolicy (a name that stays unique in the test run)
    def __init__(self, *args, **kwargs):
        super(CustomPolicyManualTest, self).__init__(*args, **kwargs,
                                           net_arch=[dict(pi=[128, 128, 128],
                                                          vf=[128, 128, 128])],
                                           feature_extraction="mlp")

# Register the policy, it will check that the name is not already taken
register_policy('CustomPolicyManualTest', CustomPolicyManualTest)

# Because the policy is now registered, you can pass
# a string to the agent constructor instead of passing a class
model = A2C(policy='CustomPolicyManualTest', env='LunarLander-v2', verbose=1).learn(total_timesteps=100)  # manual: 100000
"""

TF_LAYERS_POLICY = """
import gymnasium as gym  # CHANGED: import gym
import tensorflow.compat.v1 as tf  # CHANGED: import tensorflow as tf

from stable_baselines.common.policies import ActorCriticPolicy, register_policy, nature_cnn
from stable_baselines.common.vec_env import DummyVecEnv
from stable_baselines import A2C

# Custom MLP policy of three layers of size 128 each for the actor and 2 layers of 32 for the critic,
# with a nature_cnn feature extractor
class CustomPolicy(ActorCriticPolicy):
    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, **kwargs):
        super(CustomPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, scale=True)

        with tf.variable_scope("model", reuse=reuse):
            activ = tf.nn.relu

            extracted_features = nature_cnn(self.processed_obs, **kwargs)
            extracted_features = tf.layers.flatten(extracted_features)

            pi_h = extracted_features
            for i, layer_size in enumerate([128, 128, 128]):
                pi_h = activ(tf.layers.dense(pi_h, layer_size, name='pi_fc' + str(i)))
            pi_latent = pi_h

            vf_h = extracted_features
            for i, layer_size in enumerate([32, 32]):
                vf_h = activ(tf.layers.dense(vf_h, layer_size, name='vf_fc' + str(i)))
            value_fn = tf.layers.dense(vf_h, 1, name='vf')
            vf_latent = vf_h

            self._proba_distribution, self._policy, self.q_value = \\
                self.pdtype.proba_distribution_from_latent(pi_latent, vf_latent, init_scale=0.01)

        self._value_fn = value_fn
        self._setup_init()

    def step(self, obs, state=None, mask=None, deterministic=False):
        if deterministic:
            action, value, neglogp = self.sess.run([self.deterministic_action, self.value_flat, self.neglogp],
                                                   {self.obs_ph: obs})
        else:
            action, value, neglogp = self.sess.run([self.action, self.value_flat, self.neglogp],
                                                   {self.obs_ph: obs})
        return action, value, self.initial_state, neglogp

    def proba_step(self, obs, state=None, mask=None):
        return self.sess.run(self.policy_proba, {self.obs_ph: obs})

    def value(self, obs, state=None, mask=None):
        return self.sess.run(self.value_flat, {self.obs_ph: obs})

# Create and wrap the environment
env = DummyVecEnv([lambda: ImageEnv()])  # CHANGED: gym.make('Breakout-v0') (a small image env keeps the test fast)

model = A2C(CustomPolicy, env, verbose=1)
# Train the agent
model.learn(total_timesteps=50)  # manual: 100000
"""

IMAGE_ENV = """
import gymnasium
import numpy as np
from gymnasium import spaces


class ImageEnv(gymnasium.Env):
    # an 84x84x1 image observation (the smallest input nature_cnn takes), 4 actions, episodes of 10 steps
    observation_space = spaces.Box(0, 255, (84, 84, 1), dtype=np.uint8)
    action_space = spaces.Discrete(4)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.n_steps = 0
        return self.observation_space.sample(), {}

    def step(self, action):
        self.n_steps += 1
        return self.observation_space.sample(), float(action == 0), False, self.n_steps >= 10, {}
"""


def test_custom_policy_kwargs(tmp_path, monkeypatch):
    namespace = run_example(POLICY_KWARGS, tmp_path, monkeypatch)
    assert namespace["model"].policy_kwargs["net_arch"] == [32, 32]
    names = [var.name for var in namespace["model"].get_parameter_list()]
    # a list of ints is a shared network (as in the original): two shared layers of 32 units
    assert "model/shared_fc1/w:0" in names and "model/shared_fc2/w:0" not in names
    assert namespace["model"].get_parameters()["model/shared_fc1/w:0"].shape == (32, 32)


def test_custom_feedforward_policy(tmp_path, monkeypatch):
    namespace = run_example(CUSTOM_FEEDFORWARD_POLICY, tmp_path, monkeypatch)
    params = namespace["model"].get_parameters()
    assert params["model/pi_fc2/w:0"].shape == (128, 128)
    assert params["model/vf_fc2/w:0"].shape == (128, 128)


def test_register_policy(tmp_path, monkeypatch):
    namespace = run_example(REGISTER_POLICY, tmp_path, monkeypatch)
    assert namespace["model"].policy is namespace["CustomPolicyManualTest"]


def test_custom_policy_with_tf_layers(tmp_path, monkeypatch):
    namespace = run_example(IMAGE_ENV + TF_LAYERS_POLICY, tmp_path, monkeypatch)
    names = [var.name for var in namespace["model"].get_parameter_list()]
    # tf.layers.dense inside the user's policy creates TF-1 style names
    assert "model/pi_fc0/kernel:0" in names and "model/vf/bias:0" in names
    assert namespace["model"].num_timesteps >= 50


# --- VecNormalize: save and load the statistics --------------------------------------------------------------

VEC_NORMALIZE = """
import os

import gymnasium as gym  # CHANGED: import gym

from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize
from stable_baselines import PPO2

env = DummyVecEnv([lambda: gym.make("Pendulum-v1")])  # CHANGED: "HalfCheetahBulletEnv-v0" (needs pybullet)
# Automatically normalize the input features and reward
env = VecNormalize(env, norm_obs=True, norm_reward=True,
                   clip_obs=10.)

model = PPO2('MlpPolicy', env)
model.learn(total_timesteps=256)  # manual: 2000

# Don't forget to save the VecNormalize statistics when saving the agent
log_dir = "./"  # manual: "/tmp/"
model.save(log_dir + "ppo_halfcheetah")
stats_path = os.path.join(log_dir, "vec_normalize.pkl")
env.save(stats_path)

saved_mean = env.obs_rms.mean.copy()  # ADDED for the test
# To demonstrate loading
del model, env

# Load the agent
model = PPO2.load(log_dir + "ppo_halfcheetah")

# Load the saved statistics
env = DummyVecEnv([lambda: gym.make("Pendulum-v1")])  # CHANGED: "HalfCheetahBulletEnv-v0"
env = VecNormalize.load(stats_path, env)
# do not update them at test time
env.training = False
# reward normalization is not needed at test time
env.norm_reward = False
"""


def test_vec_normalize_save_load(tmp_path, monkeypatch):
    namespace = run_example(VEC_NORMALIZE, tmp_path, monkeypatch)
    env = namespace["env"]
    np.testing.assert_allclose(env.obs_rms.mean, namespace["saved_mean"])
    assert env.training is False and env.norm_reward is False
    obs = env.reset()
    action, _ = namespace["model"].predict(obs)
    assert action.shape == (1, 1)


# --- Pre-training (behaviour cloning) -----------------------------------------------------------------------

PRETRAIN = """
from stable_baselines import DQN
from stable_baselines.gail import generate_expert_traj

model = DQN('MlpPolicy', 'CartPole-v1', verbose=1)
# Train a DQN agent for 1e5 timesteps and generate 10 trajectories
# data will be saved in a numpy archive named `expert_cartpole.npz`
generate_expert_traj(model, 'expert_cartpole', n_timesteps=int(200), n_episodes=3)  # manual: int(1e5), 10

from stable_baselines import PPO2
from stable_baselines.gail import ExpertDataset
# Using only one expert trajectory
# you can specify `traj_limitation=-1` for using the whole dataset
dataset = ExpertDataset(expert_path='expert_cartpole.npz',
                        traj_limitation=1, batch_size=128)

model = PPO2('MlpPolicy', 'CartPole-v1', verbose=1)
# Pretrain the PPO2 model
model.pretrain(dataset, n_epochs=5)  # manual: 1000

# As an option, you can train the RL agent
# model.learn(int(1e5))

# Test the pre-trained model
env = model.get_env()
obs = env.reset()

reward_sum = 0.0
for _ in range(200):  # manual: 1000
    action, _ = model.predict(obs)
    obs, reward, done, _ = env.step(action)
    reward_sum += reward
    env.render()
    if done:
        print(reward_sum)
        reward_sum = 0.0
        obs = env.reset()

env.close()
"""

DUMMY_EXPERT = """
import gymnasium as gym  # CHANGED: import gym

from stable_baselines.gail import generate_expert_traj

env = gym.make("CartPole-v1")
# Here the expert is a random agent
# but it can be any python function, e.g. a PID controller
def dummy_expert(_obs):
    \"\"\"
    Random agent. It samples actions randomly
    from the action space of the environment.

    :param _obs: (np.ndarray) Current observation
    :return: (np.ndarray) action taken by the expert
    \"\"\"
    return env.action_space.sample()
# Data will be saved in a numpy archive named `expert_cartpole.npz`
# when using something different than an RL expert,
# you must pass the environment object explicitly
generate_expert_traj(dummy_expert, 'dummy_expert_cartpole', env, n_episodes=3)  # manual: 10
"""


def test_pretrain(tmp_path, monkeypatch):
    namespace = run_example(PRETRAIN, tmp_path, monkeypatch)
    assert len(namespace["dataset"].observations) > 0
    data = np.load(os.path.join(str(tmp_path), "expert_cartpole.npz"))
    assert len(data["episode_returns"]) == 3
    run_example(DUMMY_EXPERT, tmp_path, monkeypatch)
    data = np.load(os.path.join(str(tmp_path), "dummy_expert_cartpole.npz"))
    assert len(data["episode_returns"]) == 3 and data["obs"].shape[1] == 4


# --- HER -------------------------------------------------------------------------------------------------------

HER_BIT_FLIPPING = """
from stable_baselines import HER, DQN, SAC, DDPG, TD3
from stable_baselines.her import GoalSelectionStrategy, HERGoalEnvWrapper
from stable_baselines.common.bit_flipping_env import BitFlippingEnv
from stable_baselines.common.vec_env import DummyVecEnv  # CHANGED: added (for the wrap below)

N_BITS = 4  # ADDED: the manual leaves N_BITS undefined
model_class = DQN # works also with SAC, DDPG and TD3

env = BitFlippingEnv(N_BITS, continuous=model_class in [DDPG, SAC, TD3], max_steps=N_BITS)

# Available strategies (cf paper): future, final, episode, random
goal_selection_strategy = 'future' # equivalent to GoalSelectionStrategy.FUTURE

# Wrap the model
model = HER('MlpPolicy', env, model_class, n_sampled_goal=4, goal_selection_strategy=goal_selection_strategy,
                                                verbose=1)
# Train the model
model.learn(300)  # manual: 1000

model.save("./her_bit_env")

# WARNING: you must pass an env
# or wrap your environment with HERGoalEnvWrapper to use the predict method
model = HER.load('./her_bit_env', env=env)

env = DummyVecEnv([lambda: env])  # CHANGED: added (the loop below uses the 4-value VecEnv API)
obs = env.reset()
for _ in range(100):
    action, _ = model.predict(obs)
    obs, reward, done, _ = env.step(action)

    if done:
        obs = env.reset()
"""


def test_her_bit_flipping(tmp_path, monkeypatch):
    namespace = run_example(HER_BIT_FLIPPING, tmp_path, monkeypatch)
    assert os.path.isfile(os.path.join(str(tmp_path), "her_bit_env.zip"))
    assert set(namespace["obs"].keys()) == {"observation", "achieved_goal", "desired_goal"}


# --- Recurrent policies ----------------------------------------------------------------------------------------

RECURRENT = """
from stable_baselines import PPO2

# For recurrent policies, with PPO2, the number of environments run in parallel
# should be a multiple of nminibatches.
model = PPO2('MlpLstmPolicy', 'CartPole-v1', nminibatches=1, verbose=1)
model.learn(128)  # manual: 50000

# Retrieve the env
env = model.get_env()

obs = env.reset()
# Passing state=None to the predict function means
# it is the initial state
state = None
# When using VecEnv, done is a vector
done = [False for _ in range(env.num_envs)]
for _ in range(50):  # manual: 1000
    # We need to pass the previous state and a mask for recurrent policies
    # to reset lstm state when a new episode begin
    action, state = model.predict(obs, state=state, mask=done)
    obs, reward, done, _ = env.step(action)
    # Note: with VecEnv, env.reset() is automatically called

    # Show the env
    env.render()
"""


def test_recurrent_policy(tmp_path, monkeypatch):
    namespace = run_example(RECURRENT, tmp_path, monkeypatch)
    state = namespace["state"]
    assert state.shape == (1, 2 * 256)  # (n_envs, 2 * n_lstm): cell and hidden state
    assert np.any(state != 0)


# --- GIF of a trained agent -------------------------------------------------------------------------------------

GIF = """
import imageio
import numpy as np
import gymnasium as gym  # CHANGED: added (the env must be created with a render_mode)

from stable_baselines import A2C

# CHANGED: "LunarLander-v2" given as a string (an env made with render_mode='rgb_array' is needed to get images)
model = A2C("MlpPolicy", gym.make("LunarLander-v3", render_mode="rgb_array")).learn(100)  # manual: 100000

images = []
obs = model.env.reset()
img = model.env.render(mode='rgb_array')
for i in range(20):  # manual: 350
    images.append(img)
    action, _ = model.predict(obs)
    obs, _, _ ,_ = model.env.step(action)
    img = model.env.render(mode='rgb_array')

imageio.mimsave('lander_a2c.gif', [np.array(img) for i, img in enumerate(images) if i%2 == 0], fps=29)
"""


@pytest.mark.skipif(not HAS_IMAGEIO, reason="the GIF example needs imageio (pip install imageio)")
@pytest.mark.skipif(not HAS_PYGAME, reason="rendering classic-control / Box2D environments needs pygame "
                                           "(pip install 'gymnasium[classic-control]')")
def test_gif_of_trained_agent(tmp_path, monkeypatch):
    namespace = run_example(GIF, tmp_path, monkeypatch)
    assert namespace["images"][0].ndim == 3
    assert os.path.getsize(os.path.join(str(tmp_path), "lander_a2c.gif")) > 0
