"""
Recurrent policies really remember: PPO2 on CartPole-v1 with the velocities hidden from the
observation (only cart position and pole angle are seen). A feed-forward policy cannot infer the
velocities from one observation; an LSTM policy can from the sequence.

    python benchmarks/recurrent_memory.py --timesteps 200000

Settings (close to the rl-zoo's recurrent PPO on CartPoleNoVel): 8 envs, n_steps 32, one minibatch
of whole sequences, 10 epochs, linear learning rate from 1e-3, a 64-unit LSTM for the recurrent
policy (the same settings, without the LSTM, for the feed-forward control).
"""
import argparse
import time

import gymnasium
import numpy as np

from stable_baselines import PPO2
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.vec_env import DummyVecEnv


class HideVelocity(gymnasium.ObservationWrapper):
    """Keep only the cart position and the pole angle of CartPole's observation."""

    def __init__(self, env):
        super().__init__(env)
        low, high = env.observation_space.low[[0, 2]], env.observation_space.high[[0, 2]]
        self.observation_space = gymnasium.spaces.Box(low, high, dtype=np.float32)

    def observation(self, observation):
        return observation[[0, 2]]


def make():
    return HideVelocity(make_env("CartPole-v1"))


def evaluate(model, n_envs: int, episodes: int = 10) -> float:
    """Deterministic mean return, stepping n_envs copies so that the LSTM state has its training batch."""
    env = DummyVecEnv([make for _ in range(n_envs)])
    returns, totals = [], np.zeros(n_envs)
    obs, state, dones = env.reset(), None, np.zeros(n_envs, dtype=bool)
    while len(returns) < episodes:
        actions, state = model.predict(obs, state=state, mask=dones, deterministic=True)
        obs, rewards, dones, _ = env.step(actions)
        totals += rewards
        for i in np.where(dones)[0]:
            returns.append(totals[i])
            totals[i] = 0
    return float(np.mean(returns[:episodes]))


def train(policy: str, timesteps: int, seed: int) -> dict:
    n_envs = 8
    env = DummyVecEnv([make for _ in range(n_envs)])
    policy_kwargs = dict(n_lstm=64) if "Lstm" in policy else None
    model = PPO2(policy, env, n_steps=32, nminibatches=1, noptepochs=10, learning_rate=lambda f: 1e-3 * f,
                 ent_coef=0.0, gamma=0.99, lam=0.95, seed=seed, n_cpu_tf_sess=1, policy_kwargs=policy_kwargs)
    start = time.time()
    model.learn(timesteps)
    wall = time.time() - start
    return dict(policy=policy, score=evaluate(model, n_envs), fps=timesteps / wall, wall=wall)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--timesteps", type=int, default=200000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--policies", nargs="+", default=["MlpLstmPolicy", "MlpPolicy"])
    args = parser.parse_args()
    for policy in args.policies:
        result = train(policy, args.timesteps, args.seed)
        print("{policy}: deterministic score {score:.1f}, {fps:.0f} steps/s, wall {wall:.0f} s".format(**result),
              flush=True)


if __name__ == "__main__":
    main()
